"""Ask a bot what it plays by playing real matches against a scripted prober.

``arena exploit`` needs the bot's answers at every information set its own play can
reach. Instead of asking each one on a stream of its own (the old probe,
:func:`league.execution.policy_probe.probe_answers`, which a bot could tell from a
match: 8 streams at once, a first turn deep in a round, no ``MatchEnd``), the bot
plays whole matches through :func:`referee.runtime.match.run_match`, the referee code a
league plays, leased from a :class:`~referee.runtime.pool.WarmPool` as a league leases it
(one match at a time per process; ``workers`` matches at once, as a league's
concurrency). Its opponent is the *prober*, a seat played inside the referee: it
steers the match, with the chance outcomes it draws and the actions it plays,
towards the information sets still to be asked, and it is played through a
shadow process of the game's random example bot leased from the same pool
(:class:`_ShadowStream`: the shadow gets the seat's messages and its answers are
awaited, its actions replaced), so the opponent takes the time a bot process
takes; a game without example bots gets :class:`_ProberStream` (the prober
answers after a short delay). What the probed bot is sent is a
match's, byte for byte: ``MatchStart`` with an opaque match id and every rule
option, every ``TurnRequest`` of the match from turn 1 with the match's time limit
and nonce, ``MatchEnd``.

Which information sets are asked: for each seat of the bot, every one reachable
through the chance outcomes, every action of the prober, and the actions the bot
itself answered (the first ``samples`` answers at each information set,
:class:`Coverage`), until each holds ``samples`` answers. An information set the
bot's own answers never lead to has no reach under the estimate, so it cannot
change the best response's value (as with the old probe's waves). Answers are read
from the match records; an information set is asked again whenever a match passes
it, and answers beyond the first ``samples`` are dropped, so every row holds
exactly ``samples`` answers as before (``league/execution/exploit.py``'s bracket
is unchanged).

What the bot may still notice is listed in docs/exploitability.md ("What still
differs"), each item with its test.
"""

# long module: the prober of `arena exploit`: one seat played inside the referee that steers
# matches towards the questions left, with its bookkeeping of what was asked

from __future__ import annotations

import bisect
import itertools
import random
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final, cast

import trio
from google.protobuf import json_format

from arena.v1 import bot_pb2
from league.execution.botcheck import check_opponents
from referee.analysis.best_response import TERMINAL, GameTree
from referee.core.chance import ChanceStream, new_secret
from referee.core.mixed import Distribution
from referee.core.protocol import PROTOCOL_VERSION
from referee.gamekit.base import CHANCE, DiceRoll
from referee.records.record import MatchRecord
from referee.runtime.channel import BotConnection, SeatStream
from referee.runtime.launcher import Launcher, Lease
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from referee.wire import Codec
from referee.wire.deltas import DeltaDecoder

DEFAULT_WORKERS: Final = 2
"""Matches at once (one bot process each), as a league's default concurrency."""
PROBER: Final = BotSpec(name="opponent", command=("opponent",))
"""The prober's seat in the match spec; :class:`ProbeLauncher` plays it in-process."""
PROBER_DELAY_S: Final = (0.0004, 0.002)
"""The prober answers after a delay drawn uniformly from this range, about what an
SDK bot process takes to answer over its socket (docs/exploitability.md)."""


PROGRESS_EVERY: Final = 500
"""Matches between two progress reports."""
FILLER_SHARE: Final = 0.25
"""Matches in which the prober aims at nothing: it plays as the random bot and
chance is secret, so the lengths of the probe's matches stay nearer those of
matches against that bot (the aimed ones reach deep information sets)."""


MixedDrawer = Callable[[int, Any, Distribution, bytes, int], Any]
"""Chooses the action of a mixed move: (seat, its observation, the checked
distribution, the match's mixed key, the turn) -> an action of the distribution."""


class MatchProbeError(Exception):
    """The probed bot faulted in a probe match (timeout, crash, illegal action)."""


