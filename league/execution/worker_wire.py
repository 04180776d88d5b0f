"""What a league runner and its referee worker processes say over the worker's pipes.

Frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON (one
object with a ``type``). Length-prefixed rather than JSON lines so that a record
of any size, or text with any characters, needs no scanning for delimiters.

Runner → worker (the worker's stdin):

- ``config``: the sandbox (with the files no bot may see) and this worker's
  share of the bot uids; sent once, first. The worker answers ``ready``.
- ``play``: one match — :class:`~referee.runtime.match.MatchSpec` and
  :class:`~referee.runtime.match.Limits` — under a job number. The league's deal key
  travels only here, over a private pipe: never on a command line or in an
  environment, never to a bot.
- end of file: stop. Matches still running are abandoned (never reported), the
  worker's bots are stopped and it exits. A runner that dies closes the pipe too.

Worker → runner (its stdout): ``ready``, then for each job ``result`` (the sealed
record, each seat's output, each seat's mixed moves — :func:`encode_result` —, the
worker's bot-process counters) or ``failed`` (the referee refused the spec, e.g. an
unknown game: the in-process runner would raise).
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import trio

from referee.core.mixed import MixedAnswer
from referee.records.mixed_answers import seats_from_json, seats_to_json
from referee.records.record import MatchRecord, RecordError, chain_problems
from referee.runtime.match import Limits, MatchSpec
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import SandboxConfig

HEADER = struct.Struct(">I")
MAX_FRAME = 512 << 20
"""Largest frame accepted (a record is capped at 16 MiB compressed when stored)."""


class WorkerWireError(Exception):
    """A frame or message that does not follow this protocol (the text says how)."""


def encode_frame(message: Mapping[str, Any]) -> bytes:
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    if len(data) > MAX_FRAME:
        raise WorkerWireError(f"{message.get('type')!r} message of {len(data)} bytes is too large")
    return HEADER.pack(len(data)) + data


class FrameReader:
    """Reads whole frames from a trio receive stream."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream
        self._buffer = bytearray()

    async def _fill(self, size: int) -> bool:
        """Buffer at least ``size`` bytes; False at end of stream."""
        while len(self._buffer) < size:
            chunk = await self._stream.receive_some(1 << 20)
            if not chunk:
                return False
            self._buffer += chunk
        return True

    async def receive(self) -> dict[str, Any] | None:
        """The next message, or None at a clean end of stream (between frames)."""
        if not await self._fill(HEADER.size):
            if self._buffer:
                raise WorkerWireError(f"stream ended inside a frame header ({self._buffer!r})")
            return None
        (size,) = HEADER.unpack_from(self._buffer)
        if size > MAX_FRAME:
            raise WorkerWireError(f"frame of {size} bytes announced (at most {MAX_FRAME})")
        if not await self._fill(HEADER.size + size):
            raise WorkerWireError(
                f"stream ended inside a frame ({len(self._buffer) - HEADER.size} of {size} bytes)"
            )
        data = bytes(self._buffer[HEADER.size : HEADER.size + size])
        del self._buffer[: HEADER.size + size]
        try:
            message = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise WorkerWireError(f"frame is not JSON: {error}") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise WorkerWireError(f"frame is not a message object: {data[:200]!r}")
        return message


# ----------------------------------------------------------------------------- config


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    sandbox: SandboxConfig
    uid_index: int = 0
    uid_count: int = 1
    uid_block: int | None = None
    """The uid block the runner holds (root), whose lock the worker inherits."""


def encode_config(config: WorkerConfig) -> dict[str, Any]:
    return {
        "type": "config",
        "sandbox": {**config.sandbox.to_dict(), "protect": list(config.sandbox.protect)},
        "uid_share": [config.uid_index, config.uid_count],
        "uid_block": config.uid_block,
    }


