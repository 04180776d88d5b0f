"""The CFR bot plays a real match over gRPC, as its own process (table from its cache)."""

from __future__ import annotations

import pytest

from example_bots.liars_dice_cfr_solver import openspiel_rules
from referee.runtime.match import Limits, MatchSpec, run_match
from tests.e2e.conftest import EXAMPLE, module_bot

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("dice", [1, 2])
async def test_cfr_bot_completes_a_match_over_grpc(dice: int) -> None:
    bots = (module_bot("example_bots.liars_dice_cfr"), module_bot(EXAMPLE["probability"]))
    spec = MatchSpec("liars_dice", bots, seed=dice, rules=openspiel_rules(dice))
    record = await run_match(spec, Limits(decision_s=5.0, startup_s=20.0))
    assert record.reason == "completed", record.faults
    assert not record.faults
    assert sorted(record.places) == [1, 2]