@dataclass(frozen=True, slots=True)
class MatchProbeSettings:
    game: str
    samples: int = 1
    limits: Limits = field(default_factory=Limits)
    sandbox: SandboxConfig = DEFAULT_SANDBOX
    workers: int = DEFAULT_WORKERS
    prober_delay_s: tuple[float, float] = PROBER_DELAY_S
    filler_share: float = FILLER_SHARE
    shadow: BotSpec | None = None
    """A real bot process the prober's seat is played through (:class:`_ShadowStream`):
    it is sent the prober's seat's messages and its answers are awaited, so the
    opponent takes as long as a bot process; its actions are replaced by the
    prober's. ``None``: the prober answers itself after ``prober_delay_s``."""


def shadow_bot(game: str) -> BotSpec | None:
    """The game's random example bot (its catalogue roster), to shadow the prober."""
    modules = check_opponents(game)
    if modules is None:
        return None
    return BotSpec(name="opponent", command=(sys.executable, "-m", f"example_bots.{modules[0]}"))


class TreeIndex:
    """What the prober needs of a :class:`GameTree`: parents, subtree ranges (the
    tree is in preorder, so a subtree is a range of node indices), members of each
    information set, and the outcomes of each chance node."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        count = len(tree.kind)
        self.parent = [-1] * count
        self.end = list(range(1, count + 1))
        for node in range(count - 1, -1, -1):
            children = tree.children[node]
            for child in children:
                self.parent[child] = node
            if children:
                self.end[node] = self.end[children[-1]]
        self.by_observation = {info.observation: i for i, info in enumerate(tree.infosets)}
        self._members: dict[int, list[int]] = {}
        for seat in (0, 1):
            for index, nodes in tree.members(seat).items():
                self._members[index] = sorted(nodes)
        self._outcomes: dict[int, list[tuple[int, ...]]] = {}

    def members_within(self, infoset: int, node: int) -> list[int]:
        """``infoset``'s nodes in the subtree of ``node``."""
        members = self._members.get(infoset, [])
        low = bisect.bisect_left(members, node)
        high = bisect.bisect_left(members, self.end[node])
        return members[low:high]

    def path(self, node: int, above: int = 0) -> list[int]:
        """The nodes from ``above`` (an ancestor) down to ``node``, both included."""
        out = [node]
        while node != above:
            node = self.parent[node]
            out.append(node)
        out.reverse()
        return out

    def child_towards(self, node: int, target: int) -> int:
        """The index of ``node``'s child whose subtree holds ``target``."""
        for i, child in enumerate(self.tree.children[node]):
            if child <= target < self.end[child]:
                return i
        raise ValueError(f"node {target} is not below node {node}")

    def outcomes(self, chance_node: int) -> list[tuple[int, ...]]:
        """A chance node's outcomes in the order of its children (the engine replayed
        from the root, once per node)."""
        known = self._outcomes.get(chance_node)
        if known is None:
            game, tree = self.tree.game, self.tree
            state = game.new_game(tree.rules, 2)
            path = self.path(chance_node)
            for node, child in itertools.pairwise(path):
                index = tree.children[node].index(child)
                if tree.kind[node] == CHANCE:
                    state = game.apply_chance(state, self._product(state)[index])
                else:
                    action = tree.infosets[tree.infoset[node]].actions[index]
                    state = game.transition(state, tree.kind[node], action)
            known = self._outcomes[chance_node] = self._product(state)
        return known

    def _product(self, state: Any) -> list[tuple[int, ...]]:
        request = self.tree.game.chance_request(state)
        assert isinstance(request, DiceRoll)  # GameTree enumerates dice only
        return list(itertools.product(range(1, request.sides + 1), repeat=request.count))


