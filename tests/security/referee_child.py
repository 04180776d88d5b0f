"""Run one match WITHOUT the sandbox in a process of its own (guard tests).

    python -m tests.security.referee_child SPEC.json

SPEC.json: {"bots": [{"name", "command"}], "seed", "rules", "record", "logs",
"decision_s", "startup_s"}. Writes the record JSON to ``record`` and each seat's
captured output (hex) to ``logs``, only once the match is over: a referee
killed during the match writes neither.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio

from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import NO_SANDBOX


async def main(spec_path: Path) -> None:
    spec = json.loads(spec_path.read_text())
    bots = tuple(BotSpec(name=b["name"], command=tuple(b["command"])) for b in spec["bots"])
    logs: dict[int, bytes] = {}
    record = await run_match(
        MatchSpec("liars_dice", bots, seed=int(spec["seed"]), rules=spec.get("rules", {})),
        Limits(decision_s=float(spec["decision_s"]), startup_s=float(spec["startup_s"])),
        launcher=FreshLauncher(sandbox=NO_SANDBOX),
        logs=logs,
    )
    Path(spec["logs"]).write_text(json.dumps({str(k): v.hex() for k, v in logs.items()}))
    Path(spec["record"]).write_text(record.to_json())


if __name__ == "__main__":
    trio.run(main, Path(sys.argv[1]))
