"""Prints, as one ``TREE {json}`` line on stderr, the metadata of every entry of the
submitted tree it lives in, whether the staging directory is reachable and whether
the tree is writable; then exits (used by tests/security/test_tree_copy.py)."""

from __future__ import annotations

import json
import os
import sys
import time

from referee.runtime.tree_copy import STAGE_ROOT


def main() -> None:
    root = os.path.dirname(os.path.abspath(__file__))
    now = time.time()
    entries = {}
    for directory, _dirs, names in os.walk(root):
        for name in [".", *names]:
            path = os.path.join(directory, name)
            st = os.lstat(path)
            entries[os.path.relpath(path, root)] = {
                "mtime": st.st_mtime,
                "ctime_age": now - st.st_ctime,
                "ino": st.st_ino,
                "nlink": st.st_nlink,
                "size": st.st_size,
                "mode": st.st_mode,
                "uid": st.st_uid,
            }
    seen: dict[str, object] = {"uid": os.getuid(), "entries": entries}
    try:
        seen["stage"] = sorted(os.listdir(STAGE_ROOT))
    except OSError as error:
        seen["stage"] = type(error).__name__
    try:
        with open(os.path.join(root, "planted"), "w"):
            seen["write"] = "written"
    except OSError as error:
        seen["write"] = type(error).__name__
    print("TREE " + json.dumps(seen, sort_keys=True), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