class Coverage:
    """One seat's answers so far, and the nodes still to be asked.

    ``answers[i]`` holds the first ``samples`` answers the bot gave at information
    set ``i`` (indices into its legal actions). A node of this seat is *reachable*
    when chance, the other seat and this seat's recorded answers lead to it; it is
    *pending* while its information set has fewer than ``samples`` answers.
    Information sets with one legal action are filled without asking."""

    def __init__(self, index: TreeIndex, seat: int, samples: int) -> None:
        self.index = index
        self.seat = seat
        self.samples = samples
        self.answers: dict[int, list[int]] = {}
        self.found: dict[int, list[int]] = {}
        self.pending: list[int] = []
        """Sorted pending nodes."""
        self.reserved: dict[int, int] = {}
        """Information set -> matches under way that aim at it."""
        self._expand(0)

    @property
    def done(self) -> bool:
        return not self.pending

    def missing(self, infoset: int) -> int:
        return self.samples - len(self.answers.get(infoset, ()))

    def record(self, infoset: int, action: int) -> None:
        """One answer the bot gave at ``infoset`` (kept if it is among the first
        ``samples``); a new action opens the subtrees below it."""
        row = self.answers.setdefault(infoset, [])
        if len(row) >= self.samples:
            return
        new = action not in row
        row.append(action)
        if len(row) == self.samples:
            for node in self.found.get(infoset, ()):
                at = bisect.bisect_left(self.pending, node)
                if at < len(self.pending) and self.pending[at] == node:
                    del self.pending[at]
        if new:
            children = self.index.tree.children
            for node in list(self.found.get(infoset, ())):
                self._expand(children[node][action])

    def _expand(self, start: int) -> None:
        tree = self.index.tree
        kinds, children, infoset_of = tree.kind, tree.children, tree.infoset
        stack = [start]
        while stack:
            node = stack.pop()
            kind = kinds[node]
            if kind == TERMINAL:
                continue
            if kind != self.seat:
                stack.extend(children[node])
                continue
            infoset = infoset_of[node]
            self.found.setdefault(infoset, []).append(node)
            row = self.answers.get(infoset)
            if row is None and len(tree.infosets[infoset].actions) == 1:
                row = self.answers[infoset] = [0] * self.samples
            if row is None or len(row) < self.samples:
                bisect.insort(self.pending, node)
            if row:
                stack.extend(children[node][a] for a in set(row))

    def aim(self, rng: random.Random, within: int = 0) -> int | None:
        """A pending node below ``within`` to aim a match at: found by walking down
        as the random opponent and chance would (a uniform choice at each node of
        theirs, a recorded answer at this seat's), among the branches with pending
        nodes, so that matches look like matches against that bot for as long as
        shallow work is left; else any pending node (:meth:`pick`)."""
        tree = self.index.tree
        kinds, children, infoset_of = tree.kind, tree.children, tree.infoset
        node = within
        while kinds[node] != TERMINAL:
            if kinds[node] == self.seat:
                infoset = infoset_of[node]
                if self._pending(node) and self.reserved.get(infoset, 0) < self.missing(infoset):
                    return node
                options, weights = self.answered_children(node)
            else:
                options, weights = list(children[node]), None
            kept = [i for i, child in enumerate(options) if self._has_pending(child)]
            if not kept:
                break
            if weights is None:
                node = options[rng.choice(kept)]
            else:
                node = options[rng.choices(kept, [weights[i] for i in kept])[0]]
        return self.pick(rng, within)

    def answered_children(self, node: int) -> tuple[list[int], list[float] | None]:
        """The children of this seat's ``node`` its answers lead to, and their weights
        for :meth:`aim` (``None``: uniform over the list, which repeats an action as
        often as it was answered)."""
        children = self.index.tree.children[node]
        return [children[a] for a in self.answers.get(self.index.tree.infoset[node], ())], None

    def _pending(self, node: int) -> bool:
        at = bisect.bisect_left(self.pending, node)
        return at < len(self.pending) and self.pending[at] == node

    def _has_pending(self, node: int) -> bool:
        at = bisect.bisect_left(self.pending, node)
        return at < len(self.pending) and self.pending[at] < self.index.end[node]

    def pick(self, rng: random.Random, within: int = 0) -> int | None:
        """A pending node in the subtree of ``within`` whose information set is not
        yet fully aimed at by matches under way, drawn at random; None if none."""
        end = self.index.end[within]
        low = bisect.bisect_left(self.pending, within)
        high = bisect.bisect_left(self.pending, end)
        if low >= high:
            return None
        infoset_of = self.index.tree.infoset
        for _ in range(8):
            node = self.pending[rng.randrange(low, high)]
            if self.reserved.get(infoset_of[node], 0) < self.missing(infoset_of[node]):
                return node
        for node in self.pending[low:high]:
            if self.reserved.get(infoset_of[node], 0) < self.missing(infoset_of[node]):
                return node
        return None


