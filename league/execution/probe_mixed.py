"""A bot's exact policy, read from the mixed moves it answers in the probe's matches.

A bot speaking protocol 4 may answer a turn with probabilities instead of an action
(``TurnResponse.mixed``). The referee checks them (:func:`referee.core.mixed.checked`)
and draws the action played from them, so they are what the bot plays at that
information set: binding, unlike a policy the bot states when asked
(``--ask-policy``). ``arena exploit`` reads them from the matches of
:mod:`league.execution.probe_matches` (real matches against the prober, sent to the bot
byte for byte as a match is): at each turn the bot answers mixed, the match hands the
checked probabilities to :meth:`referee.runtime.match.MatchSpec.draw_mixed`, the one
call a league's match draws through, and this module keeps them as the policy of
that information set. One answer per information set is enough: nothing is sampled.

Where the matches go (:class:`PolicyCoverage`): every information set of the bot that
chance, every prober move and every action the bot gave a positive probability lead
to, until each has been answered. The prober chooses the dice and its own moves as
before, and in an aimed match it also draws the bot's mixed moves on the way to the
information set it aims at: always an action the bot gave a positive weight (the
referee refuses any other), chosen towards the target; once the target is answered
it aims deeper below it, so a match answers a whole line of the bot's decisions.
Targets are found by walking down as the bot's own probabilities, chance and the
random bot would go (among branches with work left), so the first matches look like
honest ones; an information set below a move of probability ``p`` cannot be reached
in a match any other way than by playing that move, so the last ones are reached by
moves the keyed draw would rarely make. Filler matches aim at nothing: the referee's
keyed draw, chance secret, the prober as the random bot.

A bot that answers a turn with one action (:class:`NotMixedError`), or one
information set with two different distributions (:class:`ChangedAnswerError`:
its play is not a function of what it sees), has no exact value here; the
caller measures it as a black box instead. docs/exploitability.md ("Exact: a bot
that answers mixed") has the measurements and what a bot may still notice.
"""

from __future__ import annotations

import bisect
import functools
import multiprocessing
import multiprocessing.connection
import multiprocessing.resource_tracker
import pickle
import random
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Any, Final, cast

import trio

from league.execution.probe_matches import (
    PROBER,
    PROGRESS_EVERY,
    Coverage,
    MatchProbeError,
    MatchProbeSettings,
    PlannedChance,
    ProbeLauncher,
    Prober,
    ProbeSpec,
    TreeIndex,
    check_record,
)
from referee.analysis.best_response import GameTree
from referee.core.catalogue import get_codec
from referee.core.mixed import Distribution, draw
from referee.records.record import MatchRecord
from referee.runtime.match import run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.wire import Codec

STOP_S: Final = 10.0
"""How long a probe process has to stop its bots once told to stop."""
SAME_ANSWER: Final = 1e-12
"""Two answers at one information set are the same if no probability differs by more."""


class NotMixedError(Exception):
    """The bot answered a turn with one action: its policy there is not stated."""


class ChangedAnswerError(Exception):
    """The bot answered one information set with two different distributions."""


class PolicyCoverage(Coverage):
    """One seat's answered probabilities, and the nodes still to be asked.

    :attr:`policy` maps an information set to the probabilities of its legal actions
    (the engine's order) the bot answered there; its row in :attr:`answers` holds the
    actions with a positive one, whose subtrees are then asked."""

    def __init__(self, index: TreeIndex, seat: int, part: tuple[int, int] = (0, 1)) -> None:
        self.policy: dict[int, list[float]] = {}
        self.changed: list[int] = []
        """Information sets answered again with other probabilities."""
        self.part = part
        """``(k, n)``: of the seat's first decisions (the information sets reached
        without an answer of its own), only the ``k``-th of every ``n`` actions
        with a positive probability is followed (:func:`probe_in_processes`)."""
        super().__init__(index, seat, samples=1)
        self.first = frozenset(self.found)

    def answered_children(self, node: int) -> tuple[list[int], list[float] | None]:
        """Weighted by the bot's own probabilities (a target is walked to as the
        referee's draw would mostly go)."""
        tree = self.index.tree
        infoset = tree.infoset[node]
        probs = self.policy.get(infoset)
        if probs is None:  # one legal action, filled without asking
            return super().answered_children(node)
        support = self.answers[infoset]
        return [tree.children[node][a] for a in support], [probs[a] for a in support]

    def record_policy(self, infoset: int, probs: list[float]) -> None:
        """The probabilities the bot answered at ``infoset``: the first answer opens
        the subtrees of its actions with a positive probability; a later one is
        compared with it (:attr:`changed`)."""
        known = self.policy.get(infoset)
        if known is not None:
            if max(abs(a - b) for a, b in zip(known, probs, strict=True)) > SAME_ANSWER:
                self.changed.append(infoset)
            return
        self.policy[infoset] = probs
        if infoset in self.answers:  # one legal action: opened already
            return
        support = [a for a, p in enumerate(probs) if p > 0.0]
        if infoset in self.first:
            support = support[self.part[0] :: self.part[1]]
        self.answers[infoset] = support
        children = self.index.tree.children
        for node in list(self.found.get(infoset, ())):
            at = bisect.bisect_left(self.pending, node)
            if at < len(self.pending) and self.pending[at] == node:
                del self.pending[at]
            for action in support:
                self._expand(children[node][action])

    def rows(self) -> dict[int, list[float]]:
        """Every information set reached so far with its probabilities: answered, or
        with one legal action ([1.0])."""
        rows = {i: [1.0] for i, row in self.answers.items() if i not in self.policy and row}
        rows.update(self.policy)
        return rows


