"""In-process costs: engine per decision, playout speed, referee work late in a long match.

Speed in **decisions** (player moves, never chance steps) and matches per second, for
three loops that play uniformly random legal actions:

* :func:`raw_loop`: the engine as a training loop drives it (``new_game``, chance from
  a seeded :class:`~referee.gamekit.fast.FastChance` per match, ``observe``,
  ``legal_actions``, a uniform choice, ``transition``; the ``outcome`` at the end);
* :func:`local_loop`: :func:`sdk.local.play_callables` with a random policy over the
  game's SDK ``legal_actions`` (the same driver as the referee: turn numbers, legality
  check of every action, the events of the match), ``fast_chance`` or the referee's
  keyed stream;
* :func:`openspiel_loop`: pyspiel's C++ ``liars_dice`` driven from Python the same way
  (legal actions, a uniform choice, apply; its chance steps sampled but not counted;
  ``returns`` at the end).

:func:`interleaved` runs loops in rounds (A, B, A, B, ...) so load hits them alike;
:func:`ratio` is the median of the per-round ratios with their min and max.
"""

from __future__ import annotations

import importlib
import itertools
import random
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from referee.core.catalogue import get_codec, get_entry, get_game
from referee.core.digests import state_digester
from referee.core.driver import MatchDriver
from referee.core.playout import match_rng
from referee.gamekit.base import CHANCE, ChanceSource, draw_chance
from referee.gamekit.fast_chance import FastChance
from referee.records.record import FORMAT_VERSION, RecordedEvent
from referee.runtime.match import action_json
from sdk.local import play_callables

LONG_GAME = "liars_poker"
LONG_RULES: Mapping[str, str] = {"chips_variant": "true", "starting_chips": "50"}


@dataclass(frozen=True)
class EngineCost:
    per_decision_us: float
    """Median of observe + check_action + transition per decision: the engine work the
    referee does (listing legal actions is the bot's business, not timed)."""
    steps_per_s: float
    """Random playout, chance steps included, whole matches."""
    decisions: int


def engine_cost(game_name: str, budget_s: float) -> EngineCost:
    """Random playouts for about ``budget_s`` seconds (at least 5 matches)."""
    game = get_game(game_name)
    rules = game.default_rules()
    times: list[float] = []
    steps = 0
    playing = 0.0
    seed = 0
    deadline = time.perf_counter() + budget_s
    while seed < 5 or time.perf_counter() < deadline:
        chooser = random.Random(seed)
        rng = match_rng(seed)
        began = time.perf_counter()
        state = game.new_game(rules, 2)
        while (actor := game.to_act(state)) is not None:
            steps += 1
            if actor == CHANCE:
                state = game.apply_chance(state, draw_chance(game.chance_request(state), rng))
                continue
            started = time.perf_counter()
            view = game.observe(state, actor)
            paused = time.perf_counter()
            legal = game.legal_actions(view)
            action = legal[chooser.randrange(len(legal))]
            resumed = time.perf_counter()
            game.check_action(view, action)
            state = game.transition(state, actor, action)
            times.append((paused - started + time.perf_counter() - resumed) * 1e6)
        playing += time.perf_counter() - began
        seed += 1
    return EngineCost(statistics.median(times), steps / playing, len(times))


@dataclass(frozen=True)
class LongMatch:
    early_us: float
    late_us: float
    early_at: int
    late_at: int
    matches: int
    late_parts: dict[str, float]
    """Mean µs per action event near ``late_at``: observe+encode, digests, engine."""


