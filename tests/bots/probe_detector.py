"""A Liar's Dice bot that plays differently when it believes it is being probed.

    python -m tests.bots.probe_detector

In what it takes for a real match it plays as ``tests.bots.always_challenge``
(challenge whenever a bid exists, else bid the lowest). It calls a ``MatchStart``
a probe when the match id is not the referee's opaque 16-character token or the
rules lack options the referee always sends (``format_rules`` spells every one),
and then never challenges (it bids the lowest raise): ``arena exploit`` would
measure a different bot than the one that plays matches. tests/test_exploit.py
checks that the probe gives it nothing to detect.
"""

from __future__ import annotations

import re
from dataclasses import fields

from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.liars_dice import Action, Challenge, Observation, legal_actions

MATCH_TOKEN = re.compile(r"[A-Za-z0-9_-]{16}")
"""The shape of the match id the referee sends a seat of a real match."""


def looks_like_a_probe(match: MatchInfo) -> bool:
    """What a bot could read off its ``MatchStart`` to tell a probe from a match."""
    every_option = {f.name for f in fields(match.rules)} - {"spelled_defaults"}
    if match.rules.wild_opening == "cancel":  # left out at its default
        every_option.discard("wild_opening")
    return not MATCH_TOKEN.fullmatch(match.match_id) or set(match.raw_rules) != every_option


class ProbeDetectorBot(Bot[Observation, Action]):
    game = "liars_dice"

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.probed = looks_like_a_probe(match)

    def act(self, observation: Observation) -> Action:
        actions = legal_actions(observation)
        bids = [a for a in actions if a != Challenge()]
        if bids and (self.probed or Challenge() not in actions):
            return bids[0]
        return Challenge()  # when no bid is left a match asks too (the old probe never did)


if __name__ == "__main__":
    run(ProbeDetectorBot)
