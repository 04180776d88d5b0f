"""A leak test that does not trust the engine it tests.

The older leak property (``test_conformance.py``) redraws hidden information with
each engine's own ``perturb_hidden``: an engine that forgets to redraw something
(Cockroach Poker never changes the cards recorded in its history) can leak it and
still pass. This test builds the alternative worlds itself, from the *rules*:

* :class:`Spec` (one per game, written here from ``docs/rules``, not read from the
  engine) says which part of every chance outcome belongs to which seat (``liars_dice``
  round roll: die ``i`` to the seat whose cup it lands in; a deal: card ``j`` to seat
  ``j % n``), which part of an action every seat learns (a Cockroach Poker pass shows
  the claim, not the card), and what the rules show a seat later (a challenge shows
  every die; an accepted Liar's Poker hand is seen by its new holder).
* For a seat ``s`` and a real random match, an *alternative history* redraws every
  chance component that ``s`` does not own and is not public, re-chooses the private
  part of other seats' actions (same public part, any legal value), and replays
  ``s``'s own actions and every public action unchanged.
* While everything ``s`` is entitled to know is the same in both histories (its own
  chance components and actions by construction; the rules' reveals by the
  ``knowledge`` comparison of the two omniscient states), ``s``'s observation must
  encode to the same wire bytes. The first step where the rules legitimately show
  ``s`` something different (a challenge revealing a redrawn die) ends the comparison
  for that alternative.

* At every step compared, the engine's text of the step's event for ``s``
  (``describe_action(action, viewer=s, actor=...)`` or ``describe_chance(state,
  outcome, viewer=s)``) must be the same in both histories too: what a replay
  shows ``s`` of other seats' actions and of chance is a function of what ``s``
  may know.

So an engine or codec that puts anything in a seat's observation, or in the text a
seat reads of an event, that the rules do not show it is caught, whatever its
``perturb_hidden`` does. The bytes come from the
shared codec right after it encoded another seat, as in the referee, so a codec that
carries one seat's secret into the next seat's message is caught as well. The guard tests at the
bottom plant such leaks and require the checker to report them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any

import pytest

from referee.core.catalogue import get_codec, get_entry, get_game, load
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.playout import random_playout
from referee.gamekit.base import ChanceRequest, DiceRoll, Game, GameError, Shuffle
from referee.gamekit.leaks import PUBLIC, chance_size
from referee.wire.base import Codec
from tests.game_plugins import registered_games
from tests.games.test_conformance import variants

Owner = int | str


def _identity(action: Any) -> Any:
    return action


@dataclass(frozen=True)
class Spec:
    """What the rules of one game say about who may know what (independent of the engine)."""

    owners: Callable[[Any, ChanceRequest], tuple[Owner, ...]]
    """For a chance node (state before it) and its request: the owner of each component."""
    knowledge: Callable[[Any, int], Any]
    """What the rules have shown ``seat`` in this omniscient state beyond its own chance
    components and actions: public reveals, hands it holds. Compared between histories."""
    public_part: Callable[[Any], Any] = _identity
    """What every seat learns of an action (the whole action unless it has a private part)."""


def _spec(name: str) -> Spec:
    """The game's leak rules, from its own folder (its registration names them)."""
    reference = get_entry(name).leak_rules
    assert reference is not None, f"{name} has no leak rules in its registration"
    return Spec(*load(reference))


SPECS: dict[str, Spec] = {name: _spec(name) for name in registered_games()}


# ---------------------------------------------------------------------------
# The checker


@dataclass
class LeakReport:
    compared: int = 0
    """Observations compared."""
    hidden_differs: int = 0
    """Of those, how many came from an alternative state that really differs."""
    texts_compared: int = 0
    """Event texts (``describe_action``/``describe_chance`` for the seat) compared."""
    problems: list[str] = field(default_factory=list)


def _redraw(
    request: ChanceRequest,
    outcome: tuple[int, ...],
    owners: tuple[Owner, ...],
    seat: int,
    rng: random.Random,
    intensity: float,
) -> tuple[int, ...]:
    """``outcome`` with every component ``seat`` does not own (and is not public) redrawn."""
    free = [i for i, owner in enumerate(owners) if owner != seat and owner != PUBLIC]
    values = list(outcome)
    if isinstance(request, DiceRoll):
        for i in free:
            if rng.random() < intensity:
                values[i] = rng.randint(1, request.sides)
        return tuple(values)
    assert isinstance(request, Shuffle)
    if intensity >= 0.999:
        picked = [values[i] for i in free]
        rng.shuffle(picked)
        for i, value in zip(free, picked, strict=True):
            values[i] = value
    elif len(free) > 1:
        for _ in range(1 + int(intensity * 6)):
            a, b = rng.sample(free, 2)
            values[a], values[b] = values[b], values[a]
    if tuple(values) == tuple(outcome):  # a shuffle that changed nothing: make it count
        distinct = [i for i in free if values[i] != values[free[0]]]
        if distinct:  # (with two free cards, half the shuffles are the identity)
            a, b = free[0], rng.choice(distinct)
            values[a], values[b] = values[b], values[a]
    return tuple(values)