def decode_config(message: Mapping[str, Any]) -> WorkerConfig:
    try:
        raw = dict(message["sandbox"])
        protect = raw.pop("protect", [])
        sandbox = replace(SandboxConfig.from_dict(raw), protect=tuple(str(p) for p in protect))
        index, count = (int(v) for v in message["uid_share"])
        block = message.get("uid_block")
        block = None if block is None else int(block)
    except (KeyError, TypeError, ValueError) as error:
        raise WorkerWireError(f"bad config message: {error!r}") from None
    return WorkerConfig(sandbox, index, count, block)


# ------------------------------------------------------------------------------- jobs


@dataclass(frozen=True, slots=True)
class Job:
    number: int
    spec: MatchSpec
    limits: Limits


def encode_job(job: Job) -> dict[str, Any]:
    spec = job.spec
    return {
        "type": "play",
        "job": job.number,
        "game": spec.game,
        "bots": [asdict(bot) for bot in spec.bots],
        "seed": spec.seed,
        "rules": dict(spec.rules),
        "match_id": spec.match_id,
        "bot_match_id": spec.bot_match_id,
        "deal_group": spec.deal_group,
        "last_of_deal": spec.last_of_deal,
        "single_use": spec.single_use,
        "chance_key": None if spec.chance_key is None else spec.chance_key.hex(),
        "limits": asdict(job.limits),
    }


def decode_job(message: Mapping[str, Any]) -> Job:
    try:
        bots = tuple(
            BotSpec(**{**bot, "command": tuple(bot["command"])}) for bot in message["bots"]
        )
        key = message["chance_key"]
        spec = MatchSpec(
            game=str(message["game"]),
            bots=bots,
            seed=message["seed"],
            rules={str(k): str(v) for k, v in message["rules"].items()},
            match_id=str(message["match_id"]),
            bot_match_id=str(message.get("bot_match_id", "")),
            deal_group=str(message["deal_group"]),
            last_of_deal=bool(message.get("last_of_deal", True)),
            single_use=bool(message.get("single_use", False)),
            chance_key=None if key is None else bytes.fromhex(key),
        )
        return Job(int(message["job"]), spec, Limits(**message["limits"]))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise WorkerWireError(f"bad play message: {error!r}") from None


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Counters:
    """The worker's warm pool so far: bot processes started and leases reused."""

    started: int = 0
    reused: int = 0


@dataclass(frozen=True, slots=True)
class JobResult:
    number: int
    record: MatchRecord
    logs: dict[int, bytes]
    counters: Counters
    mixed: dict[int, list[MixedAnswer]] = field(default_factory=dict)
    """Each seat's mixed moves (``run_match``'s ``mixed``): for its author only."""


def encode_result(result: JobResult) -> dict[str, Any]:
    """A ``result`` message. The seats' mixed moves travel in their JSON form
    (:func:`referee.records.mixed_answers.seats_to_json`: actions in the game's JSON
    mapping, the salt in hex, each probability a JSON number that reads back as the
    same double), like the logs over the private pipe only."""
    return {
        "type": "result",
        "job": result.number,
        "record": result.record.to_dict(),
        "logs": {str(seat): base64.b64encode(data).decode() for seat, data in result.logs.items()},
        "mixed": seats_to_json(result.record.game, result.mixed),
        "started": result.counters.started,
        "reused": result.counters.reused,
    }


def decode_result(message: Mapping[str, Any]) -> JobResult:
    """The result, its record checked intact (its hash chain holds)."""
    try:
        record = MatchRecord.from_dict(dict(message["record"]))
        logs = {int(seat): base64.b64decode(data) for seat, data in message["logs"].items()}
        mixed = seats_from_json(record.game, message.get("mixed", {}))
        result = JobResult(
            int(message["job"]),
            record,
            logs,
            Counters(int(message["started"]), int(message["reused"])),
            mixed,
        )
    except (KeyError, TypeError, ValueError, RecordError) as error:
        raise WorkerWireError(f"bad result message: {error!r}") from None
    problems = chain_problems(record)
    if problems:
        raise WorkerWireError(f"record of {record.match_id} arrived altered: {problems[0]}")
    return result
