"""Per game decisions/s with APIs both this tree and e21c0a0 have (docs/performance.md,
"In-process engine speed"): run it against each tree and compare the JSON it prints.

    python bench/engine_before_after.py SECONDS > new.json
    PYTHONPATH=/tmp/old:/tmp/old/proto:SITE_PACKAGES \
        python -S bench/engine_before_after.py SECONDS > old.json
"""

from __future__ import annotations

import inspect
import itertools
import json
import random
import sys
import time
from collections.abc import Mapping
from typing import Any

from referee.core.catalogue import get_game
from referee.gamekit.base import CHANCE, draw_chance
from sdk.legality import legal_actions
from sdk.local import play_callables

GAMES = ("liars_dice", "liars_poker_dice", "dice_poker", "cockroach_poker", "liars_poker")
MATCHING = {
    "dice_per_player": "5",
    "one_round": "true",
    "roll_off": "false",
    "wild_face": "6",
    "wild_opening": "keep",
    "raise_rule": "reset-face",
    "sum_endgame": "false",
}
FAST = "fast_chance" in inspect.signature(play_callables).parameters


def raw(game_name: str, rules: Mapping[str, str], budget: float) -> float:
    game = get_game(game_name)
    parsed = game.parse_rules(dict(rules))
    chooser = random.Random(0)
    d = m = 0
    began = time.perf_counter()
    while m < 5 or time.perf_counter() - began < budget:
        rng = random.Random(m)
        state = game.new_game(parsed, 2)
        while (actor := game.to_act(state)) is not None:
            if actor == CHANCE:
                state = game.apply_chance(state, draw_chance(game.chance_request(state), rng))
                continue
            legal = game.legal_actions(game.observe(state, actor))
            state = game.transition(state, actor, legal[chooser.randrange(len(legal))])
            d += 1
        game.outcome(state)
        m += 1
    return d / (time.perf_counter() - began)


def local(game_name: str, rules: Mapping[str, str], budget: float, **kw: Any) -> float:
    chooser = random.Random(0)
    calls = itertools.count()

    def policy(o: Any) -> Any:
        next(calls)
        legal = legal_actions(o)
        return legal[chooser.randrange(len(legal))]

    m = 0
    began = time.perf_counter()
    while m < 5 or time.perf_counter() - began < budget:
        play_callables(game_name, [policy, policy], seed=m, rules=rules, **kw)
        m += 1
    return next(calls) / (time.perf_counter() - began)


def main() -> None:
    budget = float(sys.argv[1])
    out = {}
    cases: list[tuple[str, Mapping[str, str]]] = [(g, {}) for g in GAMES]
    for g, rules in [*cases, ("liars_dice@openspiel", MATCHING)]:
        name = g.split("@")[0]
        row = {
            "raw(random.Random)": raw(name, rules, budget),
            "local keyed": local(name, rules, budget),
        }
        if FAST:
            row["local fast"] = local(name, rules, budget, fast_chance=True)
        out[g] = row
    print(json.dumps(out))


if __name__ == "__main__":
    main()
