"""Writing output files safely: whole or not at all, never through a link."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` atomically.

    The bytes go to a new temporary file in the same directory (created
    exclusively, so never through a planted link), are flushed to disk, and the
    file is renamed over ``path``. A symbolic link at ``path`` is replaced, not
    followed; readers see the old file or the whole new one, never a part.
    Raises :class:`OSError` naming the path.
    """
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(f"{path} is a directory")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
