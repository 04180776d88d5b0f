"""What a Ray worker runs for ``arena league run --executor ray``: one match, refereed
exactly as the local runner referees it, with the same sandbox and limits.

This module does not import Ray: the executor (:mod:`league.execution.ray_executor`) wraps
:func:`play_job` as a Ray task, and the tests call it directly. Its arguments and
result are the same JSON-able messages :mod:`league.execution.worker_wire` defines for the
``--workers`` processes, so a match crosses the cluster in the form the local
workers already check (a record whose hash chain does not hold is refused).

Each Ray worker process keeps one referee loop (:class:`RefereeHost`: trio in a
thread of its own, with a warm pool) across the tasks it runs, so a bot started
for one match is reused by the next one on that worker, as it is locally. Its bots
die with the process: the sandbox stops them when their referee goes away.

What the task carries: the match spec (bots, rules, match id) and the deal key of
its duplicate group — never the league secret, which stays with the driver.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from league.execution.worker_wire import (
    Counters,
    Job,
    JobResult,
    decode_config,
    decode_job,
    encode_result,
)
from league.store.registry import LeagueError, command_file_args, version_of
from referee.core.mixed import MixedAnswer
from referee.runtime.match import MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.sandbox import SandboxConfig, claim_uid_block, require_tools


class BotFilesMismatch(LeagueError):
    """A worker's copy of a bot's files is not the version the league registered."""


SHIPPED_DIR = Path(tempfile.gettempdir()) / "bluff-arena-shipped"
"""Where a worker keeps bot files shipped with the tasks, by content hash."""


def verify_bot_files(
    spec: MatchSpec,
    expected: Mapping[str, str],
    shipped: Mapping[str, Mapping[int, bytes]] | None = None,
    store: Path = SHIPPED_DIR,
) -> MatchSpec:
    """The match as this worker plays it, or :class:`BotFilesMismatch`.

    Each bot started by command must hash to ``expected[name]`` (the driver's
    hash, which for a bot registered by content is its registered version): a
    stale or altered copy would play under another version's name and rating.
    ``shipped[name]`` maps command-line positions to the bytes of the script
    named there (``--ray-ship-bots``): they are checked as part of that hash and,
    where this machine has no identical file at that path, written under
    ``store`` by content hash and the command pointed at the copy."""
    shipped = shipped or {}
    bots = []
    for bot in spec.bots:
        if not bot.command:
            bots.append(bot)  # reached by address: there are no files here to check
            continue
        want = expected.get(bot.name)
        if want is None:
            raise BotFilesMismatch(f"no file hash was sent for bot {bot.name!r}")
        sent = shipped.get(bot.name, {})
        try:
            local = dict(command_file_args(bot.command))
            contents = [
                sent[index] if index in sent else local[index].read_bytes()
                for index in sorted(set(local) | set(sent))
            ]
        except OSError as error:
            raise BotFilesMismatch(
                f"bot {bot.name!r}: cannot read its files here: {error}"
            ) from None
        have = version_of(bot.command, contents)
        if have != want:
            raise BotFilesMismatch(
                f"bot {bot.name!r} version {bot.version}: its files on worker"
                f" {os.uname().nodename} (pid {os.getpid()}) hash to {have}, the league's"
                f" copy to {want}; refusing to play a different build under its name"
            )
        command = list(bot.command)
        for index, data in sent.items():
            here = local.get(index)
            if here is None or here.read_bytes() != data:
                command[index] = str(_keep(store, data, Path(command[index]).name))
        bots.append(replace(bot, command=tuple(command)))
    return replace(spec, bots=tuple(bots))


def _keep(store: Path, data: bytes, name: str) -> Path:
    """``data`` as ``store/<sha256>/<name>`` (written once, atomically, read-only)."""
    folder = store / hashlib.sha256(data).hexdigest()
    target = folder / name
    if target.is_file() and target.read_bytes() == data:
        return target
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, delete=False) as handle:
        handle.write(data)
    os.chmod(handle.name, 0o444)  # sandboxed bots run as other uids and must read it
    os.replace(handle.name, target)
    return target


class RefereeHost:
    """A trio loop in a daemon thread with a warm pool, shared by the tasks this
    process runs (a Ray worker runs one task at a time, in its main thread)."""

    def __init__(self, sandbox: SandboxConfig) -> None:
        self.sandbox = sandbox
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._pool: WarmPool | None = None
        self._closing: trio.Event | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self._thread.start()
        self._ready.wait()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._pool = WarmPool(sandbox=self.sandbox)
        self._closing = closing = trio.Event()
        self._ready.set()
        try:
            await closing.wait()
        finally:
            with trio.CancelScope(shield=True):
                await self._pool.aclose()

    def close(self) -> None:
        """Stop the warm bots and the loop (a worker's bots otherwise live as long
        as the worker process)."""
        if self._token is not None and self._thread.is_alive():
            closing = self._closing
            assert closing is not None
            trio.from_thread.run_sync(closing.set, trio_token=self._token)
            self._thread.join()

    def play(self, job: Job) -> JobResult:
        assert self._token is not None
        return trio.from_thread.run(self._play, job, trio_token=self._token)

    async def _play(self, job: Job) -> JobResult:
        assert self._pool is not None
        logs: dict[int, bytes] = {}
        mixed: dict[int, list[MixedAnswer]] = {}
        record = await run_match(job.spec, job.limits, launcher=self._pool, logs=logs, mixed=mixed)
        counters = Counters(self._pool.started, self._pool.reused)
        return JobResult(job.number, record, logs, counters, mixed)


_hosts: dict[str, RefereeHost] = {}
_hosts_lock = threading.Lock()


def host_for(sandbox: SandboxConfig) -> RefereeHost:
    """This process's referee for ``sandbox`` (started on first use)."""
    key = json.dumps(
        {**sandbox.to_dict(), "protect": list(sandbox.protect)}, sort_keys=True, default=str
    )
    with _hosts_lock:
        host = _hosts.get(key)
        if host is None:
            if sandbox.enabled:
                require_tools()
                claim_uid_block()
            host = _hosts[key] = RefereeHost(sandbox)
        return host


@atexit.register
def close_hosts() -> None:
    """Stop every referee loop of this process and its warm bots."""
    with _hosts_lock:
        hosts = list(_hosts.values())
        _hosts.clear()
    for host in hosts:
        host.close()


def play_job(
    config: Mapping[str, Any],
    job: Mapping[str, Any],
    files: Mapping[str, str],
    shipped: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """Play one match: ``config`` and ``job`` as :mod:`league.execution.worker_wire` encodes
    them, ``files`` the expected content hash of each bot started by command,
    ``shipped`` bot scripts sent along (bot name → argument position → base64).
    Returns the encoded result plus this process's id."""
    decoded = decode_job(job)
    scripts = {
        name: {int(index): base64.b64decode(data) for index, data in by_index.items()}
        for name, by_index in (shipped or {}).items()
    }
    spec = verify_bot_files(decoded.spec, files, scripts)
    result = host_for(decode_config(config).sandbox).play(replace(decoded, spec=spec))
    return {"pid": os.getpid(), "result": encode_result(result)}