def _diff(before: Any, after: Any) -> str:
    """The fields in which two observations differ (short)."""
    try:
        names = [f.name for f in fields(before)]
    except TypeError:
        return f"{before!r} != {after!r}"[:400]
    parts = []
    for name in names:
        a, b = getattr(before, name), getattr(after, name)
        if a == b:
            continue
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                if x != y:
                    parts.append(f"{name}[{i}]: {x!r} -> {y!r}"[:300])
        else:
            parts.append(f"{name}: {a!r} -> {b!r}"[:300])
    return "; ".join(parts) or "same fields, different bytes"


def _alternative(
    game: Game[Any, Any, Any, Any],
    spec: Spec,
    rules: Any,
    num_seats: int,
    events: tuple[Event, ...],
    seat: int,
    start: int,
    rng: random.Random,
) -> Iterator[tuple[int, Any, str | None]]:
    """``(step, alternative state, seat's text of the step's event)`` for every step.

    Events before ``start`` are kept; from ``start`` on, chance components ``seat``
    does not own are redrawn and other seats' private action parts re-chosen. The
    text is the engine's description of the alternative event for ``seat``
    (:func:`_seat_text`; ``None`` for step 0).
    """
    intensity = rng.choice((0.2, 0.5, 1.0))
    alt = game.new_game(rules, num_seats)
    yield 0, alt, None
    for index, event in enumerate(events):
        before = alt
        if isinstance(event, ChanceEvent):
            outcome = event.outcome
            if index >= start:
                request = game.chance_request(alt)
                if chance_size(request) != len(outcome):
                    return  # the histories diverged in public
                outcome = _redraw(request, outcome, spec.owners(alt, request), seat, rng, intensity)
            try:
                alt = game.apply_chance(alt, outcome)
            except GameError:
                return
            happened: Event = ChanceEvent(outcome)
        else:
            action = event.action
            public = spec.public_part(action)
            if index >= start and event.seat != seat and public != action:
                candidates = [
                    a
                    for a in game.legal_actions(game.observe(alt, event.seat))
                    if spec.public_part(a) == public
                ]
                if not (action in candidates and rng.random() < 0.5):
                    if not candidates:
                        return
                    action = rng.choice(candidates)
            try:
                alt = game.apply_action(alt, event.seat, action)
            except GameError:
                return
            happened = ActionEvent(event.seat, action)
        yield index + 1, alt, _seat_text(game, before, happened, seat)


def _seat_text(game: Game[Any, Any, Any, Any], before: Any, event: Event, seat: int) -> str | None:
    """What the engine tells ``seat`` of ``event`` (applied to ``before``)."""
    if isinstance(event, ActionEvent):
        return game.describe_action(event.action, viewer=seat, actor=event.seat)
    return game.describe_chance(before, event.outcome, viewer=seat)


def _bytes_after_neighbour(
    game: Game[Any, Any, Any, Any], codec: Codec[Any, Any], state: Any, seat: int, seats: int
) -> bytes:
    """``seat``'s wire bytes, encoded right after the next seat's by the same codec
    (as the referee does), so a codec carrying one seat's secrets into the next
    seat's message is caught too."""
    codec.observation_bytes(game.observe(state, (seat + 1) % seats))
    return codec.observation_bytes(game.observe(state, seat))


