"""The decision loop, once: a match as a sequence of chance draws and decisions.

The live referee (:mod:`referee.runtime.match`), the in-process runner (:mod:`sdk.local`),
random playouts (:mod:`referee.core.playout`) and the replays
(:mod:`referee.records.replay`: verification and what each seat was sent) all step a
:class:`MatchDriver`. It alone numbers the turns, builds what the acting seat is
sent (observation deltas included, :mod:`referee.wire.deltas`) and digests
states, so these are computed identically live, locally and in replay; the
callers differ only in where decisions and chance outcomes come from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.v1 import bot_pb2
from referee.core.digests import observation_digest
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.mixed import Distribution, Mixed, checked, draw
from referee.gamekit.base import CHANCE, ChanceOutcome, ChanceSource, Game, draw_chance
from referee.gamekit.fast import maker
from referee.wire.base import Codec
from referee.wire.deltas import DeltaEncoder


@dataclass(frozen=True, slots=True)
class Decision:
    """One seat asked for one action."""

    seat: int
    turn: int
    """The TurnRequest number (1, 2, ... over the whole match, all seats)."""
    view: Any
    """The seat's observation (engine value); legality is decided against it."""
    message: bot_pb2.Observation | None
    """What the seat is sent (a delta for a seat that asked for them); None without a codec."""
    digest: str | None
    """Digest of ``message`` as sent (the record's ``obs``); None without a codec."""


_new_decision = maker(Decision)


class MatchDriver:
    """Step one match: the engine state, turn numbers, per-seat encoders, digests.

    ``codec`` (with ``deltas[seat]`` per seat) makes every decision carry the
    message the seat is sent and its digest; ``digest`` digests the state after
    every event (:func:`referee.core.digests.state_digester`). Both are optional: an
    in-process playout needs neither.
    """

    def __init__(
        self,
        game: Game[Any, Any, Any, Any],
        rules: Any,
        num_seats: int,
        *,
        codec: Codec[Any, Any] | None = None,
        deltas: Sequence[bool] = (),
        digest: Callable[[object], str] | None = None,
    ) -> None:
        self.game = game
        self.num_seats = num_seats
        self.state: Any = game.new_game(rules, num_seats)
        self.turn = 0
        """Decisions asked so far."""
        self.events = 0
        """Events applied so far."""
        self._codec = codec
        self._encoders = (
            [
                DeltaEncoder(codec, enabled=bool(deltas[seat]) if seat < len(deltas) else False)
                for seat in range(num_seats)
            ]
            if codec is not None
            else []
        )
        self._digest = digest
        self.mixed_key: bytes | None = None
        """Where :meth:`play_turn` draws a mixed move's action from
        (:func:`referee.core.mixed.mixed_key` of the match's chance key)."""
        self.last_policy: Distribution | None = None
        """The distribution :meth:`play_turn`'s last action was drawn from (None: the
        seat answered with one action)."""

    # -- what is due --------------------------------------------------------------

    def to_act(self) -> int | None:
        """The seat to act, :data:`~referee.gamekit.base.CHANCE`, or None when over."""
        return self.game.to_act(self.state)

    def draw(self, source: ChanceSource) -> ChanceOutcome:
        """Draw the chance outcome due now from ``source`` (not applied yet)."""
        return draw_chance(self.game.chance_request(self.state), source)

    def decision(self) -> Decision:
        """Ask the seat to act: the next turn number and what it is sent."""
        game, state = self.game, self.state
        seat = game.to_act(state)
        if seat is None or seat == CHANCE:
            raise RuntimeError(f"no decision is due (to act: {seat})")
        self.turn = turn = self.turn + 1
        view = game.observe(state, seat)
        if self._codec is None:
            return _new_decision(seat, turn, view, None, None)
        message = self._encoders[seat].encode(view)
        return _new_decision(
            seat,
            turn,
            view,
            message,
            observation_digest(message.SerializeToString(deterministic=True)),
        )

    def final_observation(self, seat: int) -> bot_pb2.Observation:
        """What ``seat`` is sent with MatchEnd (after the last event)."""
        if self._codec is None:
            raise RuntimeError("a driver without a codec encodes nothing")
        return self._encoders[seat].encode(self.game.observe(self.state, seat))

    # -- applying events ---------------------------------------------------------

    def apply_chance(self, outcome: Sequence[int]) -> str:
        """Apply a chance outcome (validated); the new state's digest ("" if none)."""
        self.state = self.game.apply_chance(self.state, outcome)
        return self._applied()

    def act(self, decision: Decision, action: Any) -> str:
        """Apply ``decision.seat``'s ``action``, legal against the view it was sent.

        Raises the engine's errors unchanged (the caller decides whose fault they are).
        """
        game = self.game
        game.check_action(decision.view, action)
        self.state = game.transition(self.state, decision.seat, action)
        self.events += 1
        return self._digest(self.state) if self._digest is not None else ""

    def play_turn(self, seat: int, choose: Callable[[Any], Any]) -> Any:
        """For a driver without a codec (in-process play): ask ``seat``, the seat to act,
        with ``choose(observation)`` and apply its action, as :meth:`decision` then
        :meth:`act` would (the same turn number, observation and legality check),
        without building the :class:`Decision`. Returns the action applied.

        A :class:`~referee.core.mixed.Mixed` answer is checked
        (:class:`~referee.core.mixed.BadProbabilitiesError` if it is not a distribution
        over legal actions) and the action drawn from it with :attr:`mixed_key`, as the
        referee draws (:attr:`last_policy` then holds the distribution)."""
        if self._codec is not None:
            raise RuntimeError("a driver with a codec asks with decision() and act()")
        game, state = self.game, self.state
        self.turn = turn = self.turn + 1
        view = game.observe(state, seat)
        action = choose(view)
        if type(action) is Mixed:
            action = self._drawn(turn, view, action)
        else:
            self.last_policy = None
        game.check_action(view, action)
        self.state = game.transition(state, seat, action)
        self.events += 1
        if self._digest is not None:
            self._digest(self.state)
        return action

    def _drawn(self, turn: int, view: Any, answer: Mixed) -> Any:
        if self.mixed_key is None:
            raise RuntimeError("a mixed move needs the driver's mixed_key")
        legal = self.game.legal_actions(view)
        self.last_policy = distribution = checked(answer.probabilities.items(), legal)
        return draw(distribution, self.mixed_key, turn)

    def apply(self, event: Event) -> str:
        """Apply a recorded event with full validation (replays): a decision is asked
        for an action, so turn numbers and encoders advance as they did live."""
        if isinstance(event, ChanceEvent):
            return self.apply_chance(event.outcome)
        return self.act(self.decision_for(event), event.action)

    def decision_for(self, event: ActionEvent) -> Decision:
        """The decision a recorded action answers; the engine's error if it was not
        that seat's turn (or not an action of this game)."""
        if self.to_act() != event.seat:
            self.game.apply_action(self.state, event.seat, event.action)  # raises
            raise RuntimeError("unreachable: apply_action accepted an out-of-turn action")
        return self.decision()

    def _applied(self) -> str:
        self.events += 1
        return self._digest(self.state) if self._digest is not None else ""
