"""Serving a bot over gRPC, hidden behind :func:`run`.

The referee starts a bot process with ``ARENA_LISTEN=unix:/private/path`` in its
environment (or the bot is started by hand with ``--listen HOST:PORT``); ``run``
serves ``arena.v1.BotService`` there until SIGTERM or SIGINT. Each Play stream is
one match for one seat, played by a fresh instance of the bot class.

A bot served on a network address must be protected: it requires a token
(``ARENA_BOT_TOKEN`` or ``--token-file``) that every call must carry as
``authorization: Bearer <token>`` metadata (others get UNAUTHENTICATED), and
should serve TLS (``--tls-cert``/``--tls-key``) so the referee knows it is talking
to this bot and the token is not sent in clear.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc
from referee.core.catalogue import get_codec, get_game
from referee.core.protocol import (
    MIXED_PROTOCOL,
    NONCE_PROTOCOL,
    PROTO_FAULTS,
    PROTO_REASONS,
    PROTOCOL_VERSION,
)

if TYPE_CHECKING:
    import argparse

    from referee.wire.base import Codec
    from referee.wire.deltas import DeltaDecoder
from sdk.bot import Bot, MatchInfo, MatchResult, Mixed, SeatResult

SERVER_OPTIONS: list[tuple[str, int]] = [
    ("grpc.max_receive_message_length", 16 << 20),
    # The referee pings an idle stream every 5 s to detect frozen peers (a seat thinking
    # long: a person, a generous time limit); allow it. gRPC's key for the least
    # interval between pings it accepts without data is this one (the C constant is
    # named ..._MIN_RECV_PING_INTERVAL_...: that spelling is ignored, and the default of
    # 5 minutes and 2 strikes then ended the stream with GOAWAY "too_many_pings").
    ("grpc.http2.min_ping_interval_without_data_ms", 1000),
    ("grpc.http2.max_ping_strikes", 0),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.so_reuseport", 0),
]

_FAULT_NAMES = {proto: name for name, proto in PROTO_FAULTS.items()}
_REASON_NAMES = {proto: name for name, proto in PROTO_REASONS.items()}

BotFactory = Callable[[], Bot[Any, Any]]


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """``arena.v1.BotService`` for one bot class (one instance per match).

    It speaks ``protocol_version`` (the current one unless a test reproduces an
    older SDK): from protocol 3 every answer echoes its request's nonce.
    """

    def __init__(self, factory: BotFactory, *, protocol_version: int = PROTOCOL_VERSION) -> None:
        self.factory = factory
        self.protocol_version = protocol_version
        probe = factory()
        self.game = probe.game
        self.name = probe.name or type(probe).__name__
        self.engine = get_game(self.game)
        self._codec: Codec[Any, Any] | None = None
        self._codec_lock = threading.Lock()

    @property
    def codec(self) -> Codec[Any, Any]:
        """The game's codec, built by the first Play (a few milliseconds, once): a bot
        answers Health without it. The referee builds the same codec, checked against
        the wire, before it starts any bot."""
        if self._codec is None:
            with self._codec_lock:
                if self._codec is None:
                    self._codec = get_codec(self.game)
        return self._codec

    def Health(
        self, request: bot_pb2.HealthRequest, context: grpc.ServicerContext
    ) -> bot_pb2.HealthResponse:
        return bot_pb2.HealthResponse(
            name=self.name, games=[self.game], protocol_version=self.protocol_version
        )

    def Play(
        self, request_iterator: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[bot_pb2.PlayResponse]:
        from referee.wire.deltas import DeltaDecoder  # after Health: see codec

        bot: Bot[Any, Any] | None = None
        observations = DeltaDecoder(self.codec)
        for request in request_iterator:
            kind = request.WhichOneof("kind")
            if kind == "start":
                bot = self._start(request.start, context)
                observations = DeltaDecoder(self.codec)
                yield bot_pb2.PlayResponse(ready=bot_pb2.Ready(observation_deltas=True))
            elif kind == "turn":
                if bot is None:
                    context.abort(
                        grpc.StatusCode.FAILED_PRECONDITION, "TurnRequest before MatchStart"
                    )
                assert bot is not None
                yield bot_pb2.PlayResponse(turn=self._turn(bot, request.turn, observations))
            elif kind == "end":
                if bot is not None:
                    self._end(bot, request.end, observations)
                return
            else:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "empty PlayRequest")

    def _start(self, start: bot_pb2.MatchStart, context: grpc.ServicerContext) -> Bot[Any, Any]:
        if start.game != self.game:
            context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"this bot plays {self.game}, not {start.game!r}",
            )
        bot = self.factory()
        _told(bot.start)(
            MatchInfo(
                match_id=start.match_id,
                game=start.game,
                rules=self.engine.parse_rules(dict(start.rules)),
                seat=start.seat,
                num_seats=start.num_seats,
                raw_rules=dict(start.rules),
            )
        )
        return bot

    def _turn(
        self, bot: Bot[Any, Any], turn: bot_pb2.TurnRequest, observations: DeltaDecoder
    ) -> bot_pb2.TurnResponse:
        observation = observations.decode(turn.observation)
        action = _told(bot.act)(observation)
        nonce = turn.nonce if self.protocol_version >= NONCE_PROTOCOL else ""
        if type(action) is Mixed:
            if self.protocol_version >= MIXED_PROTOCOL:
                return bot_pb2.TurnResponse(turn=turn.turn, nonce=nonce, mixed=self._mixed(action))
            # a servicer held to an older protocol draws itself, with the bot's own rng
            weights = action.probabilities
            action = bot.rng.choices(list(weights), list(weights.values()))[0]
        try:
            encoded = self.codec.encode_action(action)
        except Exception as error:  # the bot returned something that is not an action
            print(
                f"bot returned {action!r}, which is not a {self.game} action: {error!r}",
                file=sys.stderr,
            )
            encoded = bot_pb2.Action()
        stated = self._stated_policy(bot, observation) if turn.want_policy else []
        return bot_pb2.TurnResponse(turn=turn.turn, action=encoded, nonce=nonce, policy=stated)

    def _mixed(self, move: Mixed) -> list[bot_pb2.ActionProbability]:
        """A mixed move's entries as sent; an entry that is not an action of this game
        is sent empty (the referee then faults the answer as malformed)."""
        out = []
        for action, probability in move.probabilities.items():
            try:
                encoded = self.codec.encode_action(action)
            except Exception as error:  # the bot's bug: say so in its own log
                print(
                    f"mixed move entry {action!r} is not a {self.game} action: {error!r}",
                    file=sys.stderr,
                )
                encoded = bot_pb2.Action()
            try:
                p = float(probability)
            except (TypeError, ValueError):  # the referee faults it: bad_probabilities
                p = math.nan
            out.append(bot_pb2.ActionProbability(action=encoded, probability=p))
        return out

    def _stated_policy(
        self, bot: Bot[Any, Any], observation: Any
    ) -> list[bot_pb2.ActionProbability]:
        """``Bot.policy`` for a request that asked for it (``arena exploit
        --ask-policy``); empty if the bot offers none or states what cannot be encoded.
        Self-reported: nothing checks that ``act`` plays it."""
        try:
            offered = bot.policy(observation)
            if offered is None:
                return []
            return [
                bot_pb2.ActionProbability(
                    action=self.codec.encode_action(action), probability=float(probability)
                )
                for action, probability in offered.items()
            ]
        except Exception as error:  # a bot's bug: the referee then samples instead
            print(f"bot policy() failed: {error!r}", file=sys.stderr)
            return []

    def _end(self, bot: Bot[Any, Any], end: bot_pb2.MatchEnd, observations: DeltaDecoder) -> None:
        results = tuple(
            SeatResult(seat=r.seat, place=r.place, score=r.score, fault=_FAULT_NAMES.get(r.fault))
            for r in end.results
        )
        observation = observations.decode(end.observation)
        bot.end(MatchResult(_REASON_NAMES.get(end.reason, "aborted"), results, observation))


class TokenCheck(grpc.ServerInterceptor):  # type: ignore[misc]
    """Refuse every call whose ``authorization`` metadata is not ``Bearer <token>``."""

    def __init__(self, token: str) -> None:
        if not token or any(ch.isspace() or not ch.isprintable() for ch in token):
            raise ValueError("the bot token must be non-empty, without spaces or control chars")
        self._expected = f"Bearer {token}".encode()
        import hmac  # only bots served with a token load it (and hashlib): start-up

        self._compare = hmac.compare_digest

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        given = next(
            (str(v) for k, v in details.invocation_metadata or () if k == "authorization"), ""
        )
        if self._compare(given.encode(), self._expected):
            return continuation(details)
        return _refusal(str(details.method).endswith("/Play"))


def _refusal(streaming: bool) -> grpc.RpcMethodHandler:
    def refuse(request: object, context: grpc.ServicerContext) -> None:
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bot token")

    if streaming:
        return grpc.stream_stream_rpc_method_handler(refuse)
    return grpc.unary_unary_rpc_method_handler(refuse)


def serve(
    factory: BotFactory,
    address: str,
    *,
    max_workers: int = 64,
    token: str = "",
    tls_cert: bytes | None = None,
    tls_key: bytes | None = None,
) -> grpc.Server:
    """Start serving on ``address`` and return the running server.

    ``token``: calls without ``authorization: Bearer <token>`` are refused.
    ``tls_cert``/``tls_key`` (PEM): serve TLS with that certificate.
    """
    if (tls_cert is None) != (tls_key is None):
        raise ValueError("give both a TLS certificate and its key, or neither")
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="arena-bot"),
        options=SERVER_OPTIONS,
        interceptors=[TokenCheck(token)] if token else None,
    )
    servicer = BotServicer(factory)
    bot_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)
    if tls_cert is not None and tls_key is not None:
        credentials = grpc.ssl_server_credentials([(tls_key, tls_cert)])
        port = server.add_secure_port(address, credentials)
    else:
        port = server.add_insecure_port(address)
    if port == 0 and not address.startswith("unix:"):
        raise OSError(f"cannot listen on {address}")
    server.start()
    return server


def run(factory: BotFactory, argv: Sequence[str] | None = None) -> None:
    """Serve the bot until SIGTERM/SIGINT. ``factory`` is usually the Bot subclass.

    The address comes from ``--listen`` or the ``ARENA_LISTEN`` environment
    variable (set by the referee); e.g. ``unix:/tmp/x.sock`` or ``127.0.0.1:50051``.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    parser: argparse.ArgumentParser | None = None
    if args:
        parser = _parser()
        options: Any = parser.parse_known_args(args)[0]
    else:  # how the referee starts a bot: everything from the environment
        options = _from_environment()

    def fail(message: str) -> NoReturn:
        (parser or _parser()).error(message)

    if not options.listen:
        fail("no address: pass --listen ADDRESS or set ARENA_LISTEN")
    try:
        token = read_token(options.token_file)
        tls_cert, tls_key = (
            _read_file(path, what) if path else None
            for path, what in ((options.tls_cert, "--tls-cert"), (options.tls_key, "--tls-key"))
        )
    except ValueError as error:
        fail(str(error))
    if not token and not options.no_token and not options.listen.startswith("unix:"):
        fail(
            f"serving {options.listen} needs a token: set ARENA_BOT_TOKEN or pass --token-file"
            " (or --no-token to let anyone play this bot)"
        )
    if (tls_cert is None) != (tls_key is None):
        fail("--tls-cert and --tls-key go together")
    try:
        server = serve(
            factory,
            options.listen,
            max_workers=options.max_workers,
            token=token,
            tls_cert=tls_cert,
            tls_key=tls_key,
        )
    except Exception:
        traceback.print_exc()
        raise SystemExit(2) from None
    stopped = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    while not stopped.wait(0.5):
        if orphaned():
            print("the referee that started this bot is gone; stopping", file=sys.stderr)
            break
    server.stop(grace=0.5).wait()


