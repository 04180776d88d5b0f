"""The counter-strategy bots (issue 22) and ``bench.counters``, which measures the
strong bots' worst case against them.

* every bot of every game's ``Roster.counter_set`` plays whole matches in process
  (``sdk.local.play_local`` raises on an illegal action) under each rule variant
  and table size it claims, in the first and the last seat;
* the habits that make them counters: the rule-out test of Liar's Poker, the
  lowered thresholds, the truthful Cockroach Poker bot's forced win from seat 0
  with two seats (docs/rules/cockroach_poker.md), and that under
  ``call_rule=published`` no simple bot wins from seat 0 by force;
* the measurement runs on a tiny sample and reports a worst case.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest

from bench import counters as counters_cli
from bench import strong_vs_counter
from bench.roster import roster
from example_bots.cockroach_poker_strong import StrongCockroachPokerBot
from example_bots.cockroach_poker_strong_counter import (
    StrongCounterCockroachPokerBot,
    target_view,
)
from example_bots.cockroach_poker_truthful import TruthfulCockroachPokerBot
from example_bots.liars_dice_posterior import PosteriorLiarsDiceBot
from example_bots.liars_dice_posterior_counter import (
    PosteriorCounterLiarsDiceBot,
    simulated_view,
)
from example_bots.liars_poker_dice_past_cutoff import PastCutoffLiarsPokerDiceBot
from example_bots.liars_poker_dice_rule_out import RuleOutLiarsPokerDiceBot
from example_bots.liars_poker_dice_strong import (
    LIE_SPREAD,
    MAX_GAP,
    TAIL_WEIGHT,
    GapError,
    GapModel,
    OpponentModel,
    StrongLiarsPokerDiceBot,
    challenges,
)
from example_bots.liars_poker_dice_strong_counter import (
    StrongCounterLiarsPokerDiceBot,
    previous_rank,
    threshold_claim,
)
from example_bots.liars_poker_rule_out import ruled_out
from example_bots.liars_poker_strong import StrongLiarsPokerBot
from example_bots.liars_poker_strong_counter import StrongCounterLiarsPokerBot, candidates
from league.execution import counters
from league.execution.counters import bot_class
from referee.core.catalogue import Roster
from sdk.cockroach_poker import Announce
from sdk.cockroach_poker import Believe as CockroachBelieve
from sdk.liars_dice import Bid
from sdk.liars_dice import Challenge as LiarsDiceChallenge
from sdk.liars_poker import Announce as LiarsPokerAnnounce
from sdk.liars_poker import Announcement, Category, announcements_above, parse_cards
from sdk.liars_poker import Challenge as LiarsPokerChallenge
from sdk.liars_poker_dice import ALL_HANDS, Challenge, Declare, StepKind, evaluate, rank
from sdk.local import play_local

VARIANTS: dict[str, list[tuple[Mapping[str, str], int]]] = {
    "liars_dice": [
        ({}, 2),
        ({}, 3),
        ({"dice_per_player": "1", "wild_face": "1", "wild_opening": "keep"}, 2),
        ({"dice_per_player": "2", "raise_rule": "reset-face", "wild_face": "6"}, 2),
        ({"raise_rule": "quantity-or-face", "one_round": "true"}, 3),
    ],
    "liars_poker": [
        ({"penalty_limit": "2"}, 2),
        ({"penalty_limit": "2"}, 3),
        ({"chips_variant": "true", "starting_chips": "2"}, 2),
    ],
    "liars_poker_dice": [({}, 2), ({"chips": "1", "min_reroll": "2"}, 2)],
    "cockroach_poker": [({}, 2), ({}, 3), ({}, 5), ({"call_rule": "published"}, 2)],
}
"""The rule variants and table sizes each game's counter bots claim to play."""

CASES = [
    (game, module, rules, seats)
    for game, variants in VARIANTS.items()
    for module in roster(game).counter_set
    for rules, seats in variants
]


def test_every_game_with_a_counter_set_has_its_variants_listed() -> None:
    assert sorted(counters.counter_games()) == sorted(VARIANTS)


