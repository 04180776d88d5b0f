"""Play a ladder bot in the browser: a signed-in author takes a seat.

``POST /play`` (the form on a bot's page: bot, game, seat, the session's CSRF token)
starts a game and redirects to ``/play/ID``. The game runs in this server
(:func:`league.execution.human_play.play_human_game`, in the nursery of
:func:`run_human_tables`): the bot sandboxed as in the ladders, the person's seat
served to the referee like any bot, so the page can only ever show that seat's view
and the referee checks every move. The page (``play.html`` + ``static/play.js``)
polls ``GET /play/ID/state`` and sends a move with ``POST /play/ID/move``
(JSON ``{"decision": N, "choice": I}``, the CSRF token in ``x-csrf-token``, same
origin only) and a resignation with ``POST /play/ID/resign`` (recorded as the fault
``resigned``, never a bot's kind). The state says what happened in the engine's words
for the player's seat (:func:`tell`) and, once over, how the game ended
(:func:`ending_text`); the board is drawn from the seat's observation and the
engine's numbers for it (:func:`board_json`). ``ID`` is a random token; a game
answers only its own author (404 for anyone else, so nobody learns that it exists).

**Starting cannot race.** Every field is parsed by :mod:`league.server.inputs`; a
table is taken by :meth:`HumanTables.reserve` (one game per author, at most
``max_games``: checked and taken in one step), then the game's match is reserved in
the database (:func:`league.execution.human_play.reserve_human_game`: one game per
person across processes, positions that cannot collide) before the answer: a refusal
is a 409 or 503, never a database error, and a game that answers 303 has its match.

The person's clock is :attr:`HumanLimits.think_s` per move (generous, bounded: a
game left open ends as a timeout forfeit). Results go to the game's humans league
(:mod:`league.store.human_games`), which never touches a bot's ladder rating.
A server that stops ends the games it runs without a result.

Spectators (``/live``, ``/watch/KEY``) get the public text and table only, at least
one finished round behind (:mod:`league.server.spectators`).
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from typing import Any

import trio
from google.protobuf import json_format
from sqlmodel import Session
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from league.execution.human_play import (
    HumanGame,
    Reservation,
    play_human_game,
    reserve_human_game,
)
from league.server import inputs
from league.server.auth import AuthorSession, csrf_ok, same_origin
from league.server.human_tables import SEATS, TableRefused, WebGame
from league.server.rendering import new_incident, render
from league.server.spectators import delayed as delayed  # the delay rule, read by tests
from league.server.spectators import seen, spectator_feed, watched
from league.server.state import Server, server_of
from league.server.submit import TooLarge, capped_body, parse_form
from league.store.db import session_scope
from league.store.human_games import AlreadyPlaying, finish_human_match
from league.store.models import BotRow
from league.store.registry import NotFoundError, get_bot
from referee.core.catalogue import game_names, get_codec, get_entry, get_game, load
from referee.core.events import ActionEvent, apply_event
from referee.records.html_replay import enum_prefixes, renderer_script, viewer_asset
from referee.records.replay import observation_json
from referee.records.transcript import (
    event_text,
    outcome_text,
)
from referee.runtime.sandbox import DEFAULT_SANDBOX
from sdk.human import SeatView
from sdk.legality import legal_actions

log = logging.getLogger("arena.server.play")

MOVE_BYTES = 1024
"""A move's JSON, and the start form, at most."""
MAX_DECISION = 10**9
"""A move's ``decision`` number, at most (a match's decisions, counted)."""
MAX_CHOICE = 10**6
"""A move's ``choice``, at most (an index into the legal moves)."""
CHOICES_LISTED = 400
"""Legal moves sent as text for the list, at most (the board gets every one as JSON;
Liar's Poker offers over 8,000 announcements)."""


async def run_human_tables(server: Server, stop: trio.Event) -> None:
    """Background task: the nursery the browser games run in, until ``stop``."""
    tables = server.human_tables
    async with trio.open_nursery() as nursery:
        tables.nursery = nursery
        await stop.wait()
        tables.nursery = None
        nursery.cancel_scope.cancel()  # a game cut short is stored as nothing


