"""The trained policy's table and its information-state key (shared by training and the bot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sdk.liars_dice import LIARS_DICE, Bid, Challenge, SumBid

RULES = {"dice_per_player": "1", "sum_endgame": "false"}
"""The small configuration the example trains on (two seats, one die each)."""
TRAINED_RULES = LIARS_DICE.parse_rules(RULES)
TRAINED_SEATS = 2
POLICY_PATH = Path(__file__).with_name("policy.json")


def trained_for(observation: Any) -> bool:
    """Whether the table was trained for this match's rules and seat count."""
    return bool(observation.rules == TRAINED_RULES and observation.num_seats == TRAINED_SEATS)


def info_key(observation: Any) -> str:
    """What the table is indexed by: own dice and the bid on the table."""
    last = observation.last_bid
    bid = f"{last.quantity}x{last.face}" if isinstance(last, Bid) else "-"
    return f"{','.join(map(str, observation.own_dice))}|{bid}"


def action_text(action: Any) -> str:
    if isinstance(action, Challenge):
        return "challenge"
    if isinstance(action, SumBid):
        return f"sum>={action.total}"
    return f"{action.quantity}x{action.face}"


def load(path: Path = POLICY_PATH) -> dict[str, str]:
    """The greedy policy: info key -> action text."""
    table: dict[str, str] = json.loads(path.read_text())
    return table
