"""Named faults: every way a seat can break a match, as values and as exceptions.

The referee turns whatever goes wrong with a bot into one of these, records it
against the seat that caused it, and carries on. The policy (forfeit: placed
last) lives in :mod:`referee.runtime.match`, not in the engines.

A fault's message goes into the match record, which is public (the server's
``/api/matches``, replay pages, spectators' feeds), so it is built from the
referee's own words and numbers only: the fault's kind and phase, an exit code or
signal, a gRPC status code's name and gRPC phrases the referee recognises
(:func:`referee.runtime.channel.public_details`), the rules' own wording of an
illegal action where the game's actions cannot carry text
(:mod:`referee.runtime.public_text`). Never a byte the bot chose: not its output, its
exception's text, an abort's details, a string field of its messages or its bytes.
What the bot wrote goes to its author only: :attr:`BotFault.output` for a bot that
never became ready, the match's log otherwise.
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
    BAD_PROBABILITIES = "bad_probabilities"
    """A mixed move (protocol 4) whose probabilities are not a distribution over
    legal actions: one negative, above 1 or not finite, a sum not within 1e-6 of 1,
    an action given twice, an illegal action with weight, too many entries."""
    RESIGNED = "resigned"
    """A person's seat only (``arena play``, a browser game), never a bot's: the
    person resigned (``q``) or left (end of input). Not a fault of a bot's kind:
    it rates as a loss, like any forfeit, and nothing that judges bots counts it
    (no bot ever carries it)."""

    @property
    def by_a_bot(self) -> bool:
        """Whether this is something a bot did wrong (every kind but ``resigned``)."""
        return self is not FaultKind.RESIGNED


AUTHOR_LOG_BYTES = 64 << 10
"""How much of a bot's output its author is kept per match or failed start (the end)."""


class BotFault(Exception):
    """A bot misbehaved; ``kind`` names how. The message says what it did, in the
    referee's words only (see the module docstring): it is recorded in public.

    ``output``: what the bot's process wrote before the fault was noticed, when the
    referee will not get it otherwise (a start that failed: the process and its log are
    gone by then). For its author only (``run_match``'s ``logs``); never recorded."""

    kind: FaultKind

    def __init__(self, message: str, *, output: bytes = b"") -> None:
        super().__init__(message)
        self.message = message
        self.output = output


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


class BadProbabilities(BotFault):
    kind = FaultKind.BAD_PROBABILITIES


class Resigned(BotFault):
    """The person in a seat resigned: raised by the referee's side of a person's seat
    (:mod:`league.execution.human_play`) when that seat's stream ends after the person
    said so, never for a bot."""

    kind = FaultKind.RESIGNED