class PlannedChance(ChanceStream):
    """A match's chance: the prober's planned outcomes while they fit, else draws
    from a fresh secret stream (as a match without a key draws)."""

    def __init__(self) -> None:
        super().__init__(new_secret())
        self.planned: list[int] = []
        self.followed = True
        """Every draw since the plan was made came from it."""

    def plan(self, values: list[int]) -> None:
        self.planned = values
        self.followed = True

    def randint(self, a: int, b: int) -> int:
        if self.planned:
            value = self.planned.pop(0)
            if a <= value <= b:
                return value
            self.planned.clear()
        self.followed = False
        return super().randint(a, b)


@dataclass(frozen=True, slots=True)
class ProbeSpec(MatchSpec):
    """A match whose chance the prober draws (:class:`PlannedChance`)."""

    planned: PlannedChance | None = field(default=None, compare=False, repr=False)
    drawer: MixedDrawer | None = field(default=None, compare=False, repr=False)
    """Draws the probed bot's mixed moves (:mod:`league.execution.probe_mixed`);
    ``None``: the referee's keyed draw, as in any match."""

    def chance(self, key: bytes | None = None) -> ChanceStream:
        return self.planned if self.planned is not None else MatchSpec.chance(self, key)

    def draw_mixed(
        self, seat: int, view: Any, distribution: Distribution, key: bytes, turn: int
    ) -> Any:
        if self.drawer is None:
            return MatchSpec.draw_mixed(self, seat, view, distribution, key, turn)
        return self.drawer(seat, view, distribution, key, turn)


class Prober:
    """The prober's side of one match: where it is in the tree, what it aims at."""

    def __init__(
        self,
        index: TreeIndex,
        coverage: Coverage | None,
        codec: Codec[Any, Any],
        rng: random.Random,
        chance: PlannedChance,
        steer: Mapping[int, Sequence[float]] | None = None,
    ) -> None:
        self.index = index
        self.coverage = coverage
        self.steer = steer
        """Steered rounds: the prober's policy by information set (uniform where it
        has none), chance secret; ``None``: aim at the coverage's pending nodes."""
        self.codec = codec
        self.rng = rng
        self.chance = chance
        self.known = 0
        """A node the match is at or below."""
        self.filler = False
        """Aim at nothing: play as the random bot."""
        self.target: int | None = None
        self.on_path: set[int] = set()
        """The nodes from where the target was aimed at down to it."""
        self.aimed: list[int] = []
        """Information sets this match reserved (released when it ends)."""

    def aim(self, target: int | None, at: int) -> None:
        """Aim at ``target`` from node ``at``: reserve it, plan the chance below."""
        self.target = target
        if target is None:
            self.on_path = set()
            return
        infoset = self.index.tree.infoset[target]
        assert self.coverage is not None  # aiming needs the coverage
        self.coverage.reserved[infoset] = self.coverage.reserved.get(infoset, 0) + 1
        self.aimed.append(infoset)
        planned: list[int] = []
        tree = self.index.tree
        path = self.index.path(target, at)
        self.on_path = set(path)
        for node, child in itertools.pairwise(path):
            if tree.kind[node] == CHANCE:
                planned.extend(self.index.outcomes(node)[tree.children[node].index(child)])
        self.chance.plan(planned)

    def release(self) -> None:
        if self.coverage is None:
            return
        reserved = self.coverage.reserved
        for infoset in self.aimed:
            reserved[infoset] -= 1
            if not reserved[infoset]:
                del reserved[infoset]
        self.aimed.clear()

    def act(self, observation: Any) -> Any:
        """The prober's action at its turn: towards the target, or a new target in
        the subtree it is in, or (nothing left there) a random legal action."""
        tree = self.index.tree
        infoset = self.index.by_observation.get(observation)
        if infoset is None:  # a view the wire does not give back whole: play on at random
            return self.rng.choice(tree.game.legal_actions(observation))
        actions = tree.infosets[infoset].actions
        if self.steer is not None:
            weights = self.steer.get(infoset)
            if weights is None:
                return self.rng.choice(actions)
            return self.rng.choices(actions, weights=weights)[0]
        if self.filler or self.coverage is None:
            return self.rng.choice(actions)
        node = self.locate(infoset)
        if node is None:  # hidden chance off the plan: play on at random
            return self.rng.choice(actions)
        target = self.target
        if target is None or not node < target < self.index.end[node]:
            self.aim(self.coverage.aim(self.rng, node), node)
            target = self.target
            if target is None or target == node:
                choice = self.rng.randrange(len(actions))
                self.known = tree.children[node][choice]
                return actions[choice]
        choice = self.index.child_towards(node, target)
        self.known = tree.children[node][choice]
        return actions[choice]

    def locate(self, infoset: int) -> int | None:
        """The node of ``infoset`` the match is at, if the prober can tell: the one
        below :attr:`known`, or, while chance followed the plan, the one on the
        planned path (if the public history is the plan's, so was everything else)."""
        here = self.index.members_within(infoset, self.known)
        if len(here) > 1 and self.chance.followed:
            here = [node for node in here if node in self.on_path]
        return here[0] if len(here) == 1 else None