class MixedProber(Prober):
    """The prober of :mod:`league.execution.probe_matches` that also draws the probed
    bot's mixed moves, and reads them into the coverage."""

    coverage: PolicyCoverage

    def __init__(self, index: TreeIndex, coverage: PolicyCoverage, *args: Any) -> None:
        super().__init__(index, coverage, *args)
        self.coverage = coverage
        self.read = 0
        """Mixed answers read in this match."""

    def draw(self, view: Any, distribution: Distribution, key: bytes, turn: int) -> Any:
        """The bot's move at its observation ``view``: towards the target while the
        match is aimed (an action of positive weight), else the referee's keyed draw."""
        tree = self.index.tree
        infoset = self.index.by_observation.get(view)
        if infoset is None:  # not a node of the tree (cannot happen for its game)
            return draw(distribution, key, turn)
        actions = tree.infosets[infoset].actions
        probs = [0.0] * len(actions)
        for action, p in zip(distribution.actions, distribution.probabilities, strict=True):
            probs[actions.index(action)] = p
        self.coverage.record_policy(infoset, probs)
        self.read += 1
        node = None if self.filler else self.locate(infoset)
        choice = None if node is None else self._towards_target(node)
        if choice is None or probs[choice] <= 0.0:
            drawn = draw(distribution, key, turn)
            choice = actions.index(drawn)
        if node is not None:
            self.known = tree.children[node][choice]
        return actions[choice]

    def _towards_target(self, node: int) -> int | None:
        """The action towards the target below ``node``; a new target below it once
        the old one is answered; ``None`` when nothing below is left to ask."""
        target = self.target
        if target is None or not node < target < self.index.end[node]:
            self.aim(self.coverage.aim(self.rng, node), node)
            target = self.target
            if target is None or target == node:
                return None
        return self.index.child_towards(node, target)


@dataclass(frozen=True, slots=True)
class PlayedPolicies:
    """What the probe read: by seat, the probabilities of every information set it
    reached (answered, or with one legal action); whether every information set the
    answers can reach was answered; and what it took."""

    rows: tuple[dict[int, list[float]], dict[int, list[float]]]
    complete: bool
    matches: int
    read: int
    """Mixed answers read (turns the bot answered, re-asked ones included)."""
    pending: int
    """Information sets the answers reach that no match has answered yet."""

    @property
    def answered(self) -> int:
        """Information sets with probabilities: answered, or with one legal action."""
        return sum(len(rows) for rows in self.rows)

    @property
    def asked(self) -> int:
        """Information sets with more than one legal action (the others need no answer)."""
        return sum(len(row) > 1 for rows in self.rows for row in rows.values())


