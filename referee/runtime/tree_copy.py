"""A submitted bot's tree, copied afresh into every sandbox start (issue 28, item 3).

A bot bound to its tree on the host sees the host's file metadata: the
modification and change times of its files (the server unpacks an upload and
checks it at once, so during the check the tree is a second or two old, in a
ladder minutes or days), inode numbers and link counts. ``stat`` on any file
told a check from a ladder match every time.

So a submitted tree (a directory marked with
:data:`referee.runtime.sandbox.BOT_TREE_MARKER`) is not bound at its path. bubblewrap binds
the host tree read-only at a staging path under :data:`STAGE_ROOT` (mode 0700,
owned by the sandbox's root: a bot running as its own uid cannot enter it), puts a
fresh size-capped tmpfs at the tree's path, and the first program inside copies
the tree into it with ``tar``, every entry (``.`` too) dated :data:`FIXED_MTIME`,
before it starts the bot's command. Every start of a bot therefore sees the same
tree: the same times (the fixed modification time; change and access times of
the copy, as old as the sandbox), the same inode numbers (a fresh tmpfs numbers
its inodes in the order the sorted archive creates them), link counts, sizes and
modes, files owned by the sandbox's root and read-only to the bot.

Only argument and script building lives here; :func:`referee.runtime.sandbox.build_command`
wires it in. Under an unprivileged referee (a user namespace) the bot has the
copying program's uid and could enter the staging directory: the copy still gives
it the same tree at its path, but the host's tree stays reachable (docs/security.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

STAGE_ROOT = "/run/arena-stage"
"""Where the host trees are bound inside the sandbox, one numbered directory each."""

FIXED_MTIME = 946_684_800
"""2000-01-01 00:00:00 UTC: the modification time of every entry of a copied tree."""

PAGE = 4096
SLACK_BYTES = 256 << 10
"""Room beyond the tree's pages in its tmpfs (directories, tar's temporary state)."""

COPY = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do'
    ' k=$3; ex=(); i=0; while [ "$i" -lt "$k" ]; do ex+=("--exclude=${@:$((4 + i)):1}");'
    " i=$((i + 1)); done;"
    ' tar -C "$1" --sort=name --mtime=@' + str(FIXED_MTIME) + " --owner=0 --group=0"
    ' --numeric-owner --anchored --no-wildcards "${ex[@]}" -cf - .'
    ' | tar -C "$2" -xpf - --no-same-owner || exit 125;'
    ' shift $((3 + k)); n=$((n - 1)); done; exec "$@"'
)
"""The copying program (bash), run as the sandbox's root before the bot's limits and
user switch. Arguments: the number of trees, then per tree its staging path, its
path, the number of excluded entries and those entries (``./relative``), then the
command to exec. A failed copy exits 125 (the bot does not start)."""


def is_tree(path: Path, marker: str) -> bool:
    """Whether ``path`` is a submitted bot's tree (a directory holding ``marker``)."""
    return path.is_dir() and (path / marker).is_file()


def tmpfs_bytes(tree: Path) -> int:
    """The size cap of ``tree``'s copy: its files' pages, a page per directory, slack."""
    total = SLACK_BYTES
    for directory, _dirs, names in os.walk(tree):
        total += PAGE
        for name in names:
            try:
                size = os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
            total += -(-size // PAGE) * PAGE
    return total


def bwrap_args(trees: Sequence[Path]) -> list[str]:
    """bubblewrap's options for ``trees``: the hidden staging directory, each host
    tree bound read-only in it, and a fresh tmpfs at each tree's path (the tree's
    parent directories must already exist in the sandbox)."""
    if not trees:
        return []
    # The parent first, 0755: bubblewrap would make it 0700 and the bot could not
    # reach its socket directory beside the staging one.
    args = ["--perms", "0755", "--dir", str(Path(STAGE_ROOT).parent)]
    args += ["--perms", "0700", "--dir", STAGE_ROOT]
    for index, tree in enumerate(trees):
        args += ["--ro-bind", str(tree), f"{STAGE_ROOT}/{index}"]
        args += ["--perms", "0755", "--size", str(tmpfs_bytes(tree)), "--tmpfs", str(tree)]
    return args


def copy_command(trees: Sequence[Path], hidden: Iterable[Path] = ()) -> list[str]:
    """The words that copy ``trees`` into their tmpfs and then exec what follows
    them; an entry of ``hidden`` under a tree is left out of its copy."""
    if not trees:
        return []
    hidden = [Path(p) for p in hidden]
    words = ["/bin/bash", "-c", COPY, "arena-copy", str(len(trees))]
    for index, tree in enumerate(trees):
        excluded = [f"./{p.relative_to(tree)}" for p in hidden if tree in p.parents]
        words += [f"{STAGE_ROOT}/{index}", str(tree), str(len(excluded)), *excluded]
    return words