def test_the_counter_set_stays_out_of_the_demo_and_the_ladder() -> None:
    bots = Roster("r", "h", strong="s", counters=("c",), counter_set=("x", "y"))
    assert bots.demo == ("r", "c", "h")
    assert bots.ladder == ("r", "c", "h", "s")


@pytest.mark.parametrize(("game", "module", "rules", "seats"), CASES)
def test_a_counter_bot_plays_legal_moves(
    game: str, module: str, rules: Mapping[str, str], seats: int
) -> None:
    counter = bot_class(module)
    other = bot_class(roster(game).random)
    for order, seed in ((0, 11), (1, 12)):
        bots = [counter, *[other] * (seats - 1)]
        if order:
            bots.reverse()
        outcome = play_local(game, bots, seed=seed, rules=rules).outcome
        assert len(outcome.places) == seats


def test_the_threshold_variants_challenge_below_their_threshold() -> None:
    thresholds = {
        module: bot_class(module).challenge_below  # type: ignore[attr-defined]
        for module in roster("liars_dice").counter_set
        if module.startswith("liars_dice_probability_")
    }
    assert thresholds == {
        "liars_dice_probability_05": Fraction(5, 100),
        "liars_dice_probability_10": Fraction(10, 100),
        "liars_dice_probability_20": Fraction(20, 100),
        "liars_dice_probability_30": Fraction(30, 100),
    }


def test_liars_poker_rule_out_keeps_what_an_exchange_could_make_true() -> None:
    passed = parse_cards("2c 2d 7h 9s Kc")
    trips_of_twos = Announcement(Category.THREE_OF_A_KIND, (2, 13, 9))
    four_nines = Announcement(Category.FOUR_OF_A_KIND, (9, 13))
    # Keeping both 2s and drawing a third: possible with one new card.
    assert not ruled_out(passed, 1, trips_of_twos)
    # Four 9s need three new cards; after exchanging two they are impossible.
    assert ruled_out(passed, 2, four_nines)
    assert not ruled_out(passed, 3, four_nines)
    # With no exchange the announcer holds exactly the passed cards.
    assert ruled_out(passed, 0, trips_of_twos)


@pytest.mark.parametrize("opponent", ["random", "heuristic", "strong"])
def test_cockroach_poker_two_seats_is_a_forced_win_for_seat_0(opponent: str) -> None:
    """Seat 0 passes four cards of one kind truthfully: seat 1 takes all four."""
    bots = roster("cockroach_poker")
    other = bot_class(getattr(bots, opponent))
    for seed in range(20):
        places = play_local(
            "cockroach_poker", [TruthfulCockroachPokerBot, other], seed=seed
        ).outcome.places
        assert places == (1, 2), f"seed {seed}: {places}"


SIMPLE = (
    "random",
    "heuristic",
    *(
        m.removeprefix("cockroach_poker_")
        for m in roster("cockroach_poker").counter_set
        if not m.endswith("_strong_counter")  # runs the strong bot's code: not simple
    ),
)


@pytest.mark.parametrize("simple", SIMPLE)
def test_cockroach_poker_published_call_no_simple_bot_wins_from_seat_0_by_force(
    simple: str,
) -> None:
    """Under call_rule=published a true claim comes back on a right call "true":
    no simple bot (the truthful four-of-a-kind one included) wins every match from
    seat 0 against the strong bot, and the truthful one wins none of these."""
    strong = bot_class("cockroach_poker_strong")
    bot = bot_class(f"cockroach_poker_{simple}")
    rules = {"call_rule": "published"}
    wins = sum(
        play_local("cockroach_poker", [bot, strong], seed=seed, rules=rules).outcome.places[0] == 1
        for seed in range(20)
    )
    assert wins < 20, f"{simple} won all 20 matches from seat 0"
    if simple == "truthful":
        assert wins == 0


def test_the_measurement_reports_each_counter_bot_and_the_worst_case() -> None:
    scores = counters.measure("cockroach_poker", 2, seed=3)
    assert [s.counter for s in scores] == list(roster("cockroach_poker").counter_set)
    assert all(s.matches == 2 for s in scores)
    text = counters.report("cockroach_poker", scores)
    low = counters.worst(scores)
    assert f"worst case: {low.rate:.1%} against {low.counter}" in text
    assert low.rate == min(s.rate for s in scores)


