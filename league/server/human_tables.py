"""The games a server runs for people in the browser, and what each page is asked.

Kept apart from the routes (:mod:`league.server.human_games`) so that the server's
state (:class:`league.server.state.Server`) can hold them without an import cycle.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import trio
from starlette.exceptions import HTTPException

from league.store.human_games import HumanMatch
from referee.core.events import Event
from referee.records.record import MatchRecord
from sdk.human import HumanLeft, Resigned, SeatView

SEATS = 2
"""A person against one bot."""


@dataclass(frozen=True)
class HumanLimits:
    think_s: float = 300.0
    """A person's time per move."""
    max_games: int = 8
    """Games running at once on the server."""


class WebAsker:
    """The seat's questions, held for the page: :meth:`ask` (a gRPC worker thread of
    the seat) waits until :meth:`answer` (a request) gives a valid choice."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self.view: SeatView | None = None
        self.asked_at = 0.0
        self._answer: int | None = None
        self.final: SeatView | None = None
        self.closed = False
        self.resigning = False

    def ask(self, view: SeatView) -> int:
        with self._lock:
            self.view, self._answer, self.asked_at = view, None, time.monotonic()
            while self._answer is None:
                if self.resigning:
                    self.view = None
                    raise Resigned("resigned in the browser")
                if self.closed:
                    raise HumanLeft("the game ended while the page was asked for a move")
                self._lock.wait(0.5)
            return self._answer

    def resign(self) -> str | None:
        """The person resigns: the question asked now (else the next one) ends the game
        as ``resigned``; the reason it cannot, else None."""
        with self._lock:
            if self.final is not None or self.closed:
                return "the game is over"
            self.resigning = True
            self._lock.notify_all()
            return None

    def tell(self, view: SeatView) -> None:
        with self._lock:
            self.final, self.view = view, None

    def close(self) -> None:
        with self._lock:
            self.closed = True
            self._lock.notify_all()

    def answer(self, decision: int, choice: int) -> str | None:
        """Give the pending question its answer; the reason it cannot, else None."""
        with self._lock:
            view = self.view
            if view is None or self._answer is not None:
                return "no move is asked for now"
            if decision != view.decision:
                return f"decision {decision} is not the one asked for ({view.decision})"
            if not 0 <= choice < len(view.choices):
                return f"choice {choice} is not one of the {len(view.choices)} legal moves"
            self._answer, self.view = choice, None
            self._lock.notify_all()
            return None

    def current(self, think_s: float) -> tuple[dict[str, Any], SeatView | None]:
        """What the page shows now, as JSON, and the view it is made of (to draw its
        board: taken together, so the two are of the same question)."""
        with self._lock:
            if self.final is not None:
                return {"state": "over", "view": self.final.to_json()}, self.final
            if self.view is not None:
                left = max(0.0, think_s - (time.monotonic() - self.asked_at))
                data = {"state": "your-move", "view": self.view.to_json(), "seconds_left": left}
                return data, self.view
            return {"state": "waiting"}, None


@dataclass
class WebGame:
    token: str
    author_id: int
    player: str
    bot: str
    game: str
    seat: int
    asker: WebAsker = field(default_factory=WebAsker)
    match: HumanMatch | None = None
    error: str = ""
    done: bool = False
    events: list[Event] = field(default_factory=list)
    """Every engine event so far (omniscient: spectators get only their public
    text, delayed, :func:`league.server.spectators.spectator_feed`; the player the
    engine's text for their seat, :func:`league.server.human_games.tell`)."""
    finished_at: float = 0.0
    record: MatchRecord | None = None
    """The finished match (how it ended: who ran out of time, who resigned)."""
    story: list[dict[str, Any]] = field(default_factory=list)
    """What happened so far as the player's seat reads it, one item per line."""
    story_state: Any = None
    """The engine state after the events told in :attr:`story`."""
    story_events: int = 0
    """How many of :attr:`events` :attr:`story` tells."""
    moves: tuple[int, list[dict[str, Any]]] | None = None
    """The legal moves of the decision asked (its number, each as JSON), computed once."""
    watched: Any = None
    """What spectators may see, kept as the events come
    (:class:`league.server.spectators.Watched`)."""


class TableRefused(Exception):
    """A game cannot start now: ``status`` (409: the author has a game running; 503:
    every table is taken, or games are off) with the reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class HumanTables:
    """The games this server runs for people (at most ``limits.max_games``, one per
    author): :meth:`reserve` takes a table, atomically."""

    limits: HumanLimits = field(default_factory=HumanLimits)
    games: dict[str, WebGame] = field(default_factory=dict)
    nursery: trio.Nursery | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def running(self) -> list[WebGame]:
        return [g for g in self.games.values() if not g.done]

    def reserve(self, game: WebGame) -> None:
        """Take a table for ``game``, or :class:`TableRefused`: the author already has
        a game running (409), or :attr:`HumanLimits.max_games` are running (503).

        Check and take are one step: nothing in between awaits (and a lock covers it
        should a thread ever call it), so a burst of starts — one author's, or many
        authors' — can never pass the check together and exceed either limit."""
        with self._lock:
            self.forget_finished()
            if self.nursery is None:
                raise TableRefused(503, "games against bots are not available on this server")
            running = self.running()
            if any(g.author_id == game.author_id for g in running):
                raise TableRefused(409, "you have a game running: finish it first")
            if len(running) >= self.limits.max_games:
                raise TableRefused(503, "every table is taken: try again in a few minutes")
            self.games[game.token] = game

    def release(self, game: WebGame) -> None:
        """Give back the table of a game that never started."""
        with self._lock:
            if self.games.get(game.token) is game:
                del self.games[game.token]

    def forget_finished(self, *, keep_s: float = 3600.0, now: float | None = None) -> None:
        """Drop games over for more than ``keep_s`` (their replay stays in the database)."""
        now = time.monotonic() if now is None else now
        for token in [t for t, g in self.games.items() if g.done and now - g.finished_at > keep_s]:
            del self.games[token]

    def by_match(self, key: str) -> WebGame:
        """The game playing (or that played) match ``key``, for spectators."""
        for game in self.games.values():
            if game.match is not None and game.match.key == key and not game.error:
                return game
        raise HTTPException(404, f"no game against a bot is being played as match {key!r}")

    def of(self, token: str, author_id: int | None) -> WebGame:
        game = self.games.get(token)
        if game is None or author_id is None or game.author_id != author_id:
            raise HTTPException(404, "no such game (a game is shown only to its player)")
        return game