def long_match(matches: int, early: int = 30, late: int = 3000, window: int = 20) -> LongMatch:
    """Referee work per event (no transport) at event ~``early`` vs ~``late``.

    Per event, exactly as :meth:`referee.runtime.match._Table.play` does it, with a
    :class:`~referee.core.driver.MatchDriver` (both seats take observation deltas, as SDK
    bots do): the decision (observe, encode, observation digest) and its
    serialisation, decoding the answer, applying it (legality, transition, state
    digest) and the record entry; chance events: draw, apply, digest, record entry.
    Averaged over events ``[at-window/2, at+window/2)`` of ``matches`` Liar's Poker
    chips games long enough to reach ``late``.
    """
    game = get_game(LONG_GAME)
    codec = get_codec(LONG_GAME)
    rules = game.parse_rules(dict(LONG_RULES))
    half = window // 2
    early_times: list[float] = []
    late_times: list[float] = []
    parts = {
        "decision (observe+encode+digest+serialize)": 0.0,
        "decode+apply+digest": 0.0,
        "record entry": 0.0,
    }
    late_actions = 0
    used = 0
    seed = 0
    while used < matches:
        seed += 1
        chooser = random.Random(seed)
        rng = match_rng(seed)
        driver = MatchDriver(
            game, rules, 2, codec=codec, deltas=(True, True), digest=state_digester(FORMAT_VERSION)
        )
        events: list[RecordedEvent] = []
        event_times: list[float] = []
        action_parts: dict[int, tuple[float, float, float]] = {}
        while (actor := driver.to_act()) is not None and len(events) < late + half:
            if actor == CHANCE:
                started = time.perf_counter()
                drawn = driver.draw(rng)
                digest = driver.apply_chance(drawn)
                events.append(RecordedEvent(seat=None, outcome=drawn, state=digest))
                event_times.append(time.perf_counter() - started)
                continue
            t0 = time.perf_counter()
            decision = driver.decision()
            assert decision.message is not None
            decision.message.SerializeToString(deterministic=True)
            t1 = time.perf_counter()
            legal = game.legal_actions(decision.view)  # the bot's work: not timed
            message = codec.encode_action(legal[chooser.randrange(len(legal))])
            t2 = time.perf_counter()
            digest = driver.act(decision, codec.decode_action(message))
            t3 = time.perf_counter()
            events.append(
                RecordedEvent(
                    seat=actor,
                    action=action_json(message.SerializeToString(deterministic=True)),
                    turn=decision.turn,
                    obs=decision.digest,
                    state=digest,
                )
            )
            t4 = time.perf_counter()
            event_times.append((t1 - t0) + (t4 - t2))
            action_parts[len(events) - 1] = (t1 - t0, t3 - t2, t4 - t3)
        if len(events) < late + half:
            continue  # too short
        used += 1
        early_times.extend(event_times[early - half : early + half])
        late_times.extend(event_times[late - half : late + half])
        for index in range(late - half, late + half):
            if index in action_parts:
                late_actions += 1
                for name, value in zip(parts, action_parts[index], strict=True):
                    parts[name] += value
    return LongMatch(
        early_us=statistics.fmean(early_times) * 1e6,
        late_us=statistics.fmean(late_times) * 1e6,
        early_at=early,
        late_at=late,
        matches=used,
        late_parts={name: total * 1e6 / late_actions for name, total in parts.items()},
    )


def openspiel_available() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


OPENSPIEL_DICE = 5
MATCHING_LIARS_DICE: Mapping[str, str] = {
    "dice_per_player": str(OPENSPIEL_DICE),
    "one_round": "true",
    "roll_off": "false",
    "wild_face": "6",
    "wild_opening": "keep",
    "raise_rule": "reset-face",
    "sum_endgame": "false",
}
"""Our Liar's Dice with OpenSpiel's ``liars_dice`` rules: two players, one round, 6s
wild and kept after an opening bid on 6s, a raise is a higher quantity or the same
quantity of a higher face, seat 0 opens."""


# ---------------------------------------------------------------------------
# Decisions per second, interleaved


@dataclass(frozen=True)
class Speed:
    """One timed run of a loop: whole matches, chance included."""

    decisions: int
    """Player moves (chance steps are not decisions)."""
    matches: int
    seconds: float

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.seconds