def _plan(server: Server, game: WebGame, bot: BotRow) -> HumanGame:
    return HumanGame(
        game=game.game,
        player=game.player,
        opponents=[bot],
        human_seat=game.seat,
        think_s=server.human_tables.limits.think_s,
        min_protocol=server.settings.min_protocol,
    )


async def _play(server: Server, game: WebGame, plan: HumanGame, reserved: Reservation) -> None:
    try:
        _, game.record = await play_human_game(
            server.engine,
            plan,
            game.asker,
            reserved=reserved,
            sandbox=DEFAULT_SANDBOX,
            on_event=lambda event: seen(game, event),
        )
    except Exception as error:  # the game could not be played: say so on its page
        incident = new_incident()
        log.error("incident %s: human game %s failed", incident, game.token, exc_info=error)
        game.error = (
            f"the game could not be played: incident {incident} (the details are in the"
            " server's log)"
        )
    finally:
        game.finished_at = time.monotonic()
        game.done = True
        watched(game).refresh(game)  # the whole text and the final table, at once


def _unreserve(server: Server, reserved: Reservation) -> None:
    """Delete a reserved match whose game never started."""
    with session_scope(server.engine) as session:
        finish_human_match(session=session, match=reserved.match, record=None)


def _opponent(session: Session, name: str, game: str) -> BotRow:
    try:
        row = get_bot(session=session, name=name)
    except NotFoundError:
        raise HTTPException(404, f"no bot named {name!r}") from None
    if game not in row.games.split(",") or row.suspended_at is not None:
        raise HTTPException(400, f"bot {name!r} does not play {game} here now")
    session.expunge(row)
    return row


def _session_for_change(request: Request, server: Server) -> AuthorSession:
    if not same_origin(dict(request.headers), request.headers.get("host", "")):
        raise HTTPException(403, "cross-site request refused")
    session = server.session_of(request)
    if session is None:
        raise HTTPException(403, "log in to play")
    return session


async def _small_body(request: Request) -> bytes:
    try:
        return await capped_body(request, MOVE_BYTES)
    except TooLarge as error:
        raise HTTPException(413, str(error), headers={"connection": "close"}) from None


async def start_game(request: Request) -> Response:
    """``POST /play``: a new game against a bot, for the logged-in author."""
    server = server_of(request)
    session = _session_for_change(request, server)
    fields = await parse_form(request, await _small_body(request))
    if not csrf_ok(session, inputs.hex_text(fields.get("csrf"), "csrf")):
        raise HTTPException(403, "bad or missing form token (reload the page)")
    found = await server.author_of(request)
    if found is None:
        raise HTTPException(403, "log in to play")
    bot = inputs.form_text(fields, "bot", max_len=inputs.MAX_NAME)
    game = inputs.choice(inputs.form_text(fields, "game", max_len=50), game_names(), "game")
    seat_text = inputs.form_text(fields, "seat", max_len=10, default="random")
    if seat_text == "random":
        seat = secrets.randbelow(SEATS)
    else:
        seat = inputs.ascii_int(seat_text, 0, SEATS - 1, "seat")
    opponent = await server.db(_opponent, bot, game)
    token = secrets.token_urlsafe(16)
    web_game = WebGame(token, session.author_id, found[1], opponent.name, game, seat)
    tables = server.human_tables
    try:
        tables.reserve(web_game)  # the author's one table, and one of max_games: atomic
    except TableRefused as refused:
        raise HTTPException(refused.status, str(refused)) from None
    plan = _plan(server, web_game, opponent)
    try:
        reserved = await trio.to_thread.run_sync(
            reserve_human_game, server.engine, plan, limiter=server.limiter
        )
    except AlreadyPlaying:  # another process holds this person's game (arena play)
        tables.release(web_game)
        raise HTTPException(409, "you have a game being played already: finish it first") from None
    except BaseException:
        tables.release(web_game)
        raise
    web_game.match = reserved.match
    try:
        if tables.nursery is None:
            raise RuntimeError("the server is stopping")
        tables.nursery.start_soon(_play, server, web_game, plan, reserved)
    except RuntimeError:  # stopping: nursery gone or closed to new games
        tables.release(web_game)
        await trio.to_thread.run_sync(_unreserve, server, reserved, limiter=server.limiter)
        raise HTTPException(503, "games against bots are not available on this server") from None
    return RedirectResponse(f"/play/{token}", status_code=303)


