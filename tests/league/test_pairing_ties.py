"""Pairing that knows a tie (issue 31, item 5): the tie rule by hand, the pair's own
covariance, and the equal pair that took every match, on simulated outcomes with the
real pairing, fit and intervals."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

from bench.pairing import CLEAR_TIE, TIE_BOTS, TIE_ORDER, simulate
from league.domain.bradley_terry import fit_with_differences
from league.domain.pairing import (
    LadderEntry,
    choose_tables,
    matches_to_settle,
    pair_states,
    settled,
    tied,
)
from league.domain.ratings import MatchResult
from league.store.db import open_database, session_scope
from league.store.models import MatchRow, SeatRow
from league.store.registry import add_bot, get_bot
from league.store.rolling_ladders import (
    RollingSettings,
    create_rolling_league,
    enter_bot,
    write_tables,
)

ROOT = Path(__file__).resolve().parents[2]
QUICK = ("--samples", "10", "--no-los", "--no-population")


def entry(key: str, rating: float, spread: float, order: int, recent: int = 0) -> LadderEntry:
    return LadderEntry(
        key=key, rating=rating, spread=spread, matches=50, order=order, recent=recent
    )


def test_a_pair_is_tied_when_its_whole_interval_lies_inside_the_zone() -> None:
    assert tied(4.0, 2.5)  # 4 + 1.96·2.5 = 8.90 < 10
    assert tied(-4.0, 2.5)
    assert not tied(4.0, 3.1)  # 4 + 1.96·3.1 = 10.08
    assert tied(4.0, 3.1, zone=10.1)
    assert not tied(0.0, 0.0, zone=0.0)  # a zone of 0: no ties


def test_matches_to_settle_by_hand() -> None:
    # An even pair known to ±98 (sd 50): the tie needs a half-width of 10, i.e. an
    # information of (173.718·1.96/10)² = 1159.27 against (173.718/50)² = 12.07 now,
    # at 1/4 per match: 4,588.8 more matches.
    assert matches_to_settle(0.0, 50.0) == pytest.approx(4588.8, rel=1e-3)
    # 100 apart (p = 0.6401, information 0.2304): the order needs a half-width of
    # 100: (3.4048² − 12.07)/0.2304 = -ve, so nothing more.
    assert matches_to_settle(100.0, 50.0) == 0.0
    assert matches_to_settle(0.0, 50.0, zone=0.0) == math.inf


def test_a_pairs_difference_uses_its_own_covariance() -> None:
    # Two bots, 50 wins each in 100 games, prior of 2 draws per bot: minus the
    # Hessian at 0 is [[25.5, -25], [-25, 25.5]] (nats); along (1, -1) its eigenvalue
    # is 50.5, so the difference's sd is sqrt(2/50.5)·173.718 = 34.57 Elo, while the
    # two centred marginals (sd 17.28 each) combined as if independent give 24.45.
    results = [MatchResult(("a", "b"), (1, 2) if i % 2 else (2, 1), f"g{i}") for i in range(100)]
    ratings, sd, differences = fit_with_differences(results)
    assert ratings["a"] == pytest.approx(ratings["b"])
    assert differences[frozenset("ab")] == pytest.approx(34.57, abs=0.01)
    assert sd["a"] == pytest.approx(17.28, abs=0.01)
    # Two equal bots that both lose every game to a third: their marginals stay wide
    # (the prior pins them), their difference is known from their own games.
    more = results + [MatchResult(("c", x), (1, 2), f"h{x}{i}") for x in "ab" for i in range(50)]
    _, sd, differences = fit_with_differences(more)
    assert differences[frozenset("ab")] < 0.5 * math.hypot(sd["a"], sd["b"])


def test_states_and_the_stop_count_a_known_tie_as_settled() -> None:
    entries = [entry("a", 1000, 100, 1), entry("b", 1500, 300, 2), entry("c", 1504, 300, 3)]
    zone = {frozenset("bc"): 2.5, frozenset("ab"): 40.0}
    assert pair_states(entries, zone) == {frozenset("ab"): "ordered", frozenset("bc"): "tied"}
    assert settled(entries, zone)
    assert not settled(entries, zone, tie_zone=0.0)  # no zone: b–c's order is open
    # b–c 4 apart with sd 40: a tie needs ~10⁵ more matches (out of reach); a–b is
    # ordered: pairs take turns, fewest recent pair matches first.
    wide = {frozenset("bc"): 40.0, frozenset("ab"): 40.0}
    assert pair_states(entries, wide)[frozenset("bc")] == "out of reach"
    tables = choose_tables(
        entries,
        groups=4,
        placement_matches=0,
        min_share=0,
        differences=wide,
        pair_recent={frozenset("bc"): 10, frozenset("ab"): 4},
    )
    # a–b catches up (4, 6, 8), then at 10 each the smaller gap; c has fewer matches.
    assert tables == [("a", "b"), ("a", "b"), ("a", "b"), ("c", "b")]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_equal_bots_no_longer_take_every_match(seed: int) -> None:
    """The 384-of-400 symptom: four bots, two equal (random, random-2), the others
    clear. Before the tie rule the equal pair took 330–346 of 400 matches here."""
    run = simulate(
        CLEAR_TIE,
        adaptive=True,
        max_matches=400,
        seed=seed,
        targets=TIE_ORDER,
        bots=TIE_BOTS,
    )
    assert run.separated_at is not None and run.separated_at <= 80
    tie = frozenset(("random", "random-2"))
    assert run.pairs[tie] <= 0.40 * 400
    assert max(run.after.values()) <= 0.40 * sum(run.after.values())


def test_league_standings_prints_a_known_tie(tmp_path: Path) -> None:
    """End to end: a rolling ladder with a ±100 Elo zone, 200 finished matches of two
    bots that each won 100 (written straight to the database: no bots run), and a
    third bot that lost its 20 games; `league standings` names the tied pair only."""
    url = f"sqlite:///{tmp_path / 'ties.db'}"
    engine = open_database(url)
    with session_scope(engine) as session:
        for name in ("even", "odd", "weak"):
            add_bot(session=session, name=name, command="true", games=["liars_dice"])
        league = create_rolling_league(
            session=session,
            name="lad",
            game="liars_dice",
            settings=RollingSettings(tie_zone=100.0),
        )
        for name in ("even", "odd", "weak"):
            enter_bot(session=session, league=league, bot=get_bot(session=session, name=name))
        even: tuple[str, ...] = ("even", "odd")
        lopsided: list[tuple[str, ...]] = [("odd", "weak"), ("even", "weak")]
        tables = [even] * 100 + lopsided * 5
        pending = write_tables(session=session, league=league, tables=tables)
        for i, match in enumerate(pending):
            row = session.get(MatchRow, match.match_id)
            assert row is not None
            row.status, row.reason = "done", "completed"
            first_wins = i < 200 or match.bots[0].name != "weak"  # rotations alternate
            for seat in session.exec(select(SeatRow).where(SeatRow.match_id == row.id)):
                seat.place = 1 if (seat.seat == 0) == first_wins else 2
                session.add(seat)
            session.add(row)
    engine.dispose()
    done = subprocess.run(
        [sys.executable, "-m", "league.cli", "--db", url, "league", "standings", "lad", *QUICK],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "tied within" in line]
    assert len(lines) == 1 and "±100 Elo" in lines[0], done.stdout
    assert "even" in lines[0] and "odd" in lines[0] and "weak" not in lines[0]
