"""Kuhn Poker for Bluff Arena: the game's registration (its ``ENTRY``).

Installed, this distribution adds the game through its entry point in the group
``bluff_arena.games``; the platform's files name it nowhere. The package holds
everything the game is: ``engine.py`` (the rules), ``kuhn_poker.proto`` and its
generated code, ``codec.py``, ``sdk.py`` (what a bot imports), ``random_bot.py``,
``leak_rules.py`` (what each seat may see, for the leak suite) and ``viewer.js``.
"""

from __future__ import annotations

from referee.gamekit.entry import GameEntry, ViewerSpec

ENTRY = GameEntry(
    name="kuhn_poker",
    title="Kuhn Poker",
    engine=f"{__name__}.engine:KUHN_POKER",
    codec=f"{__name__}.codec:CODEC",
    sdk=f"{__name__}.sdk",
    action_universe=f"{__name__}.engine:action_universe",
    viewer=ViewerSpec(renderer="kuhn_poker", script=f"{__name__}:viewer.js"),
    leak_rules=f"{__name__}.leak_rules:LEAK_RULES",
)
