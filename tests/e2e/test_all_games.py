"""Every game played by real bot processes over gRPC: several seeds, 2, 3 and the
maximum number of seats, each match verified by re-simulation."""

from __future__ import annotations

import pytest

from referee.core.catalogue import get_entry, get_game
from referee.records.replay import verify
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from tests.e2e.conftest import module_bot

pytestmark = pytest.mark.e2e


def bots(game: str, kinds: str) -> tuple[object, ...]:
    roster = get_entry(game).roster
    assert roster is not None
    names = {"r": roster.random, "h": roster.heuristic}
    return tuple(module_bot(f"example_bots.{names[k]}") for k in kinds)


CASES = [
    # game, seats (r = random, h = heuristic), seeds, rules
    ("liars_poker_dice", "rh", (1, 2, 3), {}),
    ("liars_poker_dice", "hh", (4,), {"chips": "2", "min_reroll": "1"}),
    ("dice_poker", "r", (1,), {}),
    ("dice_poker", "rh", (2, 3), {}),
    ("dice_poker", "rrr", (4,), {"upper_bonus_inclusive": "false"}),
    ("cockroach_poker", "rh", (1, 2, 3), {}),
    ("cockroach_poker", "rhr", (4, 5), {}),
    ("cockroach_poker", "rhrhrh", (6, 7), {}),
    ("liars_poker", "rh", (1, 2, 3), {}),
    ("liars_poker", "rhr", (4, 5), {}),
    ("liars_poker", "rhrhrhrh", (6,), {}),
    ("liars_poker", "hh", (7,), {"chips_variant": "true", "starting_chips": "3"}),
    ("liars_dice", "rhrhrhrh", (8,), {"dice_per_player": "2"}),
]


@pytest.mark.parametrize(
    ("game", "kinds", "seeds", "rules"),
    CASES,
    ids=[f"{c[0]}-{len(c[1])}seats-{'-'.join(map(str, c[2]))}" for c in CASES],
)
async def test_real_matches_complete_and_verify(
    game: str, kinds: str, seeds: tuple[int, ...], rules: dict[str, str]
) -> None:
    engine = get_game(game)
    engine.check_seats(engine.parse_rules(rules), len(kinds))
    pool = WarmPool()
    try:
        for seed in seeds:
            record = await run_match(
                MatchSpec(game, bots(game, kinds), seed=seed, rules=rules),  # type: ignore[arg-type]
                Limits(decision_s=5.0),
                launcher=pool,
            )
            assert record.reason == "completed", record.faults
            assert verify(record) == [], verify(record)
            assert sorted(record.places)[0] == 1
            assert len(record.places) == len(kinds)
    finally:
        await pool.aclose()