def test_a_duplicate_pair_swaps_the_seats_on_one_deal() -> None:
    # The truthful bot wins every deal from seat 0, so each pair splits 1-1.
    strong = bot_class("cockroach_poker_strong")
    assert counters.play_rotations(
        "cockroach_poker", strong, TruthfulCockroachPokerBot, 5, 1, {}
    ) == (5, 0, 5)


def test_with_three_seats_each_deal_is_played_once_per_seat() -> None:
    scores = counters.measure("cockroach_poker", 3, seed=2, seats=3)
    assert all(s.matches == 3 for s in scores)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["liars_dice", "--matches", "3"], "positive multiple of --seats 2"),
        (["liars_dice", "--matches", "4", "--seats", "3"], "positive multiple of --seats 3"),
        (["liars_dice", "--seats", "1"], "at least 2"),
        (["dice_poker"], "no counter set for 'dice_poker'"),
        (["liars_dice", "--rules", "wild_face"], "option=value"),
        (["liars_dice", "--matches", "2", "--rules", "wild_face=9"], "wild_face"),
    ],
)
def test_a_bad_request_prints_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert counters_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("rerolled", "claimed", "answer"),
    [
        (0, (2, 2, 3, 4, 5), "Accept"),
        (0, (6, 6, 6, 6, 2), "Challenge"),
        (3, (2, 2, 2, 2, 5), "Accept"),
        (1, (6, 6, 6, 6, 2), "Challenge"),
    ],
)
def test_liars_poker_dice_rule_out_challenges_only_unreachable_declarations(
    rerolled: int, claimed: tuple[int, ...], answer: str
) -> None:
    bot = RuleOutLiarsPokerDiceBot()
    bot._passed = (2, 2, 3, 4, 5)
    observation = SimpleNamespace(last_declaration=evaluate(claimed), last_reroll_count=rerolled)
    assert type(bot._answer(observation)).__name__ == answer  # type: ignore[arg-type]


# -- counters that run the strong bot's own code (issue 31) ----------------------------


def test_the_lie_model_learns_a_gap_beyond_the_old_spread() -> None:
    """Hand-checked: forced lie over rank 10, so the smallest legal claim is 11 and a
    claim of 19 is 8 ranks above it. The prior: gaps 1..5 one count each, 0.05 spread
    over the other 65 legal-or-not gaps 6..70; legal gaps here are 1..60."""
    model = OpponentModel()
    share = TAIL_WEIGHT / (MAX_GAP - 5)
    legal_mass = 5 + share * (60 - 5)
    before = model.declare_likelihood(declared=19, true=3, beat=10)
    assert before == pytest.approx((1 - 0.6) * share / legal_mass)
    assert before > 0  # the old model gave it 0
    model.observe_declaration(declared=19, true=3, beat=10)
    # minimal: Beta(0.6 x 2 pseudo-counts) + one miss = 1.2 / 3; gap 8 now 1 + share.
    after = model.declare_likelihood(declared=19, true=3, beat=10)
    assert after == pytest.approx((1 - 1.2 / 3) * (1 + share) / (legal_mass + 1))
    assert after > 100 * before


def test_the_inflation_model_learns_a_gap_too() -> None:
    model = OpponentModel()
    before = model.declare_likelihood(declared=30, true=20, beat=10)  # 10 steps inflated
    assert 0 < before < 1e-3
    model.observe_declaration(declared=30, true=20, beat=10)
    assert model.declare_likelihood(declared=30, true=20, beat=10) > 50 * before


def test_a_gap_outside_the_table_is_a_named_error() -> None:
    with pytest.raises(GapError, match="72"):
        GapModel.prior(LIE_SPREAD).observe(72)


@pytest.mark.parametrize("beat", [10, 40, 64, 69, 70])
def test_past_cutoff_lies_just_past_the_old_spread(beat: int) -> None:
    bot = PastCutoffLiarsPokerDiceBot()
    claim = rank(bot._declaration((1, 2, 3, 4, 6), ALL_HANDS[beat]))  # a bust: must lie
    assert claim == (min(beat + 7, 70) if beat < 70 else 71)