def _parser() -> argparse.ArgumentParser:
    import argparse  # a bot the referee starts has no arguments: its start skips this

    parser = argparse.ArgumentParser(description="Serve a Bluff Arena bot.")
    parser.add_argument(
        "--listen",
        default=os.environ.get("ARENA_LISTEN"),
        help="address to serve on (default: $ARENA_LISTEN)",
    )
    parser.add_argument(
        "--max-workers", type=int, default=64, help="concurrent matches this process can play"
    )
    parser.add_argument(
        "--tls-cert",
        default=os.environ.get("ARENA_TLS_CERT"),
        help="PEM certificate to serve TLS with (default: $ARENA_TLS_CERT)",
    )
    parser.add_argument(
        "--tls-key",
        default=os.environ.get("ARENA_TLS_KEY"),
        help="PEM private key of --tls-cert (default: $ARENA_TLS_KEY)",
    )
    parser.add_argument(
        "--token-file",
        default=os.environ.get("ARENA_BOT_TOKEN_FILE"),
        help="file holding the token callers must send (default: $ARENA_BOT_TOKEN_FILE;"
        " or put the token itself in $ARENA_BOT_TOKEN)",
    )
    parser.add_argument(
        "--no-token",
        action="store_true",
        help="serve a network address without a token (anyone who can connect may play it)",
    )
    return parser


