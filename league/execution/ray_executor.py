"""``arena league run --executor ray``: each pending match is a Ray task.

The runner (:mod:`league.execution.league_run`) keeps everything that makes a run safe: the
queue, the progress, Ctrl-C, and every database write, one transaction per
finished match. Only the refereeing moves: a slot here submits the match to the
cluster as a task (:func:`league.execution.ray_task.play_job`) and waits for its sealed
record, which is checked (hash chain) before it is written.

Failures:

- a worker process or node that dies while playing a match: Ray runs the task
  again on another worker (``max_retries``); the first attempt never returned a
  record, so nothing is written twice. Once the retries are used up the match is
  lost for this run (not written, still pending, listed), as with ``--workers``;
- a worker whose copy of a bot is not the registered version refuses the match
  (:class:`league.execution.ray_task.BotFilesMismatch`): not retried, listed, still pending;
- a second Ctrl-C cancels the running tasks (their worker processes, and with
  them their bots, are killed) and writes nothing of them.

Ray is an optional extra (``pip install '.[ray]'``) imported only here, only when
this executor is chosen.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio

from league.execution.executor import LostWorker, Played
from league.execution.ray_task import play_job
from league.execution.worker_wire import (
    Job,
    WorkerConfig,
    WorkerWireError,
    decode_result,
    encode_config,
    encode_job,
)
from league.execution.workers import MatchRefusedError, WorkerLost
from league.store.registry import LeagueError, command_file_args, content_version
from referee.runtime.match import Limits, MatchSpec
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import SandboxConfig

CONTENT_VERSION = re.compile(r"[0-9a-f]{12}")
"""How :func:`league.store.registry.content_version` versions look (else: a user's label)."""


class RayUnavailableError(LeagueError):
    """Ray is not installed, or the cluster cannot be reached (the text says which)."""


class BotChangedError(LeagueError):
    """A bot's files here no longer hash to the version it was registered as."""


@dataclass(frozen=True, slots=True)
class RayOptions:
    address: str | None = None
    """A running cluster (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``); None starts
    a local instance for this run."""
    num_cpus: int | None = None
    """CPUs of the local instance (None: Ray's default, every core)."""
    cpus_per_match: float = 1.0
    """Ray CPUs a match task reserves: lower it for bots that mostly wait."""
    max_retries: int = 3
    """Times a match whose worker died is run again before it counts as lost."""
    runtime_env: Mapping[str, Any] | None = None
    """Passed to ``ray.init`` (e.g. ``pip`` or ``env_vars`` for the workers)."""
    ship_bots: bool = False
    """Send each bot's script files (the files its version hash covers) with the
    tasks, for workers that do not share the driver's files."""


def file_hashes(bots: Sequence[BotSpec]) -> dict[str, str]:
    """The content hash of each bot started by command, as this machine has it;
    workers check their copy against it.

    A bot registered by content (its version is that hash) whose files changed
    since is refused here, before anything runs: its results would be filed under
    a version that no longer exists."""
    hashes: dict[str, str] = {}
    for bot in bots:
        if not bot.command or bot.name in hashes:
            continue
        try:
            have = content_version(bot.command)
        except OSError as error:
            raise BotChangedError(f"bot {bot.name!r}: cannot read its files: {error}") from None
        if CONTENT_VERSION.fullmatch(bot.version) and have != bot.version:
            raise BotChangedError(
                f"bot {bot.name!r} was registered as version {bot.version}, but its files"
                f" now hash to {have}: register the new version (arena bot add)"
            )
        hashes[bot.name] = have
    return hashes


def shipped_scripts(bots: Sequence[BotSpec]) -> dict[str, dict[str, str]]:
    """Bot name → command-line position → base64 of the script named there (modules
    after ``-m`` are not shipped: they come with the installed packages)."""
    shipped: dict[str, dict[str, str]] = {}
    for bot in bots:
        if not bot.command:
            continue
        scripts = {
            str(index): base64.b64encode(path.read_bytes()).decode()
            for index, path in command_file_args(bot.command)
            if bot.command[index - 1] != "-m"
        }
        if scripts:
            shipped[bot.name] = scripts
    return shipped


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(
            "--executor ray needs Ray: pip install 'bluff-arena[ray]' (or pip install ray)"
        ) from None
    return ray


class RaySlot:
    """One match at a time, played as a Ray task (an executor's ``MatchSlot``)."""

    def __init__(self, players: RayExecutor) -> None:
        self.players = players

    async def play(self, spec: MatchSpec, limits: Limits) -> Played:
        return await self.players.play(spec, limits)


class RayExecutor:
    """``concurrency`` slots whose matches run as Ray tasks; use :meth:`running`."""

    def __init__(
        self,
        concurrency: int,
        sandbox: SandboxConfig,
        options: RayOptions,
        bots: Sequence[BotSpec],
    ) -> None:
        self.sandbox = sandbox
        self.options = options
        self.slots = [RaySlot(self) for _ in range(concurrency)]
        self.lost: list[LostWorker] = []
        self.files = file_hashes(bots)
        self._scripts = shipped_scripts(bots) if options.ship_bots else {}
        self._shipped: Any = None
        """``_scripts`` in Ray's object store (sent once, not with every task)."""
        self._config = encode_config(WorkerConfig(sandbox))
        self._counters: dict[int, tuple[int, int]] = {}
        self._task: Any = None
        self._ray: Any = None

    @property
    def started(self) -> int:
        return sum(started for started, _ in self._counters.values())

    @property
    def reused(self) -> int:
        return sum(reused for _, reused in self._counters.values())

    @property
    def processes(self) -> int:
        """Ray worker processes that returned a match."""
        return len(self._counters)

    @property
    def worker_pids(self) -> list[int]:
        """Ray worker processes that returned a match."""
        return sorted(self._counters)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[RayExecutor]:
        ray = _ray()
        started_here = not ray.is_initialized()
        if started_here:
            await trio.to_thread.run_sync(self._init, ray)
        try:
            self._ray = ray
            if self._scripts:
                self._shipped = ray.put(self._scripts)
            self._task = ray.remote(play_job).options(
                num_cpus=self.options.cpus_per_match,
                max_retries=self.options.max_retries,
                retry_exceptions=False,
            )
            yield self
        finally:
            if started_here:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(ray.shutdown)

    def _init(self, ray: Any) -> None:
        kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if self.options.address:
            kwargs["address"] = self.options.address
        elif self.options.num_cpus is not None:
            kwargs["num_cpus"] = self.options.num_cpus
        if self.options.runtime_env:
            kwargs["runtime_env"] = dict(self.options.runtime_env)
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as error:
            where = self.options.address or "a local instance"
            raise RayUnavailableError(f"cannot start or reach Ray ({where}): {error}") from None

    async def play(self, spec: MatchSpec, limits: Limits) -> Played:
        ray = self._ray
        new = [bot for bot in spec.bots if bot.command and bot.name not in self.files]
        if new:  # a schedule that grows while it runs (a rolling ladder) brings new bots
            self.files = {**self.files, **file_hashes(new)}
            if self.options.ship_bots:
                self._scripts = {**self._scripts, **shipped_scripts(new)}
                self._shipped = ray.put(self._scripts)
        job = encode_job(Job(1, spec, limits))
        ref = self._task.remote(self._config, job, self.files, self._shipped)
        try:
            answer = await trio.to_thread.run_sync(ray.get, ref, abandon_on_cancel=True)
        except trio.Cancelled:
            # A second Ctrl-C: kill the task's worker (and its bots); write nothing.
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
            raise
        except ray.exceptions.RayTaskError as error:
            cause = error.cause if error.cause is not None else error
            text = f"{type(cause).__name__}: {cause}"
            if type(cause).__name__ == "BotFilesMismatch":
                self.lost.append(LostWorker(-1, -1, text))
                raise WorkerLost(text) from None
            raise MatchRefusedError(f"match {spec.match_id}: {text}") from None
        except ray.exceptions.RayError as error:  # retries used up, node gone, ...
            text = f"Ray task of {spec.match_id} failed: {type(error).__name__}: {error}"
            self.lost.append(LostWorker(-1, -1, text.splitlines()[0]))
            raise WorkerLost(text) from None
        try:
            result = decode_result(answer["result"])
        except (WorkerWireError, KeyError, TypeError) as error:
            text = f"Ray task of {spec.match_id} returned a bad result: {error}"
            self.lost.append(LostWorker(-1, -1, text))
            raise WorkerLost(text) from None
        if result.record.match_id != spec.match_id:
            raise WorkerLost(
                f"Ray task of {spec.match_id} returned the record of {result.record.match_id!r}"
            )
        self._counters[int(answer["pid"])] = (result.counters.started, result.counters.reused)
        return Played(result.record, result.logs, result.mixed)


def parse_runtime_env(text: str) -> dict[str, Any]:
    """``--ray-runtime-env``: a JSON object, or ``@FILE`` holding one."""
    source = text
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as handle:
                source = handle.read()
        except OSError as error:
            raise LeagueError(f"cannot read --ray-runtime-env file {text[1:]!r}: {error}") from None
    try:
        value = json.loads(source)
    except json.JSONDecodeError as error:
        raise LeagueError(f"bad --ray-runtime-env {text!r}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise LeagueError(f"bad --ray-runtime-env {text!r}: give a JSON object")
    return value