def _token(request: Request) -> str:
    return inputs.web_token(request.path_params["token"], "game")


async def game_page(request: Request) -> Response:
    server = server_of(request)
    token = _token(request)
    found = await server.author_of(request)
    game = server.human_tables.of(token, found[0].author_id if found else None)
    title = get_game(game.game).title
    return await render(
        request, "play.html", game=game, title=title, think_s=server.human_tables.limits.think_s
    )


async def game_state(request: Request) -> Response:
    """``GET /play/ID/state[?seen=N&told=M]``: the game as its player may see it.

    ``seen``: the decision the page shows already (its moves are not sent again, only
    the clock); ``told``: how many lines of "what happened" the page has (only the
    lines after them are sent)."""
    server = server_of(request)
    session = server.session_of(request)
    game = server.human_tables.of(_token(request), session.author_id if session else None)
    query = request.query_params
    seen = inputs.ascii_int(query["seen"], 0, MAX_DECISION, "seen") if "seen" in query else None
    told = inputs.ascii_int(query["told"], 0, MAX_DECISION, "told") if "told" in query else 0
    data, shown = game.asker.current(server.human_tables.limits.think_s)
    if data["state"] == "your-move" and seen is not None and data["view"]["decision"] == seen:
        data = {"state": "your-move", "seconds_left": data["seconds_left"], "decision": seen}
    elif data.get("view") and shown is not None:
        data["board"] = await board_json(game, shown)
        choices = data["view"]["choices"]
        if len(choices) > CHOICES_LISTED:  # the board has them all (board.moves)
            data["view"]["choices"] = choices[:CHOICES_LISTED]
            data["view"]["choice_count"] = len(choices)
    story = tell(game)
    if game.error:
        data = {"state": "error", "error": game.error}
    elif game.done and data["state"] != "over":
        data = {"state": "over", "view": None}
    elif not game.done and data["state"] == "over":  # told the end; not stored yet
        data = {"state": "waiting"}
    if game.done and not game.error:
        data["ending"] = ending_text(game)
    data["story"] = story[told:]
    data["told"] = len(story)
    data["match"] = game.match.key if game.match else None
    data["replay"] = f"/matches/{game.match.key}" if game.match and game.done else None
    return JSONResponse(data, headers={"cache-control": "no-store"})


async def game_move(request: Request) -> Response:
    server = server_of(request)
    session = _session_for_change(request, server)
    if not csrf_ok(session, request.headers.get("x-csrf-token")):
        raise HTTPException(403, "bad or missing token (reload the page)")
    game = server.human_tables.of(_token(request), session.author_id)
    sent = inputs.json_object(await _small_body(request), "move")
    decision = inputs.json_int(sent.get("decision"), 0, MAX_DECISION, "decision")
    choice = inputs.json_int(sent.get("choice"), 0, MAX_CHOICE, "choice")
    refused = game.asker.answer(decision, choice)
    if refused:
        return JSONResponse({"error": refused}, status_code=409)
    return JSONResponse({"ok": True})


async def game_resign(request: Request) -> Response:
    """``POST /play/ID/resign`` (the session's CSRF token in ``x-csrf-token``, same
    origin only): the person resigns; the record says ``resigned``."""
    server = server_of(request)
    session = _session_for_change(request, server)
    if not csrf_ok(session, request.headers.get("x-csrf-token")):
        raise HTTPException(403, "bad or missing token (reload the page)")
    game = server.human_tables.of(_token(request), session.author_id)
    refused = game.asker.resign()
    if refused:
        return JSONResponse({"error": refused}, status_code=409)
    return JSONResponse({"ok": True})


def seat_names(game: WebGame) -> list[dict[str, Any]]:
    """The seats as the pages name them."""
    names = {game.seat: f"you ({game.player})", 1 - game.seat: game.bot}
    return [{"seat": s, "bot": names.get(s, f"seat {s}")} for s in range(SEATS)]


