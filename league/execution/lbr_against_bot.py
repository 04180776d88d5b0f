"""Play local best response (``referee.analysis.local_best_response``) against a sandboxed bot.

The bot is started once, as for a match (the referee's launcher, its sandbox). LBR
plays N duplicate deals against it, each deal twice (LBR as seat 0, then as seat 1,
the same chance key), over the engine in this process. The bot answers every
question — its real moves and LBR's counterfactual ones alike — through the probe
connection (``league/execution/policy_probe.py``): one match-like stream per
question carrying the whole observation, so the bot must act from its observation
alone (the engines give every seat the whole public history). Answers are cached by
observation for one match (a history asked once in it is never asked again); two
matches share next to nothing (the roll-off and earlier rounds are in every
observation), so the cache is dropped between them and memory stays bounded.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import trio

from league.execution.policy_probe import PARALLEL_STREAMS, ProbeSettings, ask_action
from referee.analysis.best_response import InfoSet
from referee.analysis.local_best_response import (
    DEFAULT_MAX_RAISES,
    Deal,
    LocalBestResponse,
    seat_payoff,
)
from referee.analysis.luck import luck
from referee.core.catalogue import get_codec, get_game
from referee.core.chance import ChanceStream, key_from_seed
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.messages import new_match_token
from referee.core.mixed import sampled
from referee.gamekit.base import CHANCE, Game, draw_chance
from referee.runtime.channel import BotConnection
from referee.runtime.launcher import FreshLauncher
from referee.runtime.process import BotSpec
from referee.wire import Codec
from sdk.bot import Bot, MatchInfo

Z95: Final = 1.959963984540054
"""Two-sided 95% normal quantile."""


@dataclass(frozen=True, slots=True)
class LowerBoundSettings:
    """One lower-bound run."""

    probe: ProbeSettings
    """The game, its rules, samples per question (K) and the bot's limits."""
    deals: int = 50
    """Duplicate deals; each is played twice (LBR in seat 0, then in seat 1)."""
    seed: int = 0
    """Deal ``i`` uses the chance key of seed ``seed * 1_000_003 + i``."""
    max_raises: int = DEFAULT_MAX_RAISES


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its 95% normal interval."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        """The normal interval of the mean of ``values``, cut to the payoffs' range
        [-1, 1] (with few matches it can reach past it).

        The spread counts two pseudo-deals at the payoffs' extremes, -1 and +1 (a
        weak prior, as Agresti and Coull add two of each outcome): three deals all
        won read ``1.0 [-0.01, 1.0]``, not a zero-width ``[1.0, 1.0]`` that looks
        like certainty. The mean is the deals' own; the prior's weight fades as 1/N."""
        mean = statistics.fmean(values)
        spread = statistics.stdev([*values, -1.0, 1.0])
        half = Z95 * spread / math.sqrt(len(values))
        return cls(mean, max(-1.0, mean - half), min(1.0, mean + half))


@dataclass(frozen=True, slots=True)
class LowerBound:
    """LBR's payoffs, deal by deal: ``payoffs[i] = (as seat 0, as seat 1)``."""

    payoffs: list[tuple[float, float]]
    questions: int
    """Observations the bot was asked about (each ``samples`` times; distinct
    within a match) plus its real moves."""
    luck: list[tuple[float, float]] = field(default_factory=list)
    """LBR's luck in each match, in payoff units, as ``payoffs`` (empty: not measured):
    ``2·b·Σ`` of its chance corrections (:func:`referee.analysis.luck.luck`; ``b`` the
    game's fitted coefficient), mean zero whatever LBR and the bot play."""

    def seat(self, seat: int) -> Interval:
        """LBR's mean payoff in ``seat`` against the bot in the other seat."""
        return Interval.of([pair[seat] for pair in self.payoffs])

    @property
    def per_deal(self) -> list[float]:
        """Each deal's mean over the two seats: what :attr:`bound` averages."""
        return [(a + b) / 2 for a, b in self.payoffs]

    @property
    def per_deal_adjusted(self) -> list[float]:
        """:attr:`per_deal` minus each deal's mean luck over the two seats (AIVAT's
        chance terms): the same expectation, so still a lower bound, with the dice's
        share of the spread taken out; :attr:`per_deal` when luck was not measured."""
        if len(self.luck) != len(self.payoffs):
            return self.per_deal
        return [
            (a + b) / 2 - (la + lb) / 2
            for (a, b), (la, lb) in zip(self.payoffs, self.luck, strict=True)
        ]

    @property
    def adjusted_bound(self) -> Interval:
        """:attr:`bound` on the luck-adjusted deals."""
        return Interval.of(self.per_deal_adjusted)

    @property
    def bound(self) -> Interval:
        """The mean over seats (per deal, so the duplicate pairing cancels luck):
        a lower bound on the exploitability, in the same units."""
        return Interval.of(self.per_deal)


