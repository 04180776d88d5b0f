"""The generated protobuf code must match the .proto files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_generated_code_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "proto" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_proto_message_and_field_is_commented() -> None:
    """buf style: a comment line directly above every message, enum, field and rpc."""
    missing = []
    for path in sorted((ROOT / "proto" / "arena" / "v1").glob("*.proto")):
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            text = line.strip()
            if not text or text.startswith(("//", "}", "syntax", "package", "import", "option")):
                continue
            if text.startswith("oneof") or text.endswith("{") or text.endswith(";"):
                previous = lines[number - 1].strip() if number else ""
                if not previous.startswith("//"):
                    missing.append(f"{path.name}:{number + 1}: {text}")
    assert not missing, "uncommented declarations:\n" + "\n".join(missing)