def _from_environment() -> SimpleNamespace:
    """The options :func:`_parser` gives for no arguments, without building it."""
    environ = os.environ
    return SimpleNamespace(
        listen=environ.get("ARENA_LISTEN"),
        max_workers=64,
        tls_cert=environ.get("ARENA_TLS_CERT"),
        tls_key=environ.get("ARENA_TLS_KEY"),
        token_file=environ.get("ARENA_BOT_TOKEN_FILE"),
        no_token=False,
    )


def read_token(token_file: str | None) -> str:
    """The token from ``token_file`` if given, else ``$ARENA_BOT_TOKEN`` (may be empty)."""
    if token_file:
        token = _read_file(token_file, "--token-file").decode("utf-8", "replace").strip()
        if not token:
            raise ValueError(f"token file {token_file!r} is empty")
        return token
    return os.environ.get("ARENA_BOT_TOKEN", "").strip()


def _read_file(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise ValueError(f"cannot read {what} {path!r}: {error}") from None


def orphaned() -> bool:
    """True when the referee that started this process has died (we were re-parented)."""
    referee = os.environ.get("ARENA_REFEREE_PID", "")
    return referee.isdigit() and os.getppid() != int(referee)


def _told(method: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``method`` that, when it raises, first prints the bot's traceback on stderr
    (where its author reads it: `arena match`, `arena league logs`); the referee
    then sees the broken stream, as before, and faults the bot."""

    def call(argument: Any) -> Any:
        try:
            return method(argument)
        except Exception as error:
            if not getattr(error, "quiet", False):  # a person who left has no traceback
                traceback.print_exc()
                sys.stderr.flush()
            raise

    return call