def deals_needed(values: Sequence[float], half_width: float) -> int:
    """Deals for a 95% interval of ``+-half_width`` at the spread ``values`` show
    (with :meth:`Interval.of`'s two pseudo-deals at -1 and +1, so a run whose
    deals all agree does not claim that one deal is enough)."""
    if half_width <= 0:
        raise ValueError(f"half_width must be positive, got {half_width}")
    spread = statistics.stdev([*values, -1.0, 1.0])
    return max(1, math.ceil((Z95 * spread / half_width) ** 2))


class _Asker:
    """The bot's answers, cached by observation, asked in parallel on one connection."""

    def __init__(
        self, connection: BotConnection, game: Game[Any, Any, Any, Any], probe: ProbeSettings
    ):
        self.connection = connection
        self.game = game
        self.codec: Codec[Any, Any] = get_codec(probe.game)
        self.probe = probe
        self.start_rules = game.format_rules(game.parse_rules(probe.raw_rules))
        """What a real match's MatchStart carries: every option, canonical text."""
        self.answers: dict[Hashable, Counter[Any]] = {}
        self.moves = 0
        self.asked = 0
        """Observations asked about so far (distinct within each match)."""

    async def ask(self, seat: int, observation: Any) -> Any:
        """One answer; every question is a fresh match-like stream (a new secret
        match id), so a bot drawing from ``self.rng`` draws anew each time."""
        infoset = InfoSet(seat, observation, tuple(self.game.legal_actions(observation)))
        if len(infoset.actions) == 1:
            return infoset.actions[0]
        index = await ask_action(self.connection, infoset, self.codec, self.probe, self.start_rules)
        return infoset.actions[index]

    async def fill(self, seat: int, observations: Sequence[Any]) -> None:
        """Ask ``samples`` times at every observation not yet answered."""
        missing = [o for o in observations if o not in self.answers]
        self.asked += len(missing)
        limiter = trio.CapacityLimiter(PARALLEL_STREAMS)

        async def one(observation: Any) -> None:
            counts: Counter[Any] = Counter()
            async with limiter:
                for _ in range(self.probe.samples):
                    counts[await self.ask(seat, observation)] += 1
            self.answers[observation] = counts

        async with trio.open_nursery() as nursery:
            for observation in missing:
                nursery.start_soon(one, observation)

    async def move(self, seat: int, observation: Any) -> Any:
        """The bot's real move (a fresh sample, not a cached answer)."""
        self.moves += 1
        return await self.ask(seat, observation)


class InProcessLbrError(Exception):
    """A bot run in process (``--in-process``) answered an illegal action."""


class _InProcessAsker:
    """The same questions as :class:`_Asker`, answered by a Bot class run here: a
    fresh bot and an opaque match id per answer (as each question is a fresh
    stream for a process), no sandbox and no gRPC. For your own bots only."""

    def __init__(
        self,
        factory: Callable[[], Bot[Any, Any]],
        game: Game[Any, Any, Any, Any],
        probe: ProbeSettings,
    ) -> None:
        self.factory = factory
        self.game = game
        self.probe = probe
        self.rules = game.parse_rules(probe.raw_rules)
        self.start_rules = game.format_rules(self.rules)
        self.answers: dict[Hashable, Counter[Any]] = {}
        self.moves = 0
        self.asked = 0

    def ask(self, seat: int, observation: Any) -> Any:
        legal = tuple(self.game.legal_actions(observation))
        if len(legal) == 1:
            return legal[0]
        bot = self.factory()
        token = new_match_token(match_id="")
        bot.start(MatchInfo(token, self.game.name, self.rules, seat, 2, self.start_rules))
        action = sampled(bot.act(observation), bot.rng)
        if action not in legal:
            raise InProcessLbrError(f"illegal action {action!r} at {observation!r}")
        return action

    async def fill(self, seat: int, observations: Sequence[Any]) -> None:
        missing = [o for o in observations if o not in self.answers]
        self.asked += len(missing)
        for observation in missing:
            counts: Counter[Any] = Counter()
            for _ in range(self.probe.samples):
                counts[self.ask(seat, observation)] += 1
            self.answers[observation] = counts

    async def move(self, seat: int, observation: Any) -> Any:
        self.moves += 1
        return self.ask(seat, observation)


