"""State digests of record format 3: incremental, yet a function of the state alone.

A :class:`StateDigester` that has followed a match must give every state the
digest a brand-new digester gives it, including when a "history" tuple is
replaced by one that is not an extension of what it saw (a changed past entry).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from referee.core.catalogue import get_game
from referee.core.digests import StateDigester, state_digest, state_digester
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
    assert state_digester(3)(state) == StateDigester()(state) != state_digest(state)
