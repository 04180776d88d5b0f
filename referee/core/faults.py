"""Named faults: every way a seat can break a match, as values and as exceptions.

The referee turns whatever goes wrong with a bot into one of these, records it
against the seat that caused it, and carries on. The policy (forfeit: placed
last) lives in :mod:`referee.runtime.match`, not in the engines.
"""

from __future__ import annotations

import enum


class FaultKind(enum.StrEnum):
    """The fault names used in records, standings and the protocol."""

    STARTUP = "startup"
    """Did not start, was not ready within the startup budget, refused the referee's
    credentials (token, TLS), or ended or broke its stream before Ready."""
    TIMEOUT = "timeout"
    """No answer within the decision's time limit (plus grace)."""
    CRASH = "crash"
    """The process exited or the stream broke."""
    STALL = "stall"
    """The connection stopped making progress (keepalive pings unanswered)."""
    ILLEGAL_ACTION = "illegal_action"
    """A well-formed action the rules do not allow now."""
    MALFORMED_MESSAGE = "malformed_message"
    """Not a valid answer: wrong kind, wrong turn number, wrong game, bad values,
    bytes that are not a PlayResponse, or a message sent before the referee asked
    for it (an answer streamed ahead of its TurnRequest, a second answer)."""


class BotFault(Exception):
    """A bot misbehaved; ``kind`` names how. The message says what it did."""

    kind: FaultKind

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BotStartupError(BotFault):
    kind = FaultKind.STARTUP


class HostUnavailable(Exception):
    """The referee's host could not start a bot (a sandbox tool missing, no free
    uid, the kernel refused a fork or a control group): no bot's doing. A match
    it hits ends ``aborted`` and rates nobody."""


class BotTimeout(BotFault):
    kind = FaultKind.TIMEOUT


class BotCrashed(BotFault):
    kind = FaultKind.CRASH


class BotStalled(BotFault):
    kind = FaultKind.STALL


class IllegalAction(BotFault):
    kind = FaultKind.ILLEGAL_ACTION


class ProtocolViolation(BotFault):
    kind = FaultKind.MALFORMED_MESSAGE
