"""The CFR+ solver for small one-round Liar's Dice and the bot that plays it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from example_bots import liars_dice_cfr as cfr_bot
from example_bots.liars_dice_cfr import CfrLiarsDiceBot, load_policy, supported_dice
from example_bots.liars_dice_cfr_solver import (
    GAME_VALUE_ONE_DIE,
    Array,
    BoundedRecallSolver,
    SmallGame,
    Solver,
    SolverError,
    build_game,
    history_of,
    main,
    openspiel_rules,
)
from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from referee.core.events import ActionEvent
from referee.games.liars_dice.engine import Bid, Challenge, Observation
from sdk.bot import MatchInfo, Mixed
from sdk.liars_dice import is_legal
from sdk.local import BotFactory, play_local


@pytest.fixture(scope="module")
def one_die() -> SmallGame:
    return build_game(1)


@pytest.fixture(scope="module")
def two_dice() -> SmallGame:
    return build_game(2)


def test_the_game_comes_from_the_engine(one_die: SmallGame, two_dice: SmallGame) -> None:
    assert len(one_die.bids) == 12
    assert one_die.bids[:3] == (Bid(1, 1), Bid(1, 2), Bid(1, 3))
    assert one_die.bids[6] == Bid(2, 1)
    assert one_die.hands == tuple((face,) for face in range(1, 7))
    # The example under wild_opening=keep: {6} and {3}, "two 3s" is true,
    # "two 6s" is not (a bid on the wild face counts only real 6s).
    six, three = one_die.hands.index((6,)), one_die.hands.index((3,))
    assert one_die.bidder_wins[one_die.bids.index(Bid(2, 3)), six, three] == 1
    assert one_die.bidder_wins[one_die.bids.index(Bid(2, 6)), six, three] == 0
    two = two_dice
    assert (len(two.bids), len(two.hands)) == (24, 21)
    assert two.weights.sum() == pytest.approx(1.0)
    assert two.weights[two.hands.index((1, 2))] == pytest.approx(2 / 36)


def test_unsupported_sizes_are_named_errors(one_die: SmallGame, two_dice: SmallGame) -> None:
    with pytest.raises(SolverError, match="dice=3"):
        build_game(3)
    with pytest.raises(SolverError, match="perfect recall with 2 dice"):
        Solver(two_dice)
    with pytest.raises(SolverError, match="recall=0"):
        BoundedRecallSolver(one_die, 0)


def _tiny_strategy(rows: int, key_of_root: int, game: SmallGame) -> Array:
    """Seat 0 opens "one 1" whatever it holds; after that everyone challenges."""
    table = np.zeros((rows, len(game.hands), game.num_bids + 1))
    table[:, :, game.num_bids] = 1.0
    table[key_of_root] = 0.0
    table[key_of_root, :, 0] = 1.0
    return table


def test_best_response_to_a_hand_made_strategy(one_die: SmallGame) -> None:
    """Checked by hand. Seat 0 always opens 1 x 1 (true iff a die shows 1 or the
    wild 6) and challenges anything; seat 1 always challenges.

    * Value to seat 0: the opening is true with probability 1 - (4/6)**2 = 5/9,
      so 5/9 - 4/9 = 1/9.
    * Seat 0's best response: open "one" of its own face (always true): +1.
    * Seat 1's best response: holding 2..6, raise to "one" of a face it holds or
      covers with its 6 (true, and seat 0 challenges): +1. Holding a 1 the 1 x 1
      is true, so challenging loses; the best raise (2 x 1, or one 2..5) is true
      only if seat 0 has that face or a 6: 2/6 - 4/6 = -1/3. Total
      5/6 - 1/18 = 7/9.
    """
    tree = Solver(one_die)
    table = _tiny_strategy(tree.size, 0, one_die)
    assert tree.value(table) == pytest.approx(1 / 9)
    assert tree.best_response_value(0, table) == pytest.approx(1.0)
    assert tree.best_response_value(1, table) == pytest.approx(7 / 9)
    measure = tree.measure(table)
    assert measure.nash_conv == pytest.approx(16 / 9)
    assert measure.exploitability == pytest.approx(8 / 9)
    # The same strategy through the bounded-recall keys gives the same numbers.
    bounded = BoundedRecallSolver(one_die, 1)
    keyed = _tiny_strategy(len(bounded.keys), 0, one_die)
    assert bounded.value(keyed) == pytest.approx(1 / 9)
    assert bounded.measure(strategy=keyed).best_response == pytest.approx((1.0, 7 / 9))


def test_bounded_recall_values_match_the_full_tree(one_die: SmallGame) -> None:
    rng = np.random.default_rng(5)
    for recall in (1, 2):
        bounded = BoundedRecallSolver(one_die, recall)
        raw = rng.random(bounded.regrets.shape)
        strategy = bounded._matching(raw)
        tree = bounded.tree()
        assert bounded.value(strategy) == pytest.approx(tree.value(strategy))


def test_cfr_plus_converges_to_the_one_die_game_value(one_die: SmallGame) -> None:
    solver = Solver(one_die)
    solver.iterate(10)
    early = solver.measure()
    solver.iterate(90)
    late = solver.measure()
    assert early.exploitability > late.exploitability
    assert late.exploitability < 0.01
    assert abs(late.value - GAME_VALUE_ONE_DIE) < 0.002
    # Best responses bracket the game value.
    assert late.best_response[0] >= GAME_VALUE_ONE_DIE >= -late.best_response[1]
    assert Fraction(GAME_VALUE_ONE_DIE).limit_denominator(1000) == Fraction(-7, 258)


def test_history_bitmask(one_die: SmallGame) -> None:
    assert history_of(one_die, []) == 0
    assert history_of(one_die, [Bid(1, 2), Bid(2, 1)]) == 0b1000010
    with pytest.raises(SolverError, match="Bid"):
        history_of(one_die, [Bid(3, 1)])


# ---------------------------------------------------------------------------
# the bot


class CheckingCfrBot(CfrLiarsDiceBot):
    def act(self, observation: Observation) -> Any:
        action = super().act(observation)
        stated = action.probabilities if isinstance(action, Mixed) else {action: 1.0}
        assert all(is_legal(observation, a) for a, p in stated.items() if p > 0)
        return action


@pytest.mark.parametrize("dice", [1, 2])
@pytest.mark.parametrize("roll_off", ["false", "true"])
def test_bot_plays_the_openspiel_configuration(dice: int, roll_off: str) -> None:
    rules = {**openspiel_rules(dice), "roll_off": roll_off}
    for seed in range(6):
        bots: list[BotFactory] = [CheckingCfrBot, ProbabilityLiarsDiceBot]
        if seed % 2:
            bots.reverse()
        match = play_local("liars_dice", bots, seed=seed, rules=rules)
        assert sorted(match.outcome.places) == [1, 2]


def test_bot_self_play_and_determinism() -> None:
    rules = openspiel_rules(1)
    first = play_local("liars_dice", [CheckingCfrBot, CheckingCfrBot], seed=9, rules=rules)
    again = play_local("liars_dice", [CheckingCfrBot, CheckingCfrBot], seed=9, rules=rules)
    assert first == again
    assert isinstance(first.events[-1], ActionEvent)
    assert first.events[-1].action == Challenge()


def test_bot_falls_back_on_other_rules(capsys: pytest.CaptureFixture[str]) -> None:
    bots: list[BotFactory] = [CheckingCfrBot, ProbabilityLiarsDiceBot, ProbabilityLiarsDiceBot]
    match = play_local("liars_dice", bots, seed=1, rules={"dice_per_player": "2"})
    assert sorted(match.outcome.places) == [1, 2, 3]
    assert "playing the probability bot's policy" in capsys.readouterr().err


def test_supported_dice() -> None:
    def info(rules: dict[str, str], seats: int = 2) -> MatchInfo:
        return MatchInfo("m", "liars_dice", None, 0, seats, raw_rules=rules)

    assert supported_dice(info(openspiel_rules(1))) == 1
    assert supported_dice(info({**openspiel_rules(2), "roll_off": "true"})) == 2
    assert supported_dice(info(openspiel_rules(3))) is None
    assert supported_dice(info({**openspiel_rules(1), "wild_opening": "cancel"})) is None
    assert supported_dice(info(openspiel_rules(1), seats=3)) is None


@pytest.mark.parametrize("dice", [1, 2])
def test_cached_tables_fit_the_engine(dice: int) -> None:
    policy, source = load_policy(dice)
    assert source.startswith("cached table"), source
    sums = policy.table.sum(axis=2)
    assert np.allclose(sums, 1.0, atol=1e-4)


@pytest.mark.parametrize("dice", [1, 2])
def test_missing_cache_falls_back_to_a_start_up_solve(
    dice: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(cfr_bot, "table_path", lambda dice: tmp_path / f"{dice}.npz")
    monkeypatch.setattr(cfr_bot, "STARTUP_ITERATIONS", {1: 3, 2: 3})
    policy, source = load_policy(dice)
    assert source == "3 iterations"
    assert np.allclose(policy.table.sum(axis=2), 1.0)


def test_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    main(["convergence", "--dice", "1", "--checkpoints", "1,2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| iterations |") and len(lines) == 4
    out = tmp_path / "table.npz"
    main(["write-table", "--dice", "1", "--iterations", "2", "--out", str(out)])
    with np.load(out) as saved:
        assert saved["average"].shape == (4096, 6, 13)
        assert int(saved["iterations"]) == 2