class _ProberStream:
    """The prober's seat as the referee sees a bot's stream: Ready to MatchStart
    (no deltas), an action echoing turn and nonce to each TurnRequest after a
    short delay, and a clean close after MatchEnd."""

    def __init__(self, prober: Prober, delay_s: tuple[float, float]) -> None:
        self.prober = prober
        self.delay_s = delay_s
        self.request: bot_pb2.PlayRequest | None = None

    def send(self, message: bot_pb2.PlayRequest) -> None:
        self.request = message

    async def receive(self) -> bot_pb2.PlayResponse:
        request, self.request = self.request, None
        await trio.sleep(self.prober.rng.uniform(*self.delay_s))
        if request is None:  # never asked twice without a request: wait for cancellation
            await trio.sleep_forever()
        assert request is not None
        kind = request.WhichOneof("kind")
        if kind == "start":
            return bot_pb2.PlayResponse(ready=bot_pb2.Ready(observation_deltas=False))
        turn = request.turn
        codec = self.prober.codec
        action = self.prober.act(codec.decode_observation(turn.observation))
        return bot_pb2.PlayResponse(
            turn=bot_pb2.TurnResponse(
                turn=turn.turn, action=codec.encode_action(action), nonce=turn.nonce
            )
        )

    async def finish(self, timeout_s: float) -> bool:
        await trio.lowlevel.checkpoint()
        return True

    def cancel(self) -> None:
        pass


class _ShadowStream:
    """The prober's seat played through a real bot process's stream: every message
    goes to it and every answer comes from it (its timing, its Ready, its clean
    close), but each action it answers is replaced by the prober's."""

    def __init__(self, prober: Prober, stream: SeatStream) -> None:
        self.prober = prober
        self.stream = stream
        self.observations = DeltaDecoder(prober.codec)
        self.action: bot_pb2.Action | None = None

    def send(self, message: bot_pb2.PlayRequest) -> None:
        self.stream.send(message)
        if message.WhichOneof("kind") == "turn":  # decided while the shadow thinks
            observation = self.observations.decode(message.turn.observation)
            self.action = self.prober.codec.encode_action(self.prober.act(observation))

    async def receive(self) -> bot_pb2.PlayResponse:
        reply = await self.stream.receive()
        if reply.WhichOneof("kind") == "turn" and self.action is not None:
            reply.turn.action.CopyFrom(self.action)
            del reply.turn.policy[:]
            del reply.turn.mixed[:]  # the shadow (a random bot) answers mixed: one action
            self.action = None
        return reply

    async def finish(self, timeout_s: float) -> bool:
        return await self.stream.finish(timeout_s)

    def cancel(self) -> None:
        self.stream.cancel()


class _ShadowConnection:
    def __init__(self, connection: BotConnection, prober: Prober) -> None:
        self.connection = connection
        self.health = connection.health
        self.prober = prober

    def open_stream(self, **kwargs: Any) -> _ShadowStream:
        return _ShadowStream(self.prober, self.connection.open_stream(**kwargs))

    def close(self) -> None:
        self.connection.close()


