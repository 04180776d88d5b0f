"""Three-Card Bluff, the toy plugin game: its ONE catalogue registration.

Everything else is in this directory: the engine (``engine.py``), its messages
(``three_card_bluff.proto`` and the generated code), the codec, the SDK module,
the random bot, its renderer in the replay viewer (``viewer.js``) and the leak
rules the leak suite reads.
"""

from __future__ import annotations

from referee.core.catalogue import GameEntry, ViewerSpec, register

_HERE = __name__

ENTRY = register(
    GameEntry(
        name="three_card_bluff",
        title="Three-Card Bluff",
        engine=f"{_HERE}.engine:THREE_CARD_BLUFF",
        codec=f"{_HERE}.codec:CODEC",
        sdk=f"{_HERE}.bot_sdk",
        action_universe=f"{_HERE}.engine:action_universe",
        viewer=ViewerSpec(renderer="three_card_bluff", script=f"{_HERE}:viewer.js"),
    )
)