def check_no_leak(
    game: Game[Any, Any, Any, Any],
    codec: Codec[Any, Any],
    spec: Spec,
    rules: Any,
    num_seats: int,
    seed: int,
    *,
    alternatives: int = 6,
    min_compared: int = 40,
    window: int = 120,
) -> LeakReport:
    """Play one random match and look for a leak to any seat (see the module doc)."""
    report = LeakReport()
    playout = random_playout(game, rules, num_seats, random.Random(seed))
    events, states = playout.events, playout.states
    chance_steps = [i for i, e in enumerate(events) if isinstance(e, ChanceEvent)]
    rng = random.Random(seed ^ 0x1EA4)
    for seat in range(num_seats):
        truth: dict[int, bytes] = {}
        knows = [spec.knowledge(state, seat) for state in states]
        texts = [None] + [
            _seat_text(game, before, event, seat)
            for before, event in zip(states, events, strict=False)
        ]
        # Start redrawing at a chance node that holds something this seat does not see.
        starts = [
            i
            for i in chance_steps
            if any(
                owner not in (seat, PUBLIC)
                for owner in spec.owners(states[i], game.chance_request(states[i]))
            )
        ]
        seat_compared = report.compared
        for attempt in range(4 * alternatives if starts else 0):
            if attempt >= alternatives and report.compared - seat_compared >= min_compared:
                break
            start = rng.choice(starts)
            alternative = _alternative(game, spec, rules, num_seats, events, seat, start, rng)
            for step, alt, text in alternative:
                if step > start + window:
                    break
                if step < start:
                    continue  # identical prefix
                if spec.knowledge(alt, seat) != knows[step]:
                    break  # the rules now show this seat something different
                # The step's event, as the engine tells this seat, must read the same.
                report.texts_compared += 1
                if text != texts[step]:
                    report.problems.append(
                        f"{game.name} seed {seed}, {num_seats} seats: seat {seat} reads"
                        f" event {step} as {texts[step]!r}, but as {text!r} in a match that"
                        " differs only in what it was not shown"
                    )
                    break
                if step not in truth:
                    truth[step] = _bytes_after_neighbour(game, codec, states[step], seat, num_seats)
                observed = _bytes_after_neighbour(game, codec, alt, seat, num_seats)
                report.compared += 1
                if alt != states[step]:
                    report.hidden_differs += 1
                if observed != truth[step]:
                    report.problems.append(
                        f"{game.name} seed {seed}, {num_seats} seats: seat {seat} at step"
                        f" {step} sees a difference in what it was not shown: "
                        + _diff(game.observe(states[step], seat), game.observe(alt, seat))
                    )
                    break
    return report


# ---------------------------------------------------------------------------
# The cases: several rule variants and seat counts per game


def _cases() -> list[tuple[str, dict[str, str], int, int]]:
    cases: list[tuple[str, dict[str, str], int, int]] = []
    for name in registered_games():
        game = get_game(name)
        rng = random.Random(name)
        options = variants(game)
        picked = rng.sample(options, min(4, len(options)))
        if game.options and game.parse_rules({}) not in [game.parse_rules(r) for r in picked]:
            picked[0] = {}
        for index, raw in enumerate(picked):
            rules = game.parse_rules(raw)
            seat_counts = []
            for n in range(game.min_seats, min(game.max_seats, 4) + 1):
                try:
                    game.check_seats(rules, n)
                except GameError:
                    continue
                seat_counts.append(n)
            seeds = (0, 1) if len(picked) < 4 else (0,)
            for n in seat_counts[index % 2 :: 2] or seat_counts[:1]:
                cases.extend((name, raw, n, 1000 * index + 10 * n + s) for s in seeds)
    return cases


CASES = _cases()


def test_specs_cover_every_game() -> None:
    assert sorted(SPECS) == registered_games()


@pytest.mark.parametrize(
    ("name", "raw", "num_seats", "seed"),
    CASES,
    ids=[
        f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in c[1].items()) or 'default'}-{c[2]}p"
        for c in CASES
    ],
)
def test_no_seat_sees_what_the_rules_hide(
    name: str, raw: dict[str, str], num_seats: int, seed: int
) -> None:
    game = get_game(name)
    report = check_no_leak(
        game, get_codec(name), SPECS[name], game.parse_rules(raw), num_seats, seed
    )
    assert not report.problems, "\n".join(report.problems[:5])
    # Dice Poker shows everything to everyone: nothing to redraw, nothing to compare.
    assert report.compared > 0 or not game.hidden_information
    assert report.texts_compared == report.compared


@pytest.mark.parametrize("name", [n for n in registered_games() if get_game(n).hidden_information])
def test_alternatives_really_change_hidden_information(name: str) -> None:
    """Guard: if no alternative ever differed from the real match, the leak test
    above would pass by comparing a match with itself."""
    game = get_game(name)
    compared = differs = 0
    for case_name, raw, num_seats, seed in CASES:
        if case_name != name:
            continue
        report = check_no_leak(
            game, get_codec(name), SPECS[name], game.parse_rules(raw), num_seats, seed
        )
        compared += report.compared
        differs += report.hidden_differs
    assert differs > 0.3 * compared, f"{name}: {differs} of {compared} comparisons differ"


# ---------------------------------------------------------------------------
# Guards: planted leaks must be reported


def _leaky(game: Game[Any, Any, Any, Any], leak: Callable[[Any, Any, int], Any]) -> Any:
    original = type(game).observe

    def observe(self: Any, state: Any, seat: int) -> Any:
        return leak(original(self, state, seat), state, seat)

    return observe


def _leak_neighbour_die(observation: Any, state: Any, seat: int) -> Any:
    """Liar's Dice: the observer also gets the first die of the next seat's cup."""
    neighbour = state.hands[(seat + 1) % state.num_seats]
    return replace(observation, own_dice=observation.own_dice + neighbour[:1])


