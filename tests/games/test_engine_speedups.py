"""The engines' fast paths give what the plain code gives.

* Liar's Dice's legal actions (slices of precomputed bids) equal the plain rule, a
  loop over every bid with ``is_raise`` and the made-bids check, in the same order,
  in random states of every raise rule; ``legal_count`` is their number; the quick
  legality check agrees with the full one.
* :func:`referee.gamekit.fast.maker` / :func:`~referee.gamekit.fast.evolver` build the
  instances ``__init__`` / :func:`dataclasses.replace` build, still frozen.
* :class:`~referee.gamekit.fast.FastChance` is deterministic, in range and uniform
  enough, and ``play_local(fast_chance=True)`` is reproducible and opt-in.

The seeded-match digests (``test_seeded_digests.py``) pin the rest.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import random
from collections import Counter
from typing import Any

import pytest

from referee.core.catalogue import get_game
from referee.gamekit.base import CHANCE, DiceRoll, GameError, Shuffle, check_chance, draw_chance
from referee.gamekit.cards import POKER_DECK
from referee.gamekit.dice import FACES
from referee.gamekit.fast import evolver, maker
from referee.gamekit.fast_chance import FastChance
from referee.gamekit.poker_hands import all_announcements
from referee.games.dice_poker import engine as dice_poker
from referee.games.liars_dice.engine import (
    LIARS_DICE,
    MAX_TOTAL,
    MIN_TOTAL,
    Bid,
    Challenge,
    Observation,
    State,
    SumBid,
    is_raise,
)
from referee.games.liars_poker.engine import Announce, Exchange, announce_actions, exchanges
from sdk.local import play_callables, play_local


def plain_legal_actions(observation: Observation) -> list[Any]:
    """Liar's Dice's legal actions as the rules say them, bid by bid."""
    if observation.to_act != observation.seat:
        return []
    last = observation.last_bid
    actions: list[Any] = []
    if observation.sum_round:
        low = last.total + 1 if isinstance(last, SumBid) else MIN_TOTAL
        actions.extend(SumBid(total) for total in range(low, MAX_TOTAL + 1))
    else:
        made = {placed.bid for placed in observation.bids}
        rule = observation.rules.raise_rule
        for quantity in range(1, observation.total_dice + 1):
            for face in FACES:
                bid = Bid(quantity, face)
                if bid in made:
                    continue
                if isinstance(last, Bid) and not is_raise(rule, last, bid):
                    continue
                actions.append(bid)
    if last is not None:
        actions.append(Challenge())
    return actions


RULES = [
    {"raise_rule": rule, "wild_face": wild, "dice_per_player": str(dice)}
    for rule in ("same-face-or-same-quantity", "quantity-or-face", "reset-face")
    for wild in ("none", "6")
    for dice in (1, 3, 5)
]


@pytest.mark.parametrize("raw", RULES, ids=lambda raw: "-".join(raw.values()))
def test_liars_dice_legal_actions_equal_the_plain_rule(raw: dict[str, str]) -> None:
    rules = LIARS_DICE.parse_rules(raw)
    rng = random.Random(str(raw))
    checked = 0
    for seats in (2, 3):
        for _ in range(6):
            state = LIARS_DICE.new_game(rules, seats)
            while (actor := LIARS_DICE.to_act(state)) is not None:
                if actor == CHANCE:
                    request = LIARS_DICE.chance_request(state)
                    state = LIARS_DICE.apply_chance(state, draw_chance(request, rng))
                    continue
                for seat in range(seats):
                    view = LIARS_DICE.observe(state, seat)
                    legal = list(LIARS_DICE.legal_actions(view))
                    assert legal == plain_legal_actions(view), view
                    assert LIARS_DICE.legal_count(view) == len(legal)
                    checked += 1
                view = LIARS_DICE.observe(state, actor)
                legal = list(LIARS_DICE.legal_actions(view))
                # every bid of the table: accepted exactly when listed
                for quantity in range(1, view.total_dice + 2):
                    for face in FACES:
                        bid = Bid(quantity, face)
                        try:
                            LIARS_DICE.check_action(view, bid)
                        except GameError:
                            assert bid not in legal
                        else:
                            assert bid in legal
                action = legal[rng.randrange(len(legal))]
                state = LIARS_DICE.apply_action(state, actor, action)
    assert checked > 100


def test_maker_and_evolver_build_what_init_and_replace_build() -> None:
    state = LIARS_DICE.new_game(LIARS_DICE.default_rules(), 3)
    values = [getattr(state, field.name) for field in dataclasses.fields(State)]
    made = maker(State)(*values)
    assert type(made) is State and made == state and repr(made) == repr(state)
    evolved = evolver(State)(state, round_number=7, to_move=2)
    assert evolved == dataclasses.replace(state, round_number=7, to_move=2)
    assert evolver(State)(state) == state
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.round_number = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        evolver(State)(state, no_such_field=1)

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        value: int

    with pytest.raises(TypeError):
        maker(NoSlots)


def test_fast_chance_is_deterministic_and_in_range() -> None:
    first, second = FastChance(7), FastChance(7)
    rolls = [first.roll(10, 6) for _ in range(50)]
    assert rolls == [second.roll(10, 6) for _ in range(50)]
    assert FastChance(8).roll(10, 6) != rolls[0]
    assert all(len(roll) == 10 and set(roll) <= set(FACES) for roll in rolls)
    counts = Counter(FastChance(1).roll(60_000, 6))
    assert all(9_300 < counts[face] < 10_700 for face in FACES)
    chance = FastChance("x")
    assert sorted(chance.permutation(52)) == list(range(52))
    assert chance.permutation(52) != chance.permutation(52)
    assert all(1 <= chance.randint(1, 3) <= 3 for _ in range(100))
    assert check_chance(DiceRoll(5), draw_chance(DiceRoll(5), chance))
    assert check_chance(Shuffle(9), draw_chance(Shuffle(9), chance))
    assert "x" not in repr(chance)


def test_fast_chance_in_local_play_is_reproducible_and_opt_in() -> None:
    def first(observation: Any) -> Any:
        return get_game("liars_dice").legal_actions(observation)[0]

    fast = [play_callables("liars_dice", [first, first], seed=3, fast_chance=True) for _ in "ab"]
    assert fast[0] == fast[1]
    keyed = play_callables("liars_dice", [first, first], seed=3)
    assert keyed.events[0] != fast[0].events[0]
    assert keyed == play_callables("liars_dice", [first, first], seed=3, fast_chance=False)
    with pytest.raises(ValueError, match="chance key"):
        play_local("liars_dice", [], seed=3, chance_key=b"k" * 32, fast_chance=True)


def test_liars_poker_exchanges_and_announcements_equal_the_plain_rule() -> None:
    def plain_exchanges(hand: Any) -> tuple[Exchange, ...]:
        seen: dict[Any, None] = {}
        ordered = sorted(hand)
        for count in range(min(4, len(ordered)) + 1):
            for combo in itertools.combinations(ordered, count):
                seen.setdefault(combo, None)
        return tuple(Exchange(combo) for combo in seen)

    rng = random.Random(5)
    hands = [tuple(rng.sample(POKER_DECK, 5)) for _ in range(300)]
    hands += [POKER_DECK[-2:] + POKER_DECK[:3], POKER_DECK[-1:] + POKER_DECK[10:14], ()]
    for hand in hands:
        assert exchanges(hand) == plain_exchanges(hand), hand
    announcements = all_announcements()
    for last in [None, *rng.sample(announcements, 40), announcements[-1]]:
        start = 0 if last is None else bisect.bisect_right(announcements, last)
        assert announce_actions(last) == tuple(Announce(a) for a in announcements[start:])
        if last is not None:  # an equal announcement that is not the table's own object
            copy = dataclasses.replace(last)
            assert announce_actions(copy) == announce_actions(last)


def test_dice_poker_points_per_throw_equal_line_points() -> None:
    for dice in itertools.product(FACES, repeat=5):
        expected = tuple(dice_poker.line_points(line, dice) for line in dice_poker.Line)
        assert dice_poker._points_by_line(dice) == expected, dice
        assert dice_poker._points_by_line(tuple(sorted(dice))) == expected, dice
