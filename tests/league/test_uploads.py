"""Unpacking uploads (issue 14): hostile archives are refused with a named error
and nothing is written outside the store.

Each attack archive is first extracted the naive way (``tarfile.extractall``
without a filter; for zip, the join-the-name-and-write loop many tools use,
honouring symlink bits as ``unzip`` does) in a scratch directory, and the test
asserts that this *does* escape — so a guard test cannot pass by attacking
nothing."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from league.store.uploads import UploadRejected, find_entry, safe_member_path, store_upload, unpack
from referee.runtime.sandbox import BOT_TREE_MARKER, bot_files

LIMITS = {"max_files": 20, "max_unpacked_bytes": 1 << 20}
BOT = b"print('hello')\n"


def tar_bytes(members: Sequence[tarfile.TarInfo | tuple[str, bytes]], mode: str = "w:gz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:  # type: ignore[call-overload]
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
            else:
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                archive.addfile(info, io.BytesIO(member[1]))
    return buffer.getvalue()


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def zip_bytes(members: list[tuple[str, bytes, int]]) -> bytes:
    """(name, data, unix mode) members; mode's type bits go in the external attributes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def naive_extract(filename: str, data: bytes, dest: Path) -> None:
    """What an unguarded server would do."""
    dest.mkdir(parents=True, exist_ok=True)
    if filename.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                target = os.path.join(dest, info.filename)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                if stat.S_ISLNK(info.external_attr >> 16):
                    os.symlink(archive.read(info).decode(), target)
                else:
                    with open(target, "wb") as out:
                        out.write(archive.read(info))
        return
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(dest, filter="fully_trusted")


class Layout:
    """``tmp/work/store`` is the store; ``tmp/work/sentinel`` (next to it) must never
    appear. ``tmp/naive/...`` is the scratch place of the naive extraction."""

    def __init__(self, tmp: Path) -> None:
        self.store = tmp / "work" / "store"
        self.store.mkdir(parents=True)
        self.sentinel = tmp / "work" / "sentinel"
        self.naive_dest = tmp / "naive" / "a" / "store"
        self.naive_sentinel = tmp / "naive" / "a" / "sentinel"
        self.naive_outside = tmp / "naive" / "outside"
        self.naive_outside.mkdir(parents=True)

    def outside_everything(self) -> list[Path]:
        """Every path outside the store the test can see."""
        root = self.store.parent
        return sorted(p for p in root.rglob("*") if self.store not in [p, *p.parents])


Attack = Callable[[Layout], tuple[str, bytes, bytes, Callable[[Layout], Path]]]
"""(upload file name, attack aimed at the naive scratch place, the same attack aimed
at the real store's neighbourhood, where the naive attack lands)."""


def dotdot(kind: str) -> Attack:
    def build(lay: Layout) -> tuple[str, bytes, bytes, Callable[[Layout], Path]]:
        members = [("bot.py", BOT), ("../sentinel", b"pwned")]
        if kind == "zip":
            data = zip_bytes([(n, d, stat.S_IFREG | 0o644) for n, d in members])
            return "bot.zip", data, data, lambda lay: lay.naive_sentinel
        data = tar_bytes(list(members))
        return "bot.tar.gz", data, data, lambda lay: lay.naive_sentinel

    return build


def absolute(kind: str) -> Attack:
    def build(lay: Layout) -> tuple[str, bytes, bytes, Callable[[Layout], Path]]:
        naive = [("bot.py", BOT), (str(lay.naive_sentinel), b"pwned")]
        real = [("bot.py", BOT), (str(lay.sentinel), b"pwned")]
        if kind == "zip":

            def make(m: list[tuple[str, bytes]]) -> bytes:
                return zip_bytes([(n, d, stat.S_IFREG | 0o644) for n, d in m])

            # zipfile strips a leading '/', so the naive loop's os.path.join sees it.
            return "bot.zip", make(naive), make(real), lambda lay: lay.naive_sentinel
        return (
            "bot.tar",
            tar_bytes(list(naive), "w"),
            tar_bytes(list(real), "w"),
            lambda lay: lay.naive_sentinel,
        )

    return build


def symlink(kind: str) -> Attack:
    def build(lay: Layout) -> tuple[str, bytes, bytes, Callable[[Layout], Path]]:
        def make(outside: Path) -> bytes:
            if kind == "zip":
                return zip_bytes(
                    [
                        ("bot.py", BOT, stat.S_IFREG | 0o644),
                        ("evil", str(outside).encode(), stat.S_IFLNK | 0o777),
                        ("evil/sentinel", b"pwned", stat.S_IFREG | 0o644),
                    ]
                )
            return tar_bytes(
                [("bot.py", BOT), link("evil", str(outside)), ("evil/sentinel", b"pwned")]
            )

        name = "bot.zip" if kind == "zip" else "bot.tgz"
        return (
            name,
            make(lay.naive_outside),
            make(lay.sentinel.parent),
            lambda lay: lay.naive_outside / "sentinel",
        )

    return build


