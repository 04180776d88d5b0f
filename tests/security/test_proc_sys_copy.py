"""The frozen copy of /proc/sys that sandboxed bots see is shared by a user's
referees until the host reboots, and a directory someone else planted at its path is
never used (:func:`referee.runtime.proc_view.shared_sys`)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee.runtime import proc_view


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(proc_view, "_shared", {})
    monkeypatch.setattr(proc_view, "_roots", {})
    return tmp_path


def test_the_copy_holds_the_hosts_settings_read_only(temp_dir: Path) -> None:
    copy = proc_view.shared_sys()
    assert copy.parent.parent == temp_dir
    assert copy.parent.name.startswith(f"{proc_view.SHARED_SYS_PREFIX}{os.getuid()}-")
    host = Path("/proc/sys/vm/overcommit_memory").read_text()
    assert (copy / "vm" / "overcommit_memory").read_text() == host
    assert (copy / "vm" / "overcommit_memory").stat().st_mode & 0o777 == 0o444
    assert not [p for p in temp_dir.iterdir() if ".building-" in p.name]


def test_every_referee_process_uses_the_same_copy(temp_dir: Path) -> None:
    mine = proc_view.shared_sys()
    code = (
        "import tempfile; from referee.runtime import proc_view;"
        f" tempfile.gettempdir = lambda: {str(temp_dir)!r};"
        " print(proc_view.shared_sys())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == str(mine)


@pytest.mark.parametrize("planted", ["group-writable", "symlink"])
def test_a_planted_directory_is_never_used(temp_dir: Path, planted: str) -> None:
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    path = temp_dir / f"{proc_view.SHARED_SYS_PREFIX}{os.getuid()}-{boot}"
    fake = temp_dir / "fake"
    (fake / "sys" / "vm").mkdir(parents=True)
    (fake / "sys" / "vm" / "overcommit_memory").write_text("planted\n")
    if planted == "symlink":
        path.symlink_to(fake)
    else:
        fake.rename(path)
        path.chmod(0o777)
    copy = proc_view.shared_sys()
    assert not str(copy).startswith(str(path))
    host = Path("/proc/sys/vm/overcommit_memory").read_text()
    assert (copy / "vm" / "overcommit_memory").read_text() == host