class _ProberConnection:
    def __init__(self, stream: _ProberStream) -> None:
        self.health = bot_pb2.HealthResponse(
            name="opponent", games=[], protocol_version=PROTOCOL_VERSION
        )
        self.stream = stream

    def open_stream(self, **_kwargs: Any) -> _ProberStream:
        return self.stream

    def close(self) -> None:
        pass


class ProbeLauncher:
    """A league's warm pool for the bot; the prober's seat played in this process,
    through a shadow bot process from the same pool if there is one."""

    def __init__(
        self,
        pool: Launcher,
        prober: Prober,
        shadow: BotSpec | None,
        delay_s: tuple[float, float] = PROBER_DELAY_S,
    ) -> None:
        self.pool = pool
        self.prober = prober
        self.shadow = shadow
        self.delay_s = delay_s

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AsyncIterator[Lease]:
        if spec is PROBER and self.shadow is not None:
            async with self.pool.lease(self.shadow, startup_s, group=group) as shadowed:
                connection = cast(
                    BotConnection, _ShadowConnection(shadowed.connection, self.prober)
                )
                lease = Lease(spec, connection, shadowed.process)
                try:
                    yield lease
                finally:
                    shadowed.faulty = shadowed.faulty or lease.faulty
            return
        if spec is PROBER:
            stream = _ProberStream(self.prober, self.delay_s)
            yield Lease(spec, cast(BotConnection, _ProberConnection(stream)), None)
            return
        async with self.pool.lease(spec, startup_s, group=group) as leased:
            yield leased


def replay(index: TreeIndex, record: MatchRecord, codec: Codec[Any, Any]) -> list[tuple[int, int]]:
    """The decisions a record shows, as (information set, action index), in order."""
    tree = index.tree
    node = 0
    decided: list[tuple[int, int]] = []
    for event in record.events:
        if tree.kind[node] == TERMINAL:
            break
        if event.seat is None:
            assert event.outcome is not None
            node = tree.children[node][index.outcomes(node).index(tuple(event.outcome))]
            continue
        infoset = tree.infoset[node]
        message = json_format.ParseDict(event.action or {}, bot_pb2.Action())
        choice = tree.infosets[infoset].actions.index(codec.decode_action(message))
        decided.append((infoset, choice))
        node = tree.children[node][choice]
    return decided


async def probe_by_matches(
    spec: BotSpec,
    tree: GameTree,
    codec: Codec[Any, Any],
    settings: MatchProbeSettings,
    on_progress: Callable[[int, int], None] | None = None,
    *,
    index: TreeIndex | None = None,
    played: list[int] | None = None,
    records: list[MatchRecord] | None = None,
) -> list[dict[int, list[int]]]:
    """Both seats' sampled play (as :func:`policy_probe.probe_answers` gives one
    seat's), asked in real matches against the prober. Each match gives the bot a
    seat drawn at random; matches go on until both seats are covered.
    ``on_progress`` gets the matches played and the information sets holding
    their K answers every :data:`PROGRESS_EVERY` matches; ``played`` a 1 per match played,
    ``records`` (tests) every record."""
    index = index or TreeIndex(tree)
    coverages = [Coverage(index, seat, settings.samples) for seat in (0, 1)]
    rng = random.Random(secrets.randbits(64))
    progress = trio.Event()
    matches = 0

    async def one_match(pool: WarmPool) -> None:
        nonlocal progress, matches
        seat = rng.randrange(2)
        coverage = coverages[seat]
        chance = PlannedChance()
        prober = Prober(index, coverage, codec, rng, chance)
        prober.filler = coverage.done or rng.random() < settings.filler_share
        if not prober.filler:
            target = coverage.aim(rng)
            if target is None:  # all pending ones aimed at already: wait for a match
                await progress.wait()
                return
            prober.aim(target, 0)
        bots = (spec, PROBER) if seat == 0 else (PROBER, spec)
        match = ProbeSpec(
            settings.game, bots, rules=tree.game.format_rules(tree.rules), planned=chance
        )
        launcher = ProbeLauncher(pool, prober, settings.shadow, settings.prober_delay_s)
        try:
            record = await run_match(match, settings.limits, launcher=launcher)
        finally:
            prober.release()
        check_record(record, seat)
        if records is not None:
            records.append(record)
        if played is not None:
            played.append(1)
        for infoset, action in replay(index, record, codec):
            if tree.infosets[infoset].seat == seat:
                coverage.record(infoset, action)
        matches += 1
        if on_progress is not None and matches % PROGRESS_EVERY == 0:
            full = sum(c.missing(i) <= 0 for c in coverages for i in c.found)
            on_progress(matches, full)
        progress.set()
        progress = trio.Event()

    async def worker(pool: WarmPool) -> None:
        while not all(c.done for c in coverages):
            await one_match(pool)

    pool = WarmPool(sandbox=settings.sandbox)
    try:
        async with trio.open_nursery() as nursery:
            for _ in range(settings.workers):
                nursery.start_soon(worker, pool)
    finally:
        with trio.CancelScope(shield=True):
            await pool.aclose()
    # only where the kept answers lead: a match may have gone elsewhere through an
    # answer beyond the first K (no reach under the estimate)
    return [{i: c.answers[i] for i in c.found} for c in coverages]