@pytest.mark.parametrize(
    ("passed", "rerolled", "beat", "true"),
    [
        (None, None, -1, rank(evaluate((2, 2, 3, 4, 6)))),
        ((2, 2, 3, 4, 5), 3, rank(evaluate((2, 2, 3, 4, 5))), rank(evaluate((1, 1, 1, 4, 5)))),
        ((6, 6, 3, 3, 1), 1, rank(evaluate((6, 6, 3, 3, 1))), rank(evaluate((6, 6, 3, 3, 1)))),
    ],
)
def test_the_strong_counter_declares_at_the_strong_bots_threshold(
    passed: tuple[int, ...] | None, rerolled: int | None, beat: int, true: int
) -> None:
    """The claim is one the strong bot's own rule accepts, and it challenges every
    higher claim (below the top hand), unless the claim is true and challenged."""
    model = OpponentModel()
    claim = threshold_claim(model, passed, rerolled, true, beat, 0)
    accepted = not challenges(model, passed, rerolled, claim, beat, 0)
    if accepted:
        assert all(challenges(model, passed, rerolled, r, beat, 0) for r in range(claim + 1, 71))
    else:
        assert claim <= true


def test_the_strong_counter_predicts_every_answer_of_the_strong_bot() -> None:
    """Its mirror of the strong bot's model stays exact over whole matches: each
    declaration's predicted answer is the one the strong bot gives."""
    predicted: list[bool] = []
    given: list[bool] = []

    class Counter(StrongCounterLiarsPokerDiceBot):
        def act(self, observation: Any) -> Any:
            action = super().act(observation)
            if isinstance(action, Declare) and action.hand != ALL_HANDS[-1]:
                steps = observation.steps
                ours = any(s.kind is StepKind.ACCEPT and s.seat == observation.seat for s in steps)
                predicted.append(
                    challenges(
                        self.mirror,
                        self._received if ours else None,
                        observation.last_reroll_count if ours else None,
                        rank(action.hand),
                        previous_rank(steps, len(steps)),
                        observation.min_reroll,
                    )
                )
            return action

    class Strong(StrongLiarsPokerDiceBot):
        def _answer(self, observation: Any) -> Any:
            answer = super()._answer(observation)
            if observation.last_declaration != ALL_HANDS[-1]:
                given.append(isinstance(answer, Challenge))
            return answer

    for seed in range(6):
        play_local("liars_poker_dice", [Counter, Strong], seed=seed)
        play_local("liars_poker_dice", [Strong, Counter], seed=seed)
    assert len(given) > 30
    assert predicted == given


def test_the_posterior_counter_simulates_the_posterior_bots_answer_exactly() -> None:
    """Shown the posterior bot's real hand, the counter's simulated view gives the
    posterior bot's real answer to each raise (whether it challenges)."""
    hands: dict[int, tuple[int, ...]] = {}
    simulated: list[bool] = []
    real: list[bool] = []

    class Posterior(PosteriorLiarsDiceBot):
        def act(self, observation: Any) -> Any:
            hands[observation.round_number] = observation.own_dice
            answer = super().act(observation)
            if observation.bids and len(real) < len(simulated):
                real.append(isinstance(answer, LiarsDiceChallenge))
            return answer

    class Counter(PosteriorCounterLiarsDiceBot):
        def act(self, observation: Any) -> Any:
            action = super().act(observation)
            hand = hands.get(observation.round_number)
            if isinstance(action, Bid) and hand is not None:
                view = simulated_view(observation, action, tuple(sorted(hand)))
                answer = PosteriorLiarsDiceBot().act(view)
                simulated.append(isinstance(answer, LiarsDiceChallenge))
            return action

    rules = {"dice_per_player": "3"}
    for seed in range(3):
        play_local("liars_dice", [Posterior, Counter], seed=seed, rules=rules)
        hands.clear()
        play_local("liars_dice", [Counter, Posterior], seed=seed, rules=rules)
        hands.clear()
    assert len(real) > 10
    assert simulated[: len(real)] == real


