"""``bench.no_lean``: two copies of one bot through the real referee, NEW's score split by
seat, by who moved first and by warm-pool slot. The arithmetic on matches made by
hand, and the bench end to end on a few sandboxed pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import no_lean
from bench.no_lean import MatchView


def view(pair: int, seat: int, score: float, first: bool, slots: tuple[int, int]) -> MatchView:
    return MatchView(pair, seat, score, first, slots[0], slots[1])


def test_a_seat_advantage_is_not_a_lean() -> None:
    """Seat 0 wins every match: each copy scores 100% in seat 0 and 0% in seat 1, and
    every balanced score is exactly 50%."""
    matches = [
        view(p, seat, 1.0 if seat == 0 else 0.0, seat == 0, (p % 2, (p // 2) % 2))
        for p in range(50)
        for seat in (0, 1)
    ]
    whole, rows = no_lean.report_rows(matches)
    assert whole.value == 0.5
    by_level = {(r.factor, r.level): r for r in rows}
    assert by_level["seat", "0"].new.value == 1.0 and by_level["seat", "0"].old.value == 1.0
    assert all(r.balanced.value == pytest.approx(0.5) for r in rows)


def test_a_pool_slot_linked_to_the_seat_is_not_a_lean() -> None:
    """NEW's process is slot 0 in 70% of its seat-0 matches and 30% of its seat-1 ones;
    with seat 0 winning every match NEW|slot 0 reads 70%, yet within each seat the two
    copies in slot 0 score alike: balanced 50%."""
    matches = []
    for p in range(100):
        often = p % 10 < 7
        matches.append(view(p, 0, 1.0, True, (0 if often else 1, p % 2)))
        matches.append(view(p, 1, 0.0, False, (1 if often else 0, (p + 1) % 2)))
    rows = {(r.factor, r.level): r for r in no_lean.split(matches, "pool slot")}
    assert rows["pool slot", "0"].new.value == pytest.approx(0.7)
    assert rows["pool slot", "0"].balanced.value == pytest.approx(0.5)
    assert rows["pool slot", "1"].balanced.value == pytest.approx(0.5)


def test_a_lean_shows_outside_the_interval() -> None:
    """NEW wins 65% of the matches whatever the seat: the overall and every balanced
    interval exclude 50%."""
    matches = [
        view(p, seat, 1.0 if (p * 2 + seat) % 20 < 13 else 0.0, seat == 0, (seat, seat))
        for p in range(400)
        for seat in (0, 1)
    ]
    whole, rows = no_lean.report_rows(matches)
    assert whole.value == pytest.approx(0.65) and not whole.holds(0.5)
    assert all(not row.balanced.holds(0.5) for row in rows if row.balanced.n > 200)


def test_wilson_intervals_hold_their_point() -> None:
    interval = no_lean.wilson(50, 100)
    assert interval.low == pytest.approx(0.4038, abs=1e-4)
    assert interval.high == pytest.approx(0.5962, abs=1e-4)
    assert no_lean.wilson(0, 10).low == pytest.approx(0.0, abs=1e-12)


@pytest.mark.e2e
def test_the_bench_plays_pairs_through_the_sandboxed_pool(tmp_path: Path) -> None:
    """Three pairs (six matches) of the probability bot against its copy, sandboxed: every
    record names each seat's pool slot, and the saved table has every factor."""
    pytest.importorskip("referee.runtime.sandbox").require_tools()
    saved = tmp_path / "no_lean.json"
    result = no_lean.main(["--pairs", "3", "--json", str(saved), "--progress", "0"])
    assert result["matches"] == 6 and result["pairs"] == 3
    data = json.loads(saved.read_text())
    factors = {row["factor"] for row in data["rows"]}
    assert factors == {"seat", "moved first", "pool slot"}
    slots = {row["level"] for row in data["rows"] if row["factor"] == "pool slot"}
    assert slots and "-1" not in slots  # every match's record noted its pool slots


@pytest.mark.e2e
async def test_a_new_process_takes_the_lowest_pool_slot_no_live_one_holds() -> None:
    import sys

    from referee.runtime.pool import WarmPool
    from referee.runtime.process import BotSpec
    from referee.runtime.sandbox import NO_SANDBOX

    spec = BotSpec("random", command=(sys.executable, "-m", "example_bots.liars_dice_random"))
    pool = WarmPool(sandbox=NO_SANDBOX)
    try:
        async with pool.lease(spec, 15.0) as first, pool.lease(spec, 15.0) as second:
            assert (first.slot, second.slot) == (0, 1)
            first.faulty = True  # stopped when its lease ends: slot 0 is free again
        async with pool.lease(spec, 15.0) as reused, pool.lease(spec, 15.0) as started:
            assert reused is second and reused.slot == 1
            assert started.slot == 0 and pool.started == 3
    finally:
        await pool.aclose()