def raw_loop(
    game_name: str,
    rules: Mapping[str, str],
    budget_s: float,
    *,
    seats: int = 2,
    seed: int = 0,
    chance: Callable[[int], ChanceSource] = FastChance,
) -> Speed:
    """Our engine driven directly, as a training loop would, for about ``budget_s``;
    match ``m``'s chance from ``chance(seed * 1_000_003 + m)``."""
    game = get_game(game_name)
    parsed = game.parse_rules(dict(rules))
    chooser = random.Random(seed)
    decisions = matches = 0
    began = time.perf_counter()
    while matches < 5 or time.perf_counter() - began < budget_s:
        source = chance(seed * 1_000_003 + matches)
        state = game.new_game(parsed, seats)
        while (actor := game.to_act(state)) is not None:
            if actor == CHANCE:
                state = game.apply_chance(state, draw_chance(game.chance_request(state), source))
                continue
            legal = game.legal_actions(game.observe(state, actor))
            state = game.transition(state, actor, legal[chooser.randrange(len(legal))])
            decisions += 1
        game.outcome(state)
        matches += 1
    return Speed(decisions, matches, time.perf_counter() - began)


def local_loop(
    game_name: str,
    rules: Mapping[str, str],
    budget_s: float,
    *,
    seats: int = 2,
    seed: int = 0,
    fast_chance: bool = True,
) -> Speed:
    """:func:`sdk.local.play_callables` with random policies for about ``budget_s``: a
    uniform choice among the ``legal_actions`` of the game's SDK module (what the example
    bots call, e.g. :func:`sdk.liars_dice.legal_actions`)."""
    legal_actions = importlib.import_module(get_entry(game_name).sdk).legal_actions
    chooser = random.Random(seed)
    calls = itertools.count()
    """One per decision (every action is legal, so every call is a move of the match)."""

    def policy(observation: object) -> object:
        next(calls)
        legal = legal_actions(observation)
        return legal[chooser.randrange(len(legal))]

    policies = [policy] * seats
    matches = 0
    began = time.perf_counter()
    while matches < 5 or time.perf_counter() - began < budget_s:
        play_callables(
            game_name,
            policies,
            seed=seed * 1_000_003 + matches,
            rules=rules,
            fast_chance=fast_chance,
        )
        matches += 1
    return Speed(next(calls), matches, time.perf_counter() - began)


def openspiel_loop(budget_s: float, *, seed: int = 0) -> Speed:
    """pyspiel's ``liars_dice`` (:data:`OPENSPIEL_DICE` dice) for about ``budget_s``."""
    import pyspiel

    game = pyspiel.load_game("liars_dice", {"numdice": OPENSPIEL_DICE})
    chooser = random.Random(seed)
    decisions = matches = 0
    began = time.perf_counter()
    while matches < 5 or time.perf_counter() - began < budget_s:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[chooser.randrange(len(outcomes))][0])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[chooser.randrange(len(legal))])
            decisions += 1
        state.returns()
        matches += 1
    return Speed(decisions, matches, time.perf_counter() - began)


def interleaved(loops: Mapping[str, Callable[[int], Speed]], rounds: int) -> dict[str, list[Speed]]:
    """Each loop once per round, in the given order, round after round; a loop is
    called with the round number (its seed)."""
    runs: dict[str, list[Speed]] = {name: [] for name in loops}
    for number in range(rounds):
        for name, loop in loops.items():
            runs[name].append(loop(number))
    return runs


@dataclass(frozen=True)
class Ratio:
    median: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.median:.2f} (min-max {self.low:.2f}-{self.high:.2f})"


def per_round(top: list[Speed], bottom: list[Speed], *, per: str = "decisions") -> list[float]:
    """``top ÷ bottom`` in each round, in decisions/s (or ``per="matches"``)."""
    if per == "decisions":
        return [a.decisions_per_s / b.decisions_per_s for a, b in zip(top, bottom, strict=True)]
    return [a.matches_per_s / b.matches_per_s for a, b in zip(top, bottom, strict=True)]


def ratio(top: list[Speed], bottom: list[Speed], *, per: str = "decisions") -> Ratio:
    """The median of :func:`per_round`, with its min and max."""
    values = per_round(top, bottom, per=per)
    return Ratio(statistics.median(values), min(values), max(values))


def median_speed(runs: list[Speed]) -> Speed:
    """The run with the median decisions/s."""
    return sorted(runs, key=lambda run: run.decisions_per_s)[len(runs) // 2]