def _leak_believed_cards(observation: Any, state: Any, seat: int) -> Any:
    """Cockroach Poker: the history shows the true kind of every believed card."""
    history = tuple(
        replace(view, card=record.card)
        for view, record in zip(observation.history, state.history, strict=True)
    )
    return replace(observation, history=history)


def _leak_exchange_count_as_hand_size(observation: Any, state: Any, seat: int) -> Any:
    """Liar's Poker: a non-holder is shown the hand (as if it held it)."""
    if observation.hand is None and state.phase in ("announce", "respond"):
        return replace(observation, hand=state.hand)
    return observation


def _leak_lpd_dice(observation: Any, state: Any, seat: int) -> Any:
    """Liar's Poker Dice: the responder sees the holder's dice."""
    return replace(observation, dice=state.dice)


PLANTED = [
    ("liars_dice", _leak_neighbour_die),
    ("cockroach_poker", _leak_believed_cards),
    ("liars_poker", _leak_exchange_count_as_hand_size),
    ("liars_poker_dice", _leak_lpd_dice),
]


@pytest.mark.parametrize(("name", "leak"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_leak_is_reported(
    name: str, leak: Callable[[Any, Any, int], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = get_game(name)
    monkeypatch.setattr(type(game), "observe", _leaky(game, leak))
    found = []
    for case_name, raw, num_seats, seed in CASES:
        if case_name == name:
            report = check_no_leak(
                game, get_codec(name), SPECS[name], game.parse_rules(raw), num_seats, seed
            )
            found.extend(report.problems)
    assert found, f"{name}: the planted leak went unnoticed"


def _everyone_reads_as_the_actor(game: Game[Any, Any, Any, Any]) -> Any:
    """A planted text leak: every seat reads an action as the seat that took it."""
    original = type(game).describe_action

    def describe_action(self: Any, action: Any, viewer: Any = None, actor: Any = None) -> str:
        return original(self, action, actor, actor)

    return describe_action


def _everyone_reads_the_omniscient_chance(game: Game[Any, Any, Any, Any]) -> Any:
    """A planted text leak: every seat reads the omniscient chance text."""
    original = type(game).describe_chance

    def describe_chance(self: Any, state: Any, outcome: Any, viewer: Any = None) -> str | None:
        return original(self, state, outcome)

    return describe_chance


PLANTED_TEXTS = [
    ("liars_dice", "describe_chance", _everyone_reads_the_omniscient_chance),
    ("liars_poker_dice", "describe_chance", _everyone_reads_the_omniscient_chance),
    ("liars_poker_dice", "describe_action", _everyone_reads_as_the_actor),
    ("cockroach_poker", "describe_chance", _everyone_reads_the_omniscient_chance),
    ("cockroach_poker", "describe_action", _everyone_reads_as_the_actor),
    ("liars_poker", "describe_chance", _everyone_reads_the_omniscient_chance),
    ("liars_poker", "describe_action", _everyone_reads_as_the_actor),
]


@pytest.mark.parametrize(
    ("name", "method", "leak"), PLANTED_TEXTS, ids=[f"{p[0]}-{p[1]}" for p in PLANTED_TEXTS]
)
def test_a_planted_text_leak_is_reported(
    name: str,
    method: str,
    leak: Callable[[Game[Any, Any, Any, Any]], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Guard: an engine whose per-seat text tells a seat another seat's secret
    (its dice or cards, its discards, its re-rolled positions, the card it passed)
    is caught by the text comparison, whatever its observations say."""
    game = get_game(name)
    monkeypatch.setattr(type(game), method, leak(game))
    found: list[str] = []
    for case_name, raw, num_seats, seed in CASES:
        if case_name == name:
            report = check_no_leak(
                game, get_codec(name), SPECS[name], game.parse_rules(raw), num_seats, seed
            )
            found.extend(p for p in report.problems if " reads event " in p)
    assert found, f"{name}: the planted {method} leak went unnoticed"


def test_a_codec_carrying_one_seats_secret_to_the_next_is_reported() -> None:
    """Guard: the bytes compared come from the shared codec right after another
    seat's encoding, so a codec that remembers the last cup it encoded is caught."""
    game = get_game("liars_dice")
    real = type(get_codec("liars_dice"))

    class Remembering(real):  # type: ignore[valid-type,misc]
        def __init__(self) -> None:
            super().__init__()
            self.last: tuple[int, ...] = ()

        def encode_observation(self, observation: Any) -> Any:
            message = super().encode_observation(observation)
            message.liars_dice.own_dice.extend(self.last[:1])
            self.last = tuple(observation.own_dice)
            return message

    report = check_no_leak(game, Remembering(), SPECS["liars_dice"], game.default_rules(), 3, 40)
    assert report.problems
