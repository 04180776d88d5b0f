"""The full-game Liar's Dice CFR bot (issue 31): its solver, its shipped table, its counter.

* the rounds are learnt from the engine: a sum round at one die each, the raise
  graph of ``same-face-or-same-quantity``, and a challenge's outcome checked by hand;
* the solver: a round's value moves towards the equilibrium with iterations (the
  perfect-recall sum round, measured by the engine's exact best response), and the
  key graph with recall 1 and 2 (counted by hand on a tiny round);
* the shipped table covers every round of up to five dice each, its bids are the
  engine's, and the bot plays whole matches against the posterior bot and its own
  counter with legal moves only, its ``policy()`` a distribution;
* the counter's posterior over the bot's hand is exact Bayes on the table.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from example_bots.liars_dice_cfr_full import (
    TABLE,
    FullCfrLiarsDiceBot,
    FullTable,
    supported,
)
from example_bots.liars_dice_cfr_full_counter import (
    FullCfrCounterLiarsDiceBot,
    counter_move,
    hand_posterior,
)
from example_bots.liars_dice_cfr_full_solver import (
    MAX_DICE,
    KeyGraph,
    RoundSolver,
    build_round,
    hands_of,
    solve_all,
)
from example_bots.liars_dice_posterior import PosteriorLiarsDiceBot
from referee.analysis.best_response import GameTree, exploitability, policy_from
from sdk.bot import MatchInfo
from sdk.liars_dice import LIARS_DICE, Bid, Challenge, Observation, PlacedBid, SumBid
from sdk.local import play_local


def test_one_die_each_is_the_sum_round() -> None:
    game = build_round(1, 1)
    assert game.bids == tuple(SumBid(total) for total in range(2, 13))
    assert game.raises[0] == tuple(range(1, 11))
    # 6 + 5 = 11 makes "at least 11" true and "at least 12" false.
    assert game.true[game.bids.index(SumBid(11)), 5, 4]
    assert not game.true[game.bids.index(SumBid(12)), 5, 4]


def test_a_round_learns_the_raise_graph_and_the_counts_from_the_engine() -> None:
    game = build_round(2, 1)
    assert len(game.bids) == 18  # 3 dice on the table x 6 faces
    two_fours = game.bids.index(Bid(2, 4))
    raised = {game.bids[i] for i in game.raises[two_fours]}
    # same face and more of it, or the same quantity of a higher face
    assert raised == {Bid(3, 4), Bid(2, 5), Bid(2, 6)}
    hands0, _ = hands_of(2)
    hands1, _ = hands_of(1)
    x0, x1 = hands0.index((4, 4)), hands1.index((4,))
    assert game.true[game.bids.index(Bid(3, 4)), x0, x1]
    assert not game.true[game.bids.index(Bid(3, 4)), hands0.index((1, 4)), x1]


def test_the_key_graph_counts_its_keys() -> None:
    game = build_round(1, 1)  # 11 sum bids, any higher total raises
    one = KeyGraph(game, recall=1)
    # seat 0: the opening and each bid seat 1 can have made (not the lowest total);
    # seat 1: each bid seat 0 can have made (any but the highest can be raised to).
    assert one.sizes == (1 + 10, 11)
    two = KeyGraph(game, recall=2)
    # seat 1 after the opening: 11 keys (one bid); after two more bids: pairs i < j.
    pairs = 11 * 10 // 2
    assert two.sizes[1] == 11 + (pairs - 10)  # pairs whose first bid seat 0 opened after 1
    assert two.sizes[0] == 1 + pairs


def test_cfr_iterations_approach_the_equilibrium_of_the_sum_round() -> None:
    game = build_round(1, 1)
    gaps = []
    for iterations in (5, 200):
        solver = RoundSolver(game, (-1.0, 1.0), tremble=0.0, recall=11)  # perfect recall
        solver.iterate(iterations)
        gaps.append(exploitability_of_sum_round(solver))
    assert gaps[1] < gaps[0] / 4
    assert gaps[1] < 0.01


def exploitability_of_sum_round(solver: RoundSolver) -> float:
    """The engine's exact best response against the solver's average strategy, on
    our rules with one die each (a match is one sum round)."""
    average = solver.average()
    graph = solver.graph
    keys = {key: i for i, key in enumerate(graph.keys)}
    game = solver.game
    rules = LIARS_DICE.parse_rules({"dice_per_player": "1", "roll_off": "false"})
    tree = GameTree(LIARS_DICE, rules)

    def choose(observation: Any, actions: tuple[Any, ...]) -> list[float]:
        role = 0 if observation.to_act == observation.opener else 1
        tail = tuple(game.bids.index(placed.bid) for placed in observation.bids)
        key = keys[(role, tail[-graph.recall :])]
        row = average[role][graph.own_index[key], observation.own_dice[0] - 1]
        index = {action: i for i, action in enumerate((*game.bids, Challenge()))}
        return [float(row[index[action]]) for action in actions]

    value, _ = exploitability(tree, [policy_from(tree, seat, choose) for seat in (0, 1)])
    return value


def test_solve_all_chains_the_rounds_through_their_values() -> None:
    solved = solve_all(2, 30, recall=1)
    assert set(solved) == {(1, 1), (1, 2), (2, 1), (2, 2)}
    # a die up is worth most of the match; the opener of an even round about half
    assert solved[(2, 1)].value > 0.75 > 0.25 > solved[(1, 2)].value
    assert 0.4 < solved[(2, 2)].value < 0.6


def test_the_shipped_table_covers_every_round_with_the_engines_bids() -> None:
    table = FullTable(TABLE)
    assert set(table.rounds) == {
        (a, b) for a in range(1, MAX_DICE + 1) for b in range(1, MAX_DICE + 1)
    }
    for (a, b), round_table in table.rounds.items():
        assert tuple(round_table.bids) == build_round(a, b).bids
        rows = round_table.seats[0]
        assert rows.shape[1] == len(hands_of(a)[0])
        sums = rows.sum(axis=2)
        assert (abs(sums.astype(int) - 255) <= rows.shape[2]).all()


def info(dice: int = 5, seats: int = 2, **rules: str) -> MatchInfo:
    raw = {"dice_per_player": str(dice), **rules}
    return MatchInfo("m", "liars_dice", None, 0, seats, raw)


def test_supported_rules_are_the_defaults_with_up_to_five_dice_and_two_seats() -> None:
    assert supported(info(5)) and supported(info(1)) and supported(info(3, roll_off="false"))
    assert not supported(info(6))
    assert not supported(info(5, seats=3))
    assert not supported(info(5, wild_face="1"))
    assert not supported(info(5, raise_rule="reset-face"))


@pytest.mark.parametrize("dice", [1, 2, 5])
def test_the_bot_plays_whole_matches_with_legal_moves(dice: int) -> None:
    for seed in range(3):
        for bots in (
            [FullCfrLiarsDiceBot, PosteriorLiarsDiceBot],
            [FullCfrCounterLiarsDiceBot, FullCfrLiarsDiceBot],
        ):
            result = play_local("liars_dice", bots, seed=seed, rules={"dice_per_player": str(dice)})
            assert sorted(result.outcome.places) == [1, 2]


def test_other_rules_fall_back_to_the_posterior_bot() -> None:
    result = play_local(
        "liars_dice",
        [FullCfrLiarsDiceBot, FullCfrLiarsDiceBot, PosteriorLiarsDiceBot],
        seed=1,
        rules={"wild_face": "1"},
    )
    assert sorted(result.outcome.places)[0] == 1


def opening_view(dice: tuple[int, ...]) -> Observation:
    rules = LIARS_DICE.parse_rules({"roll_off": "false"})
    state = LIARS_DICE.new_game(rules, 2)
    state = LIARS_DICE.apply_chance(state, [*dice, 1, 1, 2, 3, 4])
    return LIARS_DICE.observe(state, 0)


def test_policy_is_a_distribution_over_legal_actions() -> None:
    table = FullTable(TABLE)
    view = opening_view((2, 2, 5, 6, 6))
    policy = table.probabilities(view)
    assert abs(sum(policy.values()) - 1) < 1e-9
    assert all(isinstance(action, Bid) for action in policy)


def test_the_counter_reads_the_bots_hand_by_bayes_on_the_table() -> None:
    table = FullTable(TABLE)
    opening = opening_view((2, 2, 5, 6, 6))
    # Seat 0 opens 1x6, then seat 1 raises to 2x6 and seat 0 to 3x6: what seat 1's
    # counter believes about seat 0's hand is the prior times the table's
    # probability of both of seat 0's bids, per hand.
    round_table, at_opening = table.rows(opening)
    bids = (PlacedBid(0, Bid(1, 6)), PlacedBid(1, Bid(2, 6)), PlacedBid(0, Bid(3, 6)))
    after_two = dataclasses.replace(opening, bids=bids[:2])
    _, at_second = table.rows(after_two)
    _, prior = hands_of(5)
    expected = (
        prior
        * at_opening[:, round_table.bids[Bid(1, 6)]]
        * at_second[:, round_table.bids[Bid(3, 6)]]
    )
    expected /= expected.sum()
    view = dataclasses.replace(
        opening,
        seat=1,
        to_act=1,
        own_dice=(1, 1, 2, 3, 4),
        bids=bids,
    )
    posterior = hand_posterior(table, view)
    assert np.allclose(posterior, expected)
    # Hands with more 6s are likelier after bids on 6s than before.
    sixes = np.array([hand.count(6) for hand in hands_of(5)[0]])
    assert posterior @ sixes > prior @ sixes + 0.5


def test_the_counter_challenges_what_the_table_must_be_bluffing() -> None:
    table = FullTable(TABLE)
    opening = opening_view((2, 2, 5, 6, 6))
    # Seat 0 (the table) opens 6x6; seat 1 holds no 6, so the bid is false whatever
    # seat 0 holds: a challenge cannot lose, every raise can. The counter challenges.
    view = dataclasses.replace(
        opening,
        seat=1,
        to_act=1,
        own_dice=(1, 1, 2, 3, 4),
        bids=(PlacedBid(0, Bid(6, 6)),),
    )
    assert counter_move(table, view) == Challenge()