@pytest.mark.parametrize("rules", [{}, {"call_rule": "published"}])
def test_the_cockroach_counter_simulates_the_strong_bots_answer(rules: dict[str, str]) -> None:
    """Given the target's real hand, the counter's rebuilt view gets the strong bot's
    real answer to the claim (the copy lacks only which face-down cards the real bot
    believed, so a rare answer may differ: at least 90 % agree)."""
    asked: list[bool] = []
    given: list[bool] = []
    hands: dict[int, tuple[int, ...]] = {}

    class Strong(StrongCockroachPokerBot):
        def act(self, observation: Any) -> Any:
            hands[observation.seat] = observation.hand
            answer = super().act(observation)
            if observation.phase == "respond" and len(given) < len(asked):
                given.append(isinstance(answer, CockroachBelieve))
            return answer

    class Counter(StrongCounterCockroachPokerBot):
        def act(self, observation: Any) -> Any:
            action = super().act(observation)
            target = self.target(observation)
            if isinstance(action, Announce) and target in hands:
                view = target_view(observation, target, action.claim, hands[target])
                asked.append(isinstance(StrongCockroachPokerBot().act(view), CockroachBelieve))
            return action

    for seed in range(10):
        hands.clear()
        play_local("cockroach_poker", [Strong, Counter], seed=seed, rules=rules)
    assert len(given) > 20
    agree = sum(a == g for a, g in zip(asked, given, strict=False))
    assert agree >= 0.9 * len(given), (agree, len(given))


def test_the_liars_poker_counter_tries_the_lowest_raise_and_its_true_hands() -> None:
    hand = parse_cards("2c 2d 7h 9s Kc")
    last = Announcement(Category.HIGH_CARD, (13, 9, 7, 3, 2))
    tried = candidates(hand, last)
    assert tried == sorted(tried)
    assert announcements_above(last)[0] in tried
    assert Announcement(Category.PAIR, (2, 13, 9, 7)) in tried  # the hand's best
    assert all(candidate > last for candidate in tried)


def test_the_liars_poker_counter_predicts_most_answers_of_the_strong_bot() -> None:
    """Its copy of the strong bot, fed the same events, answers as the real one does
    (both sample hands, each from its own generator, so near the threshold they may
    differ: at least 75 % agree; measured 60 of 66)."""
    asked: list[bool] = []
    given: list[bool] = []

    class Counter(StrongCounterLiarsPokerBot):
        def _announce(self, observation: Any, hand: Any) -> Any:
            action = super()._announce(observation, hand)
            assert isinstance(action, LiarsPokerAnnounce)
            asked.append(self._challenged(observation, action.announcement))
            return action

    class Strong(StrongLiarsPokerBot):
        def _answer(self, observation: Any) -> Any:
            answer = super()._answer(observation)
            if len(given) < len(asked):
                given.append(isinstance(answer, LiarsPokerChallenge))
            return answer

    rules = {"penalty_limit": "2"}
    for seed in range(3):
        play_local("liars_poker", [Counter, Strong], seed=seed, rules=rules)
        play_local("liars_poker", [Strong, Counter], seed=seed, rules=rules)
    assert len(given) > 20
    assert sum(a == g for a, g in zip(asked, given, strict=False)) >= 0.75 * len(given)


def test_strong_vs_counter_prints_pair_intervals_and_a_paired_difference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["liars_poker_dice", "liars_poker_dice_random", "--matches", "6"]
    assert strong_vs_counter.main([*argv, "--baseline", "liars_poker_dice_strong"]) == 0
    row = capsys.readouterr().out.splitlines()[-1]
    # The same bot as its own baseline on the same deals: a difference of exactly 0.
    assert row.startswith("| liars_poker_dice_random |")
    assert "+0.0% [+0.0%, +0.0%]" in row
    assert strong_vs_counter.main([*argv[:2], "--matches", "3"]) == 2
    assert "positive and even, got 3" in capsys.readouterr().err


def test_a_paired_difference_is_the_mean_gap_per_pair() -> None:
    mean, low, high = strong_vs_counter.paired_difference([1.0, 0.5, 1.0], [0.5, 0.5, 0.0])
    assert mean == pytest.approx(0.5)
    assert low < 0.5 < high
