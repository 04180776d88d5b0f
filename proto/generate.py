"""Regenerate (or check) the Python code for every .proto under proto/arena.

    python proto/generate.py          # rewrite the generated files
    python proto/generate.py --check  # exit 1 if they differ from the .proto files

Generated files (``*_pb2.py``, ``*_pb2_grpc.py`` and their ``.pyi`` stubs) sit next to their
``.proto`` so that ``import arena.v1.bot_pb2`` mirrors the proto package.
Never edit them by hand.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")


def generate(out_dir: Path) -> None:
    from grpc_tools import protoc  # dev dependency: grpcio-tools

    sources = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    include = Path(protoc.__file__).resolve().parent / "_proto"
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--plugin=protoc-gen-mypy={Path(sys.executable).parent / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={Path(sys.executable).parent / 'protoc-gen-mypy_grpc'}",
        f"--mypy_out={out_dir}",
        f"--mypy_grpc_out={out_dir}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


def generated_files(root: Path) -> set[Path]:
    return {
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and p.name.endswith(GENERATED_SUFFIXES)
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check for drift")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(out)
        fresh = generated_files(out)
        if options.check:
            current = generated_files(PROTO_ROOT)
            drift = sorted(
                str(p)
                for p in fresh | current
                if p not in fresh
                or p not in current
                or not filecmp.cmp(out / p, PROTO_ROOT / p, shallow=False)
            )
            if drift:
                print("generated protobuf code is out of date: " + ", ".join(drift))
                print("run: python proto/generate.py")
                return 1
            print(f"generated protobuf code is up to date ({len(fresh)} files)")
            return 0
        for stale in generated_files(PROTO_ROOT) - fresh:
            (PROTO_ROOT / stale).unlink()
        for path in sorted(fresh):
            shutil.copyfile(out / path, PROTO_ROOT / path)
        print(f"wrote {len(fresh)} files under {PROTO_ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
