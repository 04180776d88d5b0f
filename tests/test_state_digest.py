"""State digests of record formats 3 on: incremental, yet a function of the state alone.

A :class:`StateDigester` that has followed a match must give every state the
digest a brand-new digester gives it, including when a "history" tuple is
replaced by one that is not an extension of what it saw (a changed past entry).
From format 5 values are written in canonical form, not as their ``repr``: a rule
option added with a default leaves every digest as it was.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field, replace
from fractions import Fraction

import pytest

from referee.core.catalogue import get_game
from referee.core.digests import (
    CanonicalFormError,
    StateDigester,
    canonical,
    repr_form,
    state_digest,
    state_digester,
)
from referee.core.playout import random_playout
from tests.game_plugins import registered_games

GAME_NAMES = registered_games()


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", range(3))
def test_incremental_digests_equal_fresh_ones(name: str, seed: int) -> None:
    game = get_game(name)
    seats = min(game.max_seats, max(game.min_seats, 3))
    playout = random_playout(game, game.default_rules(), seats, random.Random(seed))
    following = StateDigester()
    digests = [following(state) for state in playout.states]
    assert digests == [StateDigester()(state) for state in playout.states]
    assert len(set(digests)) > len(digests) // 2  # states differ, so do most digests


def _long_state() -> object:
    game = get_game("liars_poker")
    rules = game.parse_rules({"chips_variant": "true", "starting_chips": "20"})
    playout = random_playout(game, rules, 2, random.Random(5))
    return next(s for s in reversed(playout.states) if len(s.results) > 5)


def test_a_changed_past_entry_changes_the_digest() -> None:
    state = _long_state()
    results = state.results  # type: ignore[attr-defined]
    first = results[0]
    changed = replace(state, results=(replace(first, truthful=not first.truthful), *results[1:]))  # type: ignore[type-var]
    digester = StateDigester()
    before = digester(state)
    after = digester(changed)
    assert after != before
    assert after == StateDigester()(changed)


def test_an_appended_entry_is_hashed_as_from_scratch() -> None:
    state = _long_state()
    results = state.results  # type: ignore[attr-defined]
    shorter = replace(state, results=results[:-1])  # type: ignore[type-var]
    digester = StateDigester()
    digester(shorter)
    assert digester(state) == StateDigester()(state)


def test_older_formats_keep_the_repr_digest() -> None:
    state = _long_state()
    assert state_digester(2)(state) == state_digest(state)
    assert state_digester(3)(state) == StateDigester(repr_form)(state) != state_digest(state)
    assert state_digester(4)(state) == state_digester(3)(state)
    assert state_digester(5)(state) == StateDigester(canonical)(state) != state_digester(4)(state)


class Suit(enum.Enum):
    HEARTS = "h"


@dataclass(frozen=True)
class Card:
    rank: int
    suit: Suit


@dataclass(frozen=True)
class Rules:
    decks: int = 1


@dataclass(frozen=True)
class State:
    rules: Rules
    hand: tuple[Card, ...]
    to_act: int | None
    name: str = "é"
    seen: frozenset[int] = frozenset()
    odds: Fraction = Fraction(1, 3)
    over: bool = False
    note: str = field(default="", compare=False)


def test_canonical_forms_by_hand() -> None:
    assert canonical(None) == b"N"
    assert canonical((True, False)) == b"(2TF)"
    assert canonical(-12) == b"i-12;"
    assert canonical("é") == b"s2:\xc3\xa9"
    assert canonical(Fraction(2, 6)) == b"q1/3;"
    assert canonical(Suit.HEARTS) == b"es6:HEARTS"
    assert canonical(frozenset({10, 2})) == b"{2i10;i2;}"  # entries' forms, sorted
    state = State(Rules(), (Card(12, Suit.HEARTS),), None, seen=frozenset({3}), over=True)
    assert canonical(state) == (
        b"ds5:State"
        b"s5:rulesds5:Rules."  # decks is at its default: left out
        b"s4:hand(1ds4:Cards4:ranki12;s4:suites6:HEARTS.)"
        b"s6:to_actN"
        b"s4:seen{1i3;}"  # name and odds at their defaults: left out
        b"s4:overT."  # note does not take part in equality: never written
    )
    assert canonical(replace(state, note="x")) == canonical(state)
    assert canonical(replace(state, rules=Rules(2))) != canonical(state)
    with pytest.raises(CanonicalFormError, match=r"float value 0\.5"):
        canonical(0.5)


def test_a_rule_option_added_with_its_default_keeps_every_digest() -> None:
    """The reason for the canonical form: ``repr`` lists the new option, so every
    record made before it would no longer verify (why two engines' rules override
    ``__repr__``, for records of formats 3 and 4)."""

    @dataclass(frozen=True)
    class Rules:  # the same rules, one option later
        decks: int = 1
        jokers: bool = False

    old = State(_old_rules(), (Card(3, Suit.HEARTS),), 1)
    new = State(Rules(), (Card(3, Suit.HEARTS),), 1)  # type: ignore[arg-type]
    assert repr(old) != repr(new)
    assert StateDigester(repr_form)(old) != StateDigester(repr_form)(new)
    assert StateDigester(canonical)(old) == StateDigester(canonical)(new)
    assert StateDigester(canonical)(replace(new, rules=Rules(jokers=True))) != (  # type: ignore[arg-type]
        StateDigester(canonical)(old)
    )


def _old_rules() -> Rules:
    """The module's ``Rules`` (the test's own class of that name shadows it there)."""
    return Rules()