def hardlink(lay: Layout) -> tuple[str, bytes, bytes, Callable[[Layout], Path]]:
    """A hard link to a file outside, then a member of the same name written through it."""

    def make(outside: Path) -> bytes:
        return tar_bytes(
            [("bot.py", BOT), link("evil", str(outside), tarfile.LNKTYPE), ("evil", b"pwned")]
        )

    (lay.naive_outside / "victim").write_bytes(b"original")
    lay.sentinel.write_bytes(b"original")  # a file outside the store that must not change
    return "bot.tar.gz", make(lay.naive_outside / "victim"), make(lay.sentinel), _victim


def _victim(lay: Layout) -> Path:
    return lay.naive_outside / "victim"


@pytest.mark.parametrize(
    ("attack", "message"),
    [
        (dotdot("tar"), "'..' component"),
        (dotdot("zip"), "'..' component"),
        (absolute("tar"), "absolute path"),
        (absolute("zip"), "absolute path"),
        (symlink("tar"), "is a symbolic link"),
        (symlink("zip"), "is a symbolic link"),
        (hardlink, "is a hard link"),
    ],
    ids=["dotdot-tar", "dotdot-zip", "abs-tar", "abs-zip", "sym-tar", "sym-zip", "hard-tar"],
)
def test_escaping_archives_are_refused_and_write_nothing_outside(
    tmp_path: Path, attack: Attack, message: str
) -> None:
    lay = Layout(tmp_path)
    filename, naive_data, real_data, landed = attack(lay)
    naive_extract(filename, naive_data, lay.naive_dest)
    assert landed(lay).read_bytes() == b"pwned", "the attack does not escape a naive extraction"
    before = {p: p.read_bytes() for p in lay.outside_everything() if p.is_file()}
    with pytest.raises(UploadRejected, match=message):
        unpack(lay.store, filename, real_data, **LIMITS)
    after = {p: p.read_bytes() for p in lay.outside_everything() if p.is_file()}
    assert after == before
    assert not lay.sentinel.exists() or lay.sentinel.read_bytes() == b"original"
    assert not (lay.store / "bots").exists() or not any((lay.store / "bots").iterdir())
    assert not any((lay.store / "tmp").iterdir()), "a refused upload left files behind"


