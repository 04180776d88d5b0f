"""Invariants of Liar's Dice over random legal play, for every option combination."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.events import ActionEvent, replay
from referee.core.playout import Playout, random_playout
from referee.gamekit.base import CHANCE
from referee.games.liars_dice.codec import LiarsDiceCodec
from referee.games.liars_dice.engine import LIARS_DICE, RAISE_RULES, WILD_FACES, Rules, State

G = LIARS_DICE
CODEC = LiarsDiceCodec()

COMBINATIONS = [
    {
        "raise_rule": raise_rule,
        "wild_face": wild_face,
        "sum_endgame": sum_endgame,
        "one_round": one_round,
        "roll_off": roll_off,
    }
    for raise_rule, wild_face, sum_endgame, one_round, roll_off in itertools.product(
        RAISE_RULES, WILD_FACES, (True, False), (True, False), (True, False)
    )
] + [
    # wild_opening=keep only matters when a face is wild.
    {
        "raise_rule": raise_rule,
        "wild_face": wild_face,
        "wild_opening": "keep",
        "sum_endgame": True,
        "one_round": one_round,
        "roll_off": False,
    }
    for raise_rule, wild_face, one_round in itertools.product(
        RAISE_RULES, ("1", "6"), (True, False)
    )
]


def check_playout(rules: Rules, seats: int, seed: int) -> int:
    """Play one random match and check every invariant; return how many states a
    perturbation of hidden information changed (the leak check is not vacuous)."""
    rng = random.Random(seed)
    playout: Playout = random_playout(G, rules, seats, rng)
    final: State = playout.final

    # Terminates with a consistent outcome.
    assert G.is_terminal(final)
    outcome = G.outcome(final)
    assert sorted(outcome.places)[0] == 1
    assert outcome.scores == tuple(float(count) for count in final.dice_counts)
    if rules.one_round:
        assert len(final.history) == 1
        loser = final.history[0].loser
        assert outcome.places[loser] == seats
        assert all(place == 1 for seat, place in enumerate(outcome.places) if seat != loser)
    else:
        assert sum(1 for count in final.dice_counts if count) == 1
        assert sorted(outcome.places) == list(range(1, seats + 1))
        assert len(final.eliminated) == seats - 1
    assert sum(final.dice_counts) == seats * rules.dice_per_player - len(final.history)

    # Replaying the events reproduces every state and the outcome.
    replayed = replay(G, rules, seats, playout.events)
    assert tuple(replayed) == playout.states
    assert G.outcome(replayed[-1]) == outcome

    # No leak, codec round trip, and legality agreement.
    perturb_rng = random.Random(seed + 1)
    changed = 0
    for state, event in zip(playout.states, (*playout.events, None), strict=True):
        for seat in range(seats):
            observation = G.observe(state, seat)
            perturbed = G.perturb_hidden(state, seat, perturb_rng)
            changed += perturbed != state
            assert G.observe(perturbed, seat) == observation
            data = CODEC.observation_bytes(observation)
            assert CODEC.observation_bytes(G.observe(perturbed, seat)) == data
            assert CODEC.decode_observation(CODEC.encode_observation(observation)) == observation
            assert observation.own_dice == state.hands[seat]
        if isinstance(event, ActionEvent):
            action = event.action
            assert CODEC.decode_action(CODEC.encode_action(action)) == action
            assert G.to_act(state) == event.seat
            legal = G.legal_actions(G.observe(state, event.seat))
            assert action in legal
            assert len(set(legal)) == len(legal)
            for other in range(seats):
                if other != event.seat:
                    assert G.legal_actions(G.observe(state, other)) == []
        elif event is not None:
            assert G.to_act(state) == CHANCE
    return changed


@pytest.mark.parametrize("options", COMBINATIONS, ids=lambda o: "-".join(map(str, o.values())))
def test_every_option_combination(options: dict[str, str | bool]) -> None:
    changed = 0
    for seats, dice in ((2, 2), (3, 1), (4, 2)):
        rules = G.parse_rules({**options, "dice_per_player": dice})
        changed += check_playout(rules, seats, seed=10 * seats + dice)
    assert changed > 0


@settings(max_examples=150, deadline=None)
@given(
    options=st.sampled_from(COMBINATIONS),
    seats=st.integers(min_value=2, max_value=5),
    dice=st.integers(min_value=1, max_value=3),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_play_invariants(
    options: dict[str, str | bool], seats: int, dice: int, seed: int
) -> None:
    rules = G.parse_rules({**options, "dice_per_player": dice})
    check_playout(rules, seats, seed)


def test_default_rules_full_size() -> None:
    changed = check_playout(G.default_rules(), 6, seed=2024)
    assert changed > 0