async def _play(
    asker: _Asker | _InProcessAsker, rules: Any, lbr_seat: int, key: bytes, max_raises: int
) -> tuple[float, float]:
    """One match of LBR in ``lbr_seat`` against the bot: LBR's payoff and its luck
    (both +1 win, -1 loss units; the luck's samples keyed by ``key``)."""
    game = asker.game
    asker.answers.clear()
    lbr = LocalBestResponse(game, lbr_seat, max_raises=max_raises)
    chance = ChanceStream(key)
    state = game.new_game(rules, 2)
    events: list[Event] = []
    while (actor := game.to_act(state)) is not None:
        if actor == CHANCE:
            outcome = tuple(draw_chance(game.chance_request(state), chance))
            lbr.dealt(Deal(state, outcome))
            events.append(ChanceEvent(outcome))
            state = game.apply_chance(state, outcome)
            continue
        observation = game.observe(state, actor)
        if actor == lbr_seat:
            await asker.fill(1 - lbr_seat, lbr.questions(observation))
            action = lbr.decide(observation, asker.answers).action
        else:
            action = await asker.move(actor, observation)
        lbr.acted(actor, action)
        events.append(ActionEvent(actor, action))
        state = game.transition(state, actor, action)
    # A score is (payoff + 1) / 2, so luck in score units counts twice in payoffs.
    lucky = 2.0 * luck(game.name, rules, 2, events, salt=key)[lbr_seat]
    return seat_payoff(game, state, lbr_seat), lucky


async def _deals(
    asker: _Asker | _InProcessAsker,
    settings: LowerBoundSettings,
    on_progress: Callable[[int, int], None] | None,
) -> LowerBound:
    """Every deal of ``settings`` twice (LBR in seat 0, then in seat 1) against ``asker``."""
    rules = asker.game.parse_rules(settings.probe.raw_rules)
    payoffs: list[tuple[float, float]] = []
    lucks: list[tuple[float, float]] = []
    for deal in range(settings.deals):
        key = key_from_seed(settings.seed * 1_000_003 + deal)
        pair = [await _play(asker, rules, seat, key, settings.max_raises) for seat in (0, 1)]
        payoffs.append((pair[0][0], pair[1][0]))
        lucks.append((pair[0][1], pair[1][1]))
        if on_progress is not None:
            on_progress(deal + 1, settings.deals)
    return LowerBound(payoffs=payoffs, questions=asker.asked + asker.moves, luck=lucks)


async def lower_bound(
    spec: BotSpec,
    settings: LowerBoundSettings,
    on_progress: Callable[[int, int], None] | None = None,
) -> LowerBound:
    """Play ``settings.deals`` duplicate deals of LBR against the bot (both seats)."""
    probe = settings.probe
    launcher = FreshLauncher(sandbox=probe.sandbox)
    async with launcher.lease(spec, probe.startup_s) as lease:
        asker = _Asker(lease.connection, get_game(probe.game), probe)
        return await _deals(asker, settings, on_progress)


def lower_bound_in_process(
    factory: Callable[[], Bot[Any, Any]],
    settings: LowerBoundSettings,
    on_progress: Callable[[int, int], None] | None = None,
) -> LowerBound:
    """:func:`lower_bound` against a Bot class run here, on the same deals."""
    asker = _InProcessAsker(factory, get_game(settings.probe.game), settings.probe)
    return trio.run(_deals, asker, settings, on_progress)
