"""Three-Card Bluff, the toy game of the test suite: its registration (its ``ENTRY``).

The same layout as a built-in game (``referee/games/<game>/``): everything else is in
this directory: the engine (``engine.py``), its messages (``three_card_bluff.proto``
and the generated code), the codec, the SDK module, the random bot, its renderer in
the replay viewer (``viewer.js``), the leak rules the leak suite reads and its luck
baseline (``baseline.py``, its table in ``baseline.json``). The suite
installs it as an entry point (``tests/game_plugins/__init__.py``).
"""

from __future__ import annotations

from referee.gamekit.entry import GameEntry, ViewerSpec

ENTRY = GameEntry(
    name="three_card_bluff",
    title="Three-Card Bluff",
    engine=f"{__name__}.engine:THREE_CARD_BLUFF",
    codec=f"{__name__}.codec:CODEC",
    sdk=f"{__name__}.bot_sdk",
    action_universe=f"{__name__}.engine:action_universe",
    viewer=ViewerSpec(renderer="three_card_bluff", script=f"{__name__}:viewer.js"),
    leak_rules=f"{__name__}.leak_rules:LEAK_RULES",
    baseline=f"{__name__}.baseline:BASELINE",
)
