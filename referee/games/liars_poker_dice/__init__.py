"""Liar's Poker Dice: the game's registration (its ``ENTRY``); the rest of it is in this folder.

``engine.py`` the rules; ``codec.py`` its wire form (its messages are
``proto/arena/v1/liars_poker_dice.proto``); ``universe.py`` every action it can take (for
reinforcement learning); ``viewer.js`` its renderer in the replay viewer
(``viewer.py`` what its omniscient view shows);
``leak_rules.py`` what each seat may see (for the leak suite); ``baseline.py`` its
luck baseline (its fitted data: ``baseline.json``). Its SDK module is
``sdk/liars_poker_dice.py``.
"""

from __future__ import annotations

from referee.gamekit.entry import GameEntry, Roster, ViewerSpec

ENTRY = GameEntry(
    name="liars_poker_dice",
    title="Liar's Poker Dice",
    engine=f"{__name__}.engine:LIARS_POKER_DICE",
    codec=f"{__name__}.codec:CODEC",
    sdk="sdk.liars_poker_dice",
    action_universe=f"{__name__}.universe:action_universe",
    roster=Roster(
        "liars_poker_dice_random",
        "liars_poker_dice_heuristic",
        "liars_poker_dice_strong",
        counter_set=(
            "liars_poker_dice_truthful",
            "liars_poker_dice_never_challenge",
            "liars_poker_dice_always_challenge",
            "liars_poker_dice_always_bluff",
            "liars_poker_dice_rule_out",
            "liars_poker_dice_past_cutoff",
            "liars_poker_dice_strong_counter",
        ),
    ),
    viewer=ViewerSpec(
        renderer="liars_poker_dice",
        script=f"{__name__}:viewer.js",
        facts=f"{__name__}.viewer:board_facts",
        hidden=f"{__name__}.viewer:hidden_holdings",
        public=f"{__name__}.viewer:public_view",
    ),
    leak_rules=f"{__name__}.leak_rules:LEAK_RULES",
    baseline=f"{__name__}.baseline:BASELINE",
    order=2,
)
