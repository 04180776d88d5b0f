"""Dice Poker: the game's registration (its ``ENTRY``); the rest of it is in this folder.

``engine.py`` the rules; ``codec.py`` its wire form (its messages are
``proto/arena/v1/dice_poker.proto``); ``universe.py`` every action it can take (for
reinforcement learning); ``viewer.js`` its renderer in the replay viewer
(``viewer.py`` the numbers it draws, computed by the engine);
``leak_rules.py`` what each seat may see (for the leak suite); ``baseline.py`` its
luck baseline (its fitted data: ``baseline.json``). Its SDK module is
``sdk/dice_poker.py``.
"""

from __future__ import annotations

from referee.gamekit.entry import GameEntry, Roster, ViewerSpec

ENTRY = GameEntry(
    name="dice_poker",
    title="Dice Poker",
    engine=f"{__name__}.engine:DICE_POKER",
    codec=f"{__name__}.codec:CODEC",
    sdk="sdk.dice_poker",
    action_universe=f"{__name__}.universe:action_universe",
    roster=Roster("dice_poker_random", "dice_poker_heuristic", "dice_poker_optimal"),
    viewer=ViewerSpec(
        renderer="dice_poker",
        script=f"{__name__}:viewer.js",
        facts=f"{__name__}.viewer:board_facts",
        public=f"{__name__}.viewer:public_view",
    ),
    leak_rules=f"{__name__}.leak_rules:LEAK_RULES",
    baseline=f"{__name__}.baseline:BASELINE",
    order=3,
)