@dataclass(frozen=True, slots=True)
class SteeredRound:
    """One round of ``arena exploit``'s adaptive sampling: how many matches, and the
    prober's policy as each seat (information set -> action weights; uniform where
    it has none)."""

    matches: int
    steer: tuple[Mapping[int, Sequence[float]], Mapping[int, Sequence[float]]]


OnMatch = Callable[[int, int, list[tuple[int, int]]], None]
"""Told of each match played: its half (0 or 1, fixed when the match starts), the
bot's seat, and the decisions (information set, action index) in order."""


async def play_steered_rounds(
    spec: BotSpec,
    tree: GameTree,
    codec: Codec[Any, Any],
    settings: MatchProbeSettings,
    next_round: Callable[[], SteeredRound | None],
    on_match: OnMatch,
    *,
    deadline: float | None = None,
    index: TreeIndex | None = None,
) -> None:
    """Rounds of matches against the prober playing each round's policy (chance
    secret, as a match without a key draws), one bot process per worker from one
    warm pool for the whole run. ``next_round`` is asked after each round (None:
    stop); ``deadline`` (``trio.current_time()``) stops starting matches, and the
    round's matches under way finish. Each match's half alternates in the order
    the matches start, whatever they turn out to show."""
    index = index or TreeIndex(tree)
    rng = random.Random(secrets.randbits(64))
    started = 0

    async def one_match(pool: WarmPool, steer: SteeredRound, half: int) -> None:
        seat = rng.randrange(2)
        prober = Prober(index, None, codec, rng, PlannedChance(), steer=steer.steer[1 - seat])
        bots = (spec, PROBER) if seat == 0 else (PROBER, spec)
        match = ProbeSpec(settings.game, bots, rules=tree.game.format_rules(tree.rules))
        launcher = ProbeLauncher(pool, prober, settings.shadow, settings.prober_delay_s)
        record = await run_match(match, settings.limits, launcher=launcher)
        check_record(record, seat)
        on_match(half, seat, replay(index, record, codec))

    def out_of_time() -> bool:
        return deadline is not None and trio.current_time() >= deadline

    pool = WarmPool(sandbox=settings.sandbox)
    try:
        while (plan := next_round()) is not None and not out_of_time():
            last = started + plan.matches

            async def worker(pool: WarmPool, plan: SteeredRound, last: int) -> None:
                nonlocal started
                while started < last and not out_of_time():
                    half = started % 2
                    started += 1
                    await one_match(pool, plan, half)

            async with trio.open_nursery() as nursery:
                for _ in range(settings.workers):
                    nursery.start_soon(worker, pool, plan, last)
    finally:
        with trio.CancelScope(shield=True):
            await pool.aclose()


def check_record(record: MatchRecord, seat: int) -> None:
    """A fault of the probed bot (at ``seat``) stops the probe, as an illegal answer
    did; so does one of the shadow process (which plays nothing of its own)."""
    for fault in record.faults:
        who = "" if fault.seat == seat else "the prober's shadow bot: "
        raise MatchProbeError(f"{who}{fault.kind}: {fault.message}")
    if record.reason == "aborted":
        raise MatchProbeError(f"the match was aborted: {record.meta.get('error', '')}")
