"""sdk.local.play_callables: plain callables as seats, same engine and chance as play_local."""

from __future__ import annotations

from typing import Any

from referee.core.catalogue import get_game
from sdk.local import play_callables


def test_callables_play_a_seeded_match_deterministically() -> None:
    game = get_game("liars_dice")
    seen: list[Any] = []

    def first_legal(observation: Any) -> Any:
        seen.append(observation)
        return game.legal_actions(observation)[0]

    one = play_callables(
        "liars_dice", [first_legal, first_legal], seed=3, rules={"dice_per_player": "2"}
    )
    two = play_callables(
        "liars_dice", [first_legal, first_legal], seed=3, rules={"dice_per_player": "2"}
    )
    assert one == two
    assert sorted(one.outcome.places) == [1, 2]
    assert seen and all(type(obs).__name__ == "Observation" for obs in seen)