# probe_by_matches' shape: one match (aim, play, read, check) and the workers around it
# long: one match of the probe and its workers share the coverage and the counts
async def probe_policies(
    spec: BotSpec,
    tree: GameTree,
    codec: Codec[Any, Any],
    settings: MatchProbeSettings,
    on_progress: Callable[[int, int], None] | None = None,
    *,
    deadline: float | None = None,
    index: TreeIndex | None = None,
    records: list[MatchRecord] | None = None,
    part: tuple[int, int] = (0, 1),
    most: int | None = None,
) -> PlayedPolicies:
    """Both seats' answered probabilities, read from matches against the prober
    until every information set they reach is answered (or ``deadline``,
    ``trio.current_time()``, passes: no new match then). The bot's seat is drawn
    per match. :class:`NotMixedError` or :class:`ChangedAnswerError` as soon as a
    match shows one; ``on_progress`` as in
    :func:`~league.execution.probe_matches.probe_by_matches`. ``part``: only that
    part of the tree (:class:`PolicyCoverage`; :func:`probe_in_processes`);
    ``most``: no new match once that many are done."""
    index = index or TreeIndex(tree)
    coverages = [PolicyCoverage(index, seat, part) for seat in (0, 1)]
    rng = random.Random(secrets.randbits(64))
    rules = tree.game.format_rules(tree.rules)
    progress = trio.Event()
    matches = read = 0

    async def one_match(pool: WarmPool) -> None:
        nonlocal progress, matches, read
        seat = rng.randrange(2)
        coverage = coverages[seat]
        chance = PlannedChance()
        prober = MixedProber(index, coverage, codec, rng, chance)
        prober.filler = coverage.done or rng.random() < settings.filler_share
        if not prober.filler:
            target = coverage.aim(rng)
            if target is None:  # all pending ones aimed at already: wait for a match
                await progress.wait()
                return

            prober.aim(target, 0)

        def drawer(at: int, view: Any, distribution: Distribution, key: bytes, turn: int) -> Any:
            if at != seat:  # not the probed bot (the prober's seat never answers mixed)
                return draw(distribution, key, turn)
            return prober.draw(view, distribution, key, turn)

        bots = (spec, PROBER) if seat == 0 else (PROBER, spec)
        match = ProbeSpec(settings.game, bots, rules=rules, planned=chance, drawer=drawer)
        launcher = ProbeLauncher(pool, prober, settings.shadow, settings.prober_delay_s)
        try:
            record = await run_match(match, settings.limits, launcher=launcher)
        finally:
            prober.release()
        check_record(record, seat)
        if records is not None:
            records.append(record)
        single = [e.turn for e in record.events if e.seat == seat and e.mixed is None]
        if single:
            raise NotMixedError(f"the bot answered turn {single[0]} with one action")
        if coverage.changed:
            raise ChangedAnswerError(
                f"the bot answered one information set twice with different probabilities"
                f" ({tree.infosets[coverage.changed[0]].observation!r})"
            )
        matches += 1
        read += prober.read
        if on_progress is not None and matches % PROGRESS_EVERY == 0:
            on_progress(matches, sum(len(row) > 1 for c in coverages for row in c.policy.values()))
        progress.set()
        progress = trio.Event()

    def going() -> bool:
        if deadline is not None and trio.current_time() >= deadline:
            return False
        if most is not None and matches >= most:
            return False
        return not all(c.done for c in coverages)

    async def worker(pool: WarmPool) -> None:
        while going():
            await one_match(pool)

    pool = WarmPool(sandbox=settings.sandbox)
    try:
        async with trio.open_nursery() as nursery:
            for _ in range(settings.workers):
                nursery.start_soon(worker, pool)
    finally:
        with trio.CancelScope(shield=True):
            await pool.aclose()
    pending = sum(len({index.tree.infoset[n] for n in c.pending}) for c in coverages)
    return PlayedPolicies(
        (coverages[0].rows(), coverages[1].rows()), pending == 0, matches, read, pending
    )


def probe_in_processes(
    spec: BotSpec,
    tree: GameTree,
    settings: MatchProbeSettings,
    parts: int,
    budget_s: float,
    on_progress: Callable[[int, int], None] | None = None,
) -> PlayedPolicies:
    """:func:`probe_policies` in ``parts`` processes at once, each with its own warm
    pool of ``settings.workers`` bot processes and its part of the tree: the
    referee's side of a match is Python, one core per process. The processes are
    fresh interpreters (a fork would copy the gRPC state of a caller that used it
    before), sent the tree pickled, and each answers the information sets
    below its share of the bot's first decisions (:class:`PolicyCoverage`); the
    first decisions themselves are answered in every part and must agree. A part's
    failure stops the others and is raised here (:class:`NotMixedError`,
    :class:`ChangedAnswerError`, :class:`MatchProbeError`)."""
    deadline = time.monotonic() + budget_s  # one clock for every process
    index = TreeIndex(tree)
    _scout(spec, index, settings)
    context = multiprocessing.get_context("spawn")  # fresh: no threads or gRPC state copied
    tracker_was_running = _tracker_running()
    payload = pickle.dumps((spec, index, settings), pickle.HIGHEST_PROTOCOL)
    readers: dict[Any, int] = {}
    processes = []
    for k in range(parts):
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_part, args=(writer, payload, (k, parts), deadline))
        process.start()
        writer.close()
        readers[reader] = k
        processes.append(process)
    progress = [(0, 0)] * parts
    finished: set[int] = set()
    results: list[PlayedPolicies] = []
    try:
        while readers:
            for ready in multiprocessing.connection.wait(list(readers)):
                reader = cast(Connection, ready)
                k = readers[reader]
                try:
                    message = reader.recv()
                except EOFError:
                    raise MatchProbeError(f"probe process {k} ended without a result") from None
                if message[0] == "progress":
                    progress[k] = message[1]
                    if on_progress is not None:
                        on_progress(*(sum(p[i] for p in progress) for i in (0, 1)))
                    continue
                del readers[reader]
                reader.close()
                finished.add(k)
                if message[0] == "error":
                    raise _FAILURES.get(message[1], MatchProbeError)(message[2])
                results.append(message[1])
    finally:
        for reader in readers:
            reader.close()
        for k, process in enumerate(processes):
            if k not in finished and process.is_alive():
                process.terminate()  # SIGTERM: it stops its bots and ends
            process.join(STOP_S)
            if process.is_alive():
                process.kill()  # its bots die with it (the sandbox's death signal)
                process.join()
        if not tracker_was_running:
            _stop_tracker()
    return _merged(tree, results)


