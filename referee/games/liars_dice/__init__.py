"""Liar's Dice: the game's registration (its ``ENTRY``); the rest of it is in this folder.

``engine.py`` the rules; ``codec.py`` its wire form (its messages are
``proto/arena/v1/liars_dice.proto``); ``universe.py`` every action it can take (for
reinforcement learning); ``viewer.js`` its renderer in the replay viewer
(``viewer.py`` what its omniscient view shows);
``leak_rules.py`` what each seat may see (for the leak suite); ``baseline.py`` its
luck baseline (its fitted data: ``baseline.json``). Its SDK module is
``sdk/liars_dice.py``.
"""

from __future__ import annotations

from referee.gamekit.entry import GameEntry, Roster, ViewerSpec

ENTRY = GameEntry(
    name="liars_dice",
    title="Liar's Dice",
    engine=f"{__name__}.engine:LIARS_DICE",
    codec=f"{__name__}.codec:CODEC",
    sdk="sdk.liars_dice",
    action_universe=f"{__name__}.universe:action_universe",
    roster=Roster(
        random="liars_dice_random",
        heuristic="liars_dice_probability",
        strong="liars_dice_posterior",
        counters=("liars_dice_counting",),
        counter_set=(
            "liars_dice_truthful",
            "liars_dice_never_challenge",
            "liars_dice_always_challenge",
            "liars_dice_always_bluff",
            "liars_dice_probability_05",
            "liars_dice_probability_10",
            "liars_dice_probability_20",
            "liars_dice_probability_30",
            "liars_dice_posterior_counter",
            "liars_dice_cfr_full_counter",
        ),
        exploit_rules=(  # OpenSpiel's liars_dice(numdice=1): docs/exploitability.md
            ("dice_per_player", "1"),
            ("raise_rule", "reset-face"),
            ("wild_face", "6"),
            ("wild_opening", "keep"),
            ("sum_endgame", "false"),
            ("one_round", "true"),
            ("roll_off", "false"),
        ),
    ),
    viewer=ViewerSpec(
        renderer="liars_dice",
        script=f"{__name__}:viewer.js",
        facts=f"{__name__}.viewer:board_facts",
        hidden=f"{__name__}.viewer:hidden_holdings",
        public=f"{__name__}.viewer:public_view",
    ),
    leak_rules=f"{__name__}.leak_rules:LEAK_RULES",
    baseline=f"{__name__}.baseline:BASELINE",
    order=1,
)
"""The CFR bots are not in the roster: ``liars_dice_cfr`` plays only tiny configurations and
``liars_dice_cfr_full`` only two seats of our default rules (docs/bots.md); the latter's
own-code counter is in the counter set."""
