"""Cockroach Poker: the game's registration (its ``ENTRY``); the rest of it is in this folder.

``engine.py`` the rules; ``codec.py`` its wire form (its messages are
``proto/arena/v1/cockroach_poker.proto``); ``universe.py`` every action it can take (for
reinforcement learning); ``viewer.js`` its renderer in the replay viewer
(``viewer.py`` what its omniscient view shows);
``leak_rules.py`` what each seat may see (for the leak suite); ``baseline.py`` its
luck baseline (a constant: nothing is fitted). Its SDK module is
``sdk/cockroach_poker.py``.
"""

from __future__ import annotations

from referee.gamekit.entry import GameEntry, Roster, ViewerSpec

ENTRY = GameEntry(
    name="cockroach_poker",
    title="Cockroach Poker",
    engine=f"{__name__}.engine:COCKROACH_POKER",
    codec=f"{__name__}.codec:CODEC",
    sdk="sdk.cockroach_poker",
    action_universe=f"{__name__}.universe:action_universe",
    roster=Roster(
        "cockroach_poker_random",
        "cockroach_poker_heuristic",
        "cockroach_poker_strong",
        counter_set=(
            "cockroach_poker_truthful",
            "cockroach_poker_never_challenge",
            "cockroach_poker_always_challenge",
            "cockroach_poker_always_bluff",
            "cockroach_poker_strong_counter",
        ),
        ladder_table_size=3,
    ),
    viewer=ViewerSpec(
        renderer="cockroach_poker",
        script=f"{__name__}:viewer.js",
        count_keys=frozenset({"hand", "face_up"}),
        count_labels="referee.gamekit.cards:KINDS",
        facts=f"{__name__}.viewer:board_facts",
        hidden=f"{__name__}.viewer:hidden_holdings",
        public=f"{__name__}.viewer:public_view",
    ),
    leak_rules=f"{__name__}.leak_rules:LEAK_RULES",
    baseline=f"{__name__}.baseline:BASELINE",
    order=4,
)