def _tracker_running() -> bool:
    """Whether multiprocessing's resource tracker runs in this process already."""
    tracker = multiprocessing.resource_tracker._resource_tracker
    return getattr(tracker, "_pid", None) is not None


def _stop_tracker() -> None:
    """Stop the resource tracker the spawn context started for the probe's processes
    (every spawned process is given one; the probe shares no semaphore or memory
    with them, so it tracks nothing): nothing the probe started outlives it, as
    nothing a match starts does (a caller's check for leftover children, and the
    sandbox tests', would otherwise find it). ``_stop`` is the tracker's own way to
    end (Python 3.11+); without it the tracker stays, as it would anyway."""
    stop = getattr(multiprocessing.resource_tracker._resource_tracker, "_stop", None)
    if stop is not None:
        stop()


def _scout(spec: BotSpec, index: TreeIndex, settings: MatchProbeSettings) -> None:
    """One match here first: a bot that answers one action (or faults) is told
    apart in a second, before the processes are started and sent the tree."""
    scout = replace(settings, workers=1, filler_share=0.0)
    codec = get_codec(settings.game)
    try:
        trio.run(
            functools.partial(probe_policies, spec, index.tree, codec, scout, index=index, most=1)
        )
    except BaseExceptionGroup as group:  # one task failed: its error alone
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup) and len(first.exceptions) == 1:
            first = first.exceptions[0]
        if first is group:
            raise
        raise first from None


_FAILURES: dict[str, type[Exception]] = {
    "NotMixedError": NotMixedError,
    "ChangedAnswerError": ChangedAnswerError,
    "MatchProbeError": MatchProbeError,
}


def _part(writer: Any, payload: bytes, part: tuple[int, int], deadline: float) -> None:
    """One process of :func:`probe_in_processes` (``payload``: the pickled bot, tree
    index and settings; ``deadline``: ``time.monotonic()``'s): its part, then ("done",
    result), or ("error", kind, words); ("progress", (matches, answered)) on the way.
    Told to stop (SIGTERM; or SIGINT, a Ctrl-C), it stops its bots and ends without a
    word."""

    def progress(matches: int, answered: int) -> None:
        writer.send(("progress", (matches, answered)))

    async def run() -> PlayedPolicies | None:
        spec, index, settings = pickle.loads(payload)
        ends = trio.current_time() + deadline - time.monotonic()
        codec = get_codec(settings.game)
        played: PlayedPolicies | None = None
        with trio.open_signal_receiver(signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:

                async def stop() -> None:
                    async for _ in signals:
                        nursery.cancel_scope.cancel()  # the pool stops its bots

                nursery.start_soon(stop)
                played = await probe_policies(
                    spec, index.tree, codec, settings, progress, deadline=ends, index=index,
                    part=part,
                )  # fmt: skip
                nursery.cancel_scope.cancel()
        return played

    message: tuple[Any, ...] | None = None
    try:
        played = trio.run(run)
        message = None if played is None else ("done", played)
    except KeyboardInterrupt:
        pass
    except BaseException as error:  # every other failure goes to the parent, in words
        while isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        if not isinstance(error, KeyboardInterrupt):
            words = str(error) if type(error).__name__ in _FAILURES else repr(error)
            message = ("error", type(error).__name__, words)
    try:
        if message is not None:
            writer.send(message)
        writer.close()
    except OSError:
        pass  # the parent stopped listening (it is stopping this part)


def _merged(tree: GameTree, results: list[PlayedPolicies]) -> PlayedPolicies:
    """The parts' answers together; an information set two parts answered (a first
    decision) must have been answered alike."""
    rows: tuple[dict[int, list[float]], dict[int, list[float]]] = ({}, {})
    for result in results:
        for seat in (0, 1):
            for infoset, row in result.rows[seat].items():
                known = rows[seat].setdefault(infoset, row)
                if max(abs(a - b) for a, b in zip(known, row, strict=True)) > SAME_ANSWER:
                    raise ChangedAnswerError(
                        "the bot answered one information set twice with different"
                        f" probabilities ({tree.infosets[infoset].observation!r})"
                    )
    return PlayedPolicies(
        rows,
        all(r.complete for r in results),
        sum(r.matches for r in results),
        sum(r.read for r in results),
        sum(r.pending for r in results),
    )
