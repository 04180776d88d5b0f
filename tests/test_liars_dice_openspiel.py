"""Optional cross-check against OpenSpiel's ``liars_dice`` (skipped without pyspiel).

Our engine under :func:`openspiel_rules` must give the same legal moves and the
same winner as OpenSpiel on every random playout (``pip install open_spiel``).
"""

from __future__ import annotations

import random

import pytest

from example_bots.liars_dice_cfr_solver import openspiel_rules
from referee.games.liars_dice.engine import LIARS_DICE, Action, Bid, Challenge

pyspiel = pytest.importorskip("pyspiel")


def _ours(action: int, total: int) -> Action:
    """OpenSpiel's action id as our action: bids are (quantity-1)*6 + face-1, then liar."""
    if action == 6 * total:
        return Challenge()
    return Bid(action // 6 + 1, action % 6 + 1)


@pytest.mark.parametrize("dice", [1, 2])
def test_same_legal_moves_and_winner_as_openspiel(dice: int) -> None:
    game = pyspiel.load_game("liars_dice", {"numdice": dice})
    rules = LIARS_DICE.parse_rules(openspiel_rules(dice))
    rng = random.Random(dice)
    total = 2 * dice
    for _ in range(300):
        theirs = game.new_initial_state()
        rolled: list[int] = []
        while theirs.is_chance_node():
            face = rng.randint(1, 6)
            rolled.append(face)
            theirs.apply_action(face - 1)
        state = LIARS_DICE.apply_chance(LIARS_DICE.new_game(rules, 2), rolled)
        while not theirs.is_terminal():
            seat = theirs.current_player()
            assert LIARS_DICE.to_act(state) == seat
            legal = [_ours(a, total) for a in theirs.legal_actions()]
            assert legal == list(LIARS_DICE.legal_actions(LIARS_DICE.observe(state, seat)))
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            state = LIARS_DICE.apply_action(state, seat, _ours(action, total))
        places = LIARS_DICE.outcome(state).places
        assert theirs.returns() == [1.0 if place == 1 else -1.0 for place in places]