def test_devices_and_fifos_are_refused(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    for kind in (tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE):
        info = tarfile.TarInfo("dev")
        info.type = kind
        with pytest.raises(UploadRejected, match="'dev' is a device or FIFO"):
            unpack(lay.store, "b.tar", tar_bytes([("b.py", BOT), info], "w"), **LIMITS)
    data = zip_bytes([("b.py", BOT, stat.S_IFREG | 0o644), ("p", b"", stat.S_IFIFO | 0o644)])
    with pytest.raises(UploadRejected, match="'p' is not a regular file"):
        unpack(lay.store, "b.zip", data, **LIMITS)


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_too_many_files_are_refused(tmp_path: Path, kind: str) -> None:
    lay = Layout(tmp_path)
    members = [(f"m{i}.py", BOT) for i in range(21)]
    if kind == "zip":
        data = zip_bytes([(n, d, stat.S_IFREG | 0o644) for n, d in members])
    else:
        data = tar_bytes(list(members))
    with pytest.raises(UploadRejected, match="more than 20 members"):
        unpack(lay.store, "b.zip" if kind == "zip" else "b.tar.gz", data, **LIMITS)
    assert not list((lay.store / "tmp").iterdir())


def test_zip_bomb_is_stopped_while_extracting(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    data = zip_bytes([("b.py", BOT, 0), ("zeros", bytes(64 << 20), stat.S_IFREG | 0o644)])
    assert len(data) < 200_000  # a small upload...
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.getinfo("zeros").file_size == 64 << 20  # ...that unpacks to 64 MiB
    with pytest.raises(UploadRejected, match="unpacks to more than 1048576 bytes"):
        unpack(lay.store, "b.zip", data, **LIMITS)
    assert not list((lay.store / "tmp").iterdir())


def test_zip_sizes_in_headers_are_not_trusted(tmp_path: Path) -> None:
    """A zip whose headers claim a tiny size: the bytes read are what count."""
    lay = Layout(tmp_path)
    data = bytearray(zip_bytes([("zeros", bytes(4 << 20), stat.S_IFREG | 0o644)]))
    # Patch the central directory's uncompressed size of the only member to 10 bytes.
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    with pytest.raises(UploadRejected, match=r"unpacks to more than|damaged"):
        unpack(lay.store, "b.zip", bytes(data), **LIMITS)


def test_gzip_bomb_is_stopped_before_it_is_inflated(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    data = tar_bytes([("b.py", BOT), ("zeros", bytes(64 << 20))])
    assert len(data) < 200_000
    with pytest.raises(UploadRejected, match="decompresses to more than"):
        unpack(lay.store, "b.tar.gz", data, **LIMITS)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a\\b.py", "backslash"),
        ("a\0b.py", "NUL"),
        ("caf\udce9.py", "not valid UTF-8"),
        ("C:/x.py", "absolute path"),
        ("a/../../x", "'..' component"),
    ],
)
def test_bad_member_names_are_refused(name: str, message: str) -> None:
    with pytest.raises(UploadRejected, match=message):
        safe_member_path(name)


def test_non_utf8_zip_names_are_refused(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    data = bytearray(zip_bytes([("b.py", BOT, 0), ("caf_.py", BOT, 0)]))
    data = bytearray(bytes(data).replace(b"caf_.py", b"caf\xff.py"))
    with pytest.raises(UploadRejected, match="not valid UTF-8"):
        unpack(lay.store, "b.zip", bytes(data), **LIMITS)


def test_duplicates_and_unknown_formats_are_refused(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    with pytest.raises(UploadRejected, match="appears twice"):
        unpack(lay.store, "b.tar", tar_bytes([("b.py", BOT), ("./b.py", BOT)], "w"), **LIMITS)
    with pytest.raises(UploadRejected, match="inside the file"):
        unpack(lay.store, "b.tar", tar_bytes([("b.py", BOT), ("b.py/x", BOT)], "w"), **LIMITS)
    with pytest.raises(UploadRejected, match=r"cannot unpack 'b\.rar'"):
        unpack(lay.store, "b.rar", b"Rar!", **LIMITS)
    with pytest.raises(UploadRejected, match="not a readable zip"):
        unpack(lay.store, "b.zip", b"nonsense", **LIMITS)
    with pytest.raises(UploadRejected, match="plain file name"):
        unpack(lay.store, "../b.py", BOT, **LIMITS)
    with pytest.raises(UploadRejected, match="reserved name"):
        unpack(lay.store, "b.tar", tar_bytes([(BOT_TREE_MARKER, b"")], "w"), **LIMITS)


def test_a_good_archive_lands_read_only_by_content_and_the_sandbox_sees_its_tree(
    tmp_path: Path,
) -> None:
    lay = Layout(tmp_path)
    data = tar_bytes([("my_bot/my_bot.py", BOT), ("my_bot/helper.py", b"X = 1\n")])
    tree = unpack(lay.store, "my_bot.tgz", data, **LIMITS)
    assert tree.root == lay.store / "bots" / tree.digest
    assert tree.files == ("my_bot/helper.py", "my_bot/my_bot.py")
    assert stat.S_IMODE((tree.root / "my_bot" / "my_bot.py").stat().st_mode) == 0o444
    assert stat.S_IMODE(tree.root.stat().st_mode) == 0o555
    # The same files again: the same tree, nothing new.
    assert unpack(lay.store, "again.tar.gz", data, **LIMITS) == tree
    assert len(list((lay.store / "bots").iterdir())) == 1
    entry = find_entry(tree, "my_bot")
    assert entry == tree.root / "my_bot" / "my_bot.py"
    binds, _ = bot_files(["python", str(entry)])
    assert tree.root in binds  # its sibling modules are visible in the sandbox
    digest = store_upload(lay.store, data)
    assert (lay.store / "uploads" / digest).read_bytes() == data


def test_entry_point_convention(tmp_path: Path) -> None:
    lay = Layout(tmp_path)

    def entry(members: list[tuple[str, bytes]], name: str = "b") -> str:
        tree = unpack(lay.store, "x.tar", tar_bytes(members, "w"), **LIMITS)
        return str(find_entry(tree, name).relative_to(tree.root))

    assert entry([("main.py", BOT)]) == "main.py"
    assert entry([("b.py", BOT), ("util.py", BOT), ("test_b.py", BOT)]) == "b.py"
    assert entry([("run.py", BOT), ("test_run.py", BOT), ("README.md", b"")]) == "run.py"
    manifest = b'entry = "src/start.py"\n'
    assert entry([("arena-bot.toml", manifest), ("src/start.py", BOT), ("x.py", BOT)]) == (
        "src/start.py"
    )
    with pytest.raises(UploadRejected, match=r"no entry point: expected b\.py"):
        entry([("one.py", BOT), ("two.py", BOT)])
    with pytest.raises(UploadRejected, match="not in the upload"):
        entry([("arena-bot.toml", b'entry = "gone.py"\n'), ("b.py", BOT)])
    with pytest.raises(UploadRejected, match=r"'\.\.' component"):
        entry([("arena-bot.toml", b'entry = "../x.py"\n'), ("b.py", BOT)])
