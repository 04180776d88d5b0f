"""Regenerate (or check) the Python code for every .proto under proto/arena.

    python proto/generate.py          # rewrite the generated files
    python proto/generate.py --check  # exit 1 if they differ from the .proto files (silent if not)

Generated files (``*_pb2.py``, ``*_pb2_grpc.py`` for a file that defines a service, and
their ``.pyi`` stubs) sit next to their ``.proto`` so that ``import arena.v1.bot_pb2``
mirrors the proto package.
Never edit them by hand.

The ``.proto`` of each built-in game (``proto/arena/v1/<game>.proto``) is generated
too, from its engine's types and its codec's declared exceptions
(:mod:`referee.wire.schema`), before anything is compiled; ``--check`` fails if one
differs from what the engine says. ``bot.proto`` (the service, which imports the
games' files) is written by hand.

A game whose messages are not part of ``arena.v1`` (an installed game, such as the
toy games under ``tests/``) keeps its ``.proto`` in its own package: every ``.proto``
the repository tracks outside ``proto/`` is generated (and drift-checked) next to
itself, compiled with its own directory as the include root, so a new game needs no
edit here. Its messages travel in the ``extension`` (``google.protobuf.Any``) field of
``Observation``/``Action`` (docs/protocol.md).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PROTO_ROOT.parent
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")
"""What protoc writes; a game's own messages get only the first two (no services)."""


def proto_roots() -> list[Path]:
    """Every include root: ``proto/`` and the directory of each other tracked ``.proto``."""
    listed = subprocess.run(
        ["git", "ls-files", "*.proto"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    games = {(REPO_ROOT / name).parent for name in listed if not name.startswith("proto/")}
    return [PROTO_ROOT, *sorted(games)]


def generate(out_dir: Path, root: Path = PROTO_ROOT) -> None:
    from grpc_tools import protoc  # dev dependency: grpcio-tools

    own = root != PROTO_ROOT
    # A game's directory: only its own files, not nested ones; messages only, no services.
    found = root.glob("*.proto") if own else root.rglob("*.proto")
    sources = sorted(str(p.relative_to(root)) for p in found)
    include = Path(protoc.__file__).resolve().parent / "_proto"
    bin_dir = Path(sys.executable).parent
    args = [
        "protoc",
        f"-I{root}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--plugin=protoc-gen-mypy={bin_dir / 'protoc-gen-mypy'}",
        f"--mypy_out={out_dir}",
    ]
    if not own:
        args += [
            f"--grpc_python_out={out_dir}",
            f"--plugin=protoc-gen-mypy_grpc={bin_dir / 'protoc-gen-mypy_grpc'}",
            f"--mypy_grpc_out={out_dir}",
        ]
    args += sources
    status, messages = _quietly(lambda: protoc.main(args))
    if status != 0:
        sys.stderr.write(messages)
        raise SystemExit("protoc failed")
    for source in sources:  # the gRPC modules of a file that defines no service are empty
        if not re.search(r"^service\s", (root / source).read_text(), re.MULTILINE):
            for suffix in ("_pb2_grpc.py", "_pb2_grpc.pyi"):
                (out_dir / source.replace(".proto", suffix)).unlink(missing_ok=True)


def _quietly(call: Callable[[], int]) -> tuple[int, str]:
    """Run ``call`` with file descriptor 2 captured: ``(its result, what it wrote there)``.

    protoc's mypy plugins are child processes that announce every file on stderr
    ("Writing mypy to ..."); a check that passes prints nothing, so that chatter is
    kept and shown only when protoc fails.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as capture:
        os.dup2(capture.fileno(), 2)
        try:
            status = call()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return status, capture.read()


def generated_files(root: Path, *, nested: bool = True) -> set[Path]:
    found = root.rglob("*") if nested else root.glob("*")
    return {
        p.relative_to(root) for p in found if p.is_file() and p.name.endswith(GENERATED_SUFFIXES)
    }


def process(root: Path, *, check: bool) -> bool:
    """Generate ``root``'s code (or only compare it); False if ``check`` found drift."""
    nested = root == PROTO_ROOT
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(out, root)
        fresh = generated_files(out)
        if check:
            current = generated_files(root, nested=nested)
            drift = sorted(
                str(root / p)
                for p in fresh | current
                if p not in fresh
                or p not in current
                or not filecmp.cmp(out / p, root / p, shallow=False)
            )
            if drift:
                print(
                    "generated protobuf code is out of date: " + ", ".join(drift), file=sys.stderr
                )
                print("run: python proto/generate.py", file=sys.stderr)
                return False
            return True  # silent on success, like every check in `make test`
        for stale in generated_files(root, nested=nested) - fresh:
            (root / stale).unlink()
        for path in sorted(fresh):
            shutil.copyfile(out / path, root / path)
        print(f"wrote {len(fresh)} files under {root}")
    return True


def game_protos() -> dict[Path, str]:
    """Per built-in game (the catalogue's), its ``.proto`` as its engine's types say."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    from referee.core.catalogue import BUILTIN_GAMES, get_entry, load
    from referee.wire.derived import DerivedCodec
    from referee.wire.schema import proto_path, proto_source

    found = {}
    for game in BUILTIN_GAMES:
        # The class only: its instance is built against the messages written here.
        codec = type(load(get_entry(game).codec))
        if not issubclass(codec, DerivedCodec):
            raise SystemExit(f"{game}: its codec is not derived, so its .proto is not generated")
        found[REPO_ROOT / proto_path(codec)] = proto_source(codec)
    return found


def write_game_protos(*, check: bool) -> bool:
    """Write each built-in game's ``.proto`` (or only compare it); False if ``check``
    found one that differs."""
    protos = game_protos()
    if check:
        drift = sorted(str(path) for path, text in protos.items() if _read(path) != text)
        if drift:
            print("a game's .proto differs from its engine: " + ", ".join(drift), file=sys.stderr)
            print("run: python proto/generate.py", file=sys.stderr)
        return not drift
    for path, text in protos.items():
        if _read(path) != text:
            path.write_text(text)
            print(f"wrote {path}")
    return True


def _read(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check for drift")
    options = parser.parse_args()
    results = [write_game_protos(check=options.check)]
    results += [process(root, check=options.check) for root in proto_roots()]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