def move_json(codec: Any, action: Any) -> dict[str, Any]:
    """A legal move as the board reads it: the game's action message as JSON, without
    the game's name (``{"bid": {"quantity": 3, "face": 4}}``), every field printed,
    enum values without their type's prefix (``FIVES``, not ``DICE_POKER_LINE_FIVES``:
    Liar's Poker offers thousands of announcements)."""
    message = codec.encode_action(action)
    inner = getattr(message, message.WhichOneof("game"))
    data: dict[str, Any] = json_format.MessageToDict(
        inner, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    short: dict[str, Any] = _short_enums(data, enum_prefixes())
    return short


@functools.lru_cache(maxsize=1 << 15)
def _move_of(game: str, action: Any) -> dict[str, Any]:
    """:func:`move_json` of a game's action, kept (the same announcements come up at
    every Liar's Poker decision); the answer is shared: never change it."""
    return move_json(get_codec(game), action)


def _short_enums(value: Any, prefixes: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {key: _short_enums(item, prefixes) for key, item in value.items()}
    if isinstance(value, list):
        return [_short_enums(item, prefixes) for item in value]
    if isinstance(value, str):
        return _short_enum(value, prefixes)
    return value


@functools.cache
def _short_enum(value: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:  # longest first
        if value.startswith(prefix) and len(value) > len(prefix):
            return value[len(prefix) :]
    return value


def _moves(game: WebGame, view: SeatView) -> list[dict[str, Any]]:
    """The legal moves of ``view`` in the order of its choices (the order
    :class:`sdk.human.HumanSeat` asks with), as JSON; computed once per decision."""
    if game.moves is not None and game.moves[0] == view.decision:
        return game.moves[1]
    actions = legal_actions(view.observation)
    try:
        moves = [_move_of(game.game, action) for action in actions]
    except TypeError:  # an action that cannot be a key (a plugin game's): not kept
        codec = get_codec(game.game)
        moves = [move_json(codec, action) for action in actions]
    if len(moves) != len(view.choices):  # not the list the seat asks from: no board moves
        moves = []
    game.moves = (view.decision, moves)
    return moves


async def board_json(game: WebGame, view: SeatView) -> dict[str, Any] | None:
    """What the page needs to draw ``view`` with the game's replay renderer: the seat's
    own observation and its previous one, the engine's numbers and rule facts for it
    (``ViewerSpec.facts``), and, when the seat is asked for a move, the legal moves as
    JSON in the order of its choices (the board composes one: clicked dice, a card, a
    bid); None for a game without a renderer (the text view alone then)."""
    spec = get_entry(game.game).viewer
    if spec.renderer is None or view.observation is None:
        return None
    codec = get_codec(game.game)
    facts = load(spec.facts)(view.observation) if spec.facts else None
    moves: list[dict[str, Any]] = []
    if view.choices and not view.over:
        moves = await trio.to_thread.run_sync(_moves, game, view)
    return {
        "renderer": spec.renderer,
        "me": view.seat,
        "obs": observation_json(codec, view.observation),
        "prev": observation_json(codec, view.previous) if view.previous is not None else None,
        "facts": facts,
        "seats": seat_names(game),
        "moves": moves,
    }


def tell(game: WebGame) -> list[dict[str, Any]]:
    """What happened so far, as the player's seat reads it: every event in the engine's
    words for that seat (``describe_action``/``describe_chance`` with the seat as
    viewer: another seat's cup, discards or re-rolled positions left out; a chance
    outcome the seat sees nothing of is not told), and after each move what it settled
    as the seat's own observations tell it (``describe_outcome``), whoever moved.
    Kept on the game and extended with the events since the last call."""
    engine = get_game(game.game)
    if game.story_state is None:
        game.story_state = engine.new_game(engine.default_rules(), SEATS)
    events = game.events[game.story_events :]
    names = {game.seat: "you", 1 - game.seat: f"seat {1 - game.seat} ({game.bot})"}
    state = game.story_state
    seat = game.seat
    for event in events:
        actor = event.seat if isinstance(event, ActionEvent) else None
        who = names.get(actor) if actor is not None else None
        text = event_text(engine, state, event, seat, who=who)
        after = apply_event(engine, state, event)
        if text is not None:
            game.story.append({"seat": actor, "mine": actor == seat, "text": text})
        if actor is not None:
            seen = engine.observe(state, seat), engine.observe(after, seat)
            settled = outcome_text(engine, *seen, actor)
            if settled is not None:
                game.story.append({"seat": None, "mine": False, "text": settled, "settles": True})
        state = after
    game.story_state = state
    game.story_events += len(events)
    return game.story


FAULT_WORDS = {
    "timeout": "ran out of time",
    "resigned": "resigned",
    "crash": "crashed",
    "stall": "stopped answering",
    "startup": "did not start",
    "illegal_action": "made an illegal move",
    "malformed_message": "sent a move the referee could not read",
    "bad_probabilities": "stated probabilities that were not a distribution over legal moves",
}
"""How a finished game's page says each fault kind (``referee.core.faults``)."""


def ending_text(game: WebGame) -> str:
    """How the game ended, for its player: who ran out of time, resigned or faulted
    (the record's faults), else that it was played to the end, with the result and
    the engine's scores."""
    record = game.record
    if record is None:
        return "the game ended without a result (nothing was stored)"
    names = {game.seat: "you", 1 - game.seat: f"seat {1 - game.seat} ({game.bot})"}
    if record.reason == "aborted":
        return "the referee stopped the game: nobody is blamed and it counts for nobody"
    faults = [
        f"{names.get(f.seat, f'seat {f.seat}')} {FAULT_WORDS.get(f.kind.value, f.kind.value)}"
        for f in record.faults
    ]
    how = "; ".join(faults) if faults else "the game was played to the end"
    places = record.places
    mine = places[game.seat] if game.seat < len(places) else None
    if mine is None:
        verdict = ""
    elif places.count(mine) > 1:
        verdict = "a draw"
    else:
        verdict = "you won" if mine == min(places) else "you lost"
    scores = ", ".join(
        f"{names.get(s, f'seat {s}')} {score:g}" for s, score in enumerate(record.scores)
    )
    return f"{how}: {verdict} (scores: {scores})" if verdict else f"{how} (scores: {scores})"


async def viewer_script(request: Request) -> Response:
    """The replay viewer's drawing kit and a game's renderer, as scripts of this
    origin (the page's CSP runs no inline script)."""
    name = request.path_params["name"]
    if name == "kit":
        text = viewer_asset("games.js")
    elif name in game_names() and get_entry(name).viewer.script:
        text = renderer_script(name)
    else:
        raise HTTPException(404, f"no viewer script {name!r}")
    return Response(text, media_type="text/javascript", headers={"cache-control": "max-age=300"})


async def viewer_css(request: Request) -> Response:
    text = "#board { --card: #fff; --hl: #fff4c2; }\n" + viewer_asset("viewer.css")
    return Response(text, media_type="text/css", headers={"cache-control": "max-age=300"})


async def live_page(request: Request) -> Response:
    """``/live``: the games people are playing against bots now, to watch."""
    server = server_of(request)
    games = [g for g in server.human_tables.running() if g.match is not None]
    return await render(request, "live.html", games=games, title_of=lambda g: get_game(g).title)


async def watch_page(request: Request) -> Response:
    server = server_of(request)
    game = server.human_tables.by_match(inputs.match_key(request.path_params["key"]))
    return await render(request, "watch.html", game=game, title=get_game(game.game).title)


async def watch_feed(request: Request) -> Response:
    server = server_of(request)
    game = server.human_tables.by_match(inputs.match_key(request.path_params["key"]))
    return JSONResponse(spectator_feed(game), headers={"cache-control": "no-store"})


def routes() -> list[BaseRoute]:
    return [
        Route("/play", start_game, methods=["POST"]),
        Route("/play/{token}", game_page),
        Route("/play/{token}/state", game_state),
        Route("/play/{token}/move", game_move, methods=["POST"]),
        Route("/play/{token}/resign", game_resign, methods=["POST"]),
        Route("/static/viewer/board.css", viewer_css),
        Route("/static/viewer/{name}.js", viewer_script),
        Route("/live", live_page),
        Route("/watch/{key}", watch_page),
        Route("/watch/{key}/feed", watch_feed),
    ]
