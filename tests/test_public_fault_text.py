"""A fault's message holds the referee's words only (issue 42, item 2): for every gRPC
status a bot's server can end a call with, and every action message a bot can send in
every registered game, no byte of a canary the bot planted reaches the message.

The messages are recorded, and records are public (``/api/matches``, replay pages,
spectators). The end-to-end test with a real bot process is
``tests/security/test_canary.py``; this one covers the whole class of inputs the
referee quotes from: gRPC details (:func:`referee.runtime.channel.public_details`,
:func:`~referee.runtime.channel.rpc_error_words`) and actions (the codec's and the
engine's words, :mod:`referee.runtime.public_text`), with a guard that shows the
codec's own words would have carried the canary.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec, get_game
from referee.core.driver import MatchDriver
from referee.core.faults import BotFault, BotStartupError, FaultKind
from referee.core.playout import random_playout
from referee.gamekit.base import CHANCE, MalformedActionError
from referee.records.record import (
    MatchRecord,
    RecordedFault,
    SeatInfo,
    chain_problems,
    without_bot_output,
)
from referee.runtime.channel import StreamClosed, closed_fault, grpc_words, rpc_error_words
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import EngineFailure, Limits, MatchSpec, _decode, _Table
from referee.runtime.process import BotSpec
from referee.runtime.public_text import action_quotable, carries_text
from referee.wire import Codec
from referee.wire.derived import DerivedCodec
from tests.game_plugins import registered_games

CANARY = "canary" + secrets.token_hex(8)

DETAILS = [
    CANARY,
    f"Socket closed {CANARY}",
    f"Exception iterating responses: {CANARY}",
    f"Exception calling application: {CANARY}",
    f"keepalive watchdog timeout {CANARY}",
    f"GOAWAY received; Error code: 0; Debug Text: {CANARY}",
    f"Exception deserializing response! {CANARY}",
    f"Received message larger than max ({CANARY})",
    f"failed to connect to all addresses; last error: UNKNOWN: Ssl handshake failed:"
    f" CERTIFICATE_VERIFY_FAILED {CANARY}",
    f"{CANARY}: ping",
    "",
]
"""Details a bot's server (or an impostor at a bot's address) can end a call with."""


@pytest.mark.parametrize("code", [c for c in grpc.StatusCode if c != grpc.StatusCode.OK])
def test_no_grpc_details_reach_a_fault_message(code: grpc.StatusCode) -> None:
    for details in DETAILS:
        fault = closed_fault(StreamClosed(code, details))
        assert CANARY not in fault.message, (code, details, fault.message)
        assert fault.message.startswith(f"stream broke: {code.name}: "), fault.message
        assert CANARY not in rpc_error_words(FakeRpcError(code, details))


def test_known_grpc_phrases_are_said_in_the_referees_words() -> None:
    assert grpc_words(f"Socket closed {CANARY}") == "Socket closed"
    assert grpc_words("") == "no details"
    assert grpc_words(CANARY).startswith("details not quoted")
    tls = grpc_words(f"Ssl handshake failed: CERTIFICATE_VERIFY_FAILED {CANARY}")
    assert tls == "TLS handshake failed (CERTIFICATE_VERIFY_FAILED)"
    # The classification still reads the details (a bot may choose its own fault kind).
    unparsable = StreamClosed(grpc.StatusCode.INTERNAL, "Exception deserializing response!")
    assert closed_fault(unparsable).kind == FaultKind.MALFORMED_MESSAGE
    stalled = StreamClosed(grpc.StatusCode.UNAVAILABLE, "keepalive watchdog timeout")
    assert closed_fault(stalled).kind == FaultKind.STALL
    iterating = StreamClosed(grpc.StatusCode.UNKNOWN, f"Exception iterating responses: {CANARY}")
    assert "Exception iterating responses (the bot's own error message" in (
        closed_fault(iterating).message
    )


class FakeRpcError(grpc.RpcError):  # type: ignore[misc]  # grpc has no type stubs
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


# -- actions ------------------------------------------------------------------------------


def test_which_games_actions_may_be_described() -> None:
    """The built-in games' actions are numbers and names; an installed game's travel
    packed in an ``Any`` (type URL and bytes the bot chose)."""
    for name in registered_games():
        codec = get_codec(name)
        builtin = name in bot_pb2.Action.DESCRIPTOR.fields_by_name
        assert action_quotable(codec) == builtin, name
    assert carries_text(bot_pb2.HealthResponse.DESCRIPTOR)  # name, games
    assert carries_text(bot_pb2.Action.DESCRIPTOR)  # the extension Any
    assert carries_text(bot_pb2.PlayResponse.DESCRIPTOR)  # TurnResponse.nonce
    assert not carries_text(bot_pb2.Ready.DESCRIPTOR)


def unknown_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field ``number`` no message of the protocol declares."""

    def varint(value: int) -> bytes:
        out = b""
        while True:
            low, value = value & 0x7F, value >> 7
            if not value:
                return out + bytes([low])
            out += bytes([low | 0x80])

    return varint(number << 3 | 2) + varint(len(payload)) + payload


INTS = [0, 1, 2, 3, 5, 6, 7, 13, 99, 2**31 - 1, 2**32 - 1]


def fill(message: Message, rng: random.Random, depth: int = 0) -> None:
    """Random values in ``message``'s fields; every string and bytes field the canary."""
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.35:
            continue
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth > 3:
                continue
            container = getattr(message, field.name)
            child = container.add() if field.is_repeated else container
            fill(child, rng, depth + 1)
            if not field.is_repeated:
                child.SetInParent()
            continue
        if field.type == FieldDescriptor.TYPE_ENUM:
            assert field.enum_type is not None
            value: Any = rng.choice([v.number for v in field.enum_type.values] + [42])
        elif field.type == FieldDescriptor.TYPE_BOOL:
            value = rng.random() < 0.5
        elif field.type == FieldDescriptor.TYPE_STRING:
            value = CANARY
        elif field.type == FieldDescriptor.TYPE_BYTES:
            value = CANARY.encode()
        elif field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
            value = rng.choice([0.0, 1.5, -3.0])
        else:
            value = rng.choice(INTS) if field.type != FieldDescriptor.TYPE_INT32 else 7
        if field.is_repeated:
            getattr(message, field.name).extend([value] * rng.randint(0, 3))
        else:
            setattr(message, field.name, value)


def hostile_action(codec: Any, rng: random.Random) -> bot_pb2.Action:
    """An action message with the canary wherever a bot can put text: unknown fields
    of the game's message, strings, an ``Any``'s type URL or packed bytes."""
    roll = rng.random()
    if roll < 0.8 and isinstance(codec, DerivedCodec):
        inner = codec.action_message()
        fill(inner, rng)
        inner.MergeFromString(unknown_field(9999, CANARY.encode()))
        message = codec.wrap_action(inner)
        if message.WhichOneof("game") == "extension" and rng.random() < 0.2:
            message.extension.type_url += CANARY
        return message
    message = bot_pb2.Action()
    fill(message, rng)
    if roll < 0.9:
        message.extension.type_url = f"type.googleapis.com/{CANARY}"
        message.extension.value = CANARY.encode()
    message.MergeFromString(unknown_field(9999, CANARY.encode()))
    return message


def decisions(name: str, count: int = 12) -> list[Any]:
    """States along a random playout where a seat is to act."""
    game = get_game(name)
    playout = random_playout(game, game.default_rules(), game.min_seats, random.Random(3))
    acting = [s for s in playout.states if game.to_act(s) not in (None, CHANCE)]
    return acting[:: max(1, len(acting) // count)]


@pytest.mark.parametrize("name", registered_games())
def test_no_action_a_bot_sends_reaches_a_fault_message(name: str) -> None:
    """Decode and apply hostile actions as the live referee does (its own ``_decode``
    and ``_act``): a fault or an engine failure, and never the canary in its text."""
    game, codec = get_game(name), get_codec(name)
    bots = tuple(BotSpec(f"seat{i}", command=("true",)) for i in range(game.min_seats))
    table = _Table(MatchSpec(name, bots), Limits(), FreshLauncher(), None, None)
    states = decisions(name)
    rng = random.Random(11)
    faults = 0
    for attempt in range(400):
        message = hostile_action(codec, rng)
        assert CANARY.encode() in message.SerializeToString()
        try:
            action = _decode(codec, message, quotable=table.quotable)
        except BotFault as fault:
            faults += 1
            assert CANARY not in fault.message, fault.message
            continue
        driver = MatchDriver(game, table.rules, game.min_seats, codec=codec)
        driver.state = states[attempt % len(states)]
        decision = driver.decision()
        try:
            table._act(driver, decision, action)
        except BotFault as fault:
            faults += 1
            assert CANARY not in fault.message, fault.message
        except EngineFailure as failure:
            assert CANARY not in str(failure), str(failure)
    assert faults > 100, faults  # most hostile messages are refused


class QuotingCodec(Codec[Any, Any]):
    """A codec as :class:`referee.wire.base.Codec` documents one: its error quotes the
    offending message (an installed game's, whose actions come packed in an Any)."""

    game = "quoting_game"

    def encode_observation(self, observation: Any) -> bot_pb2.Observation:
        raise NotImplementedError

    def decode_observation(self, message: bot_pb2.Observation) -> Any:
        raise NotImplementedError

    def encode_action(self, action: Any) -> bot_pb2.Action:
        raise NotImplementedError

    def decode_action(self, message: bot_pb2.Action) -> Any:
        raise MalformedActionError(f"not a {self.game} action: {message}")


def test_guard_a_codec_quoting_the_message_would_leak_without_the_check() -> None:
    codec = QuotingCodec()
    message = hostile_action(codec, random.Random(5))
    message.extension.value = CANARY.encode()
    with pytest.raises(BotFault) as unchecked:
        _decode(codec, message, quotable=True)  # the old behaviour
    assert CANARY in unchecked.value.message
    assert not action_quotable(codec)
    with pytest.raises(BotFault) as checked:
        _decode(codec, message, quotable=action_quotable(codec))
    assert CANARY not in checked.value.message
    assert "not described" in checked.value.message


def test_a_failed_starts_output_is_its_authors_not_the_messages() -> None:
    fault = BotStartupError("bot exited with code 1 before it was ready", output=b"x" * 10)
    assert fault.output == b"x" * 10 and "x" not in fault.message.replace("exited", "")


# -- records written by older referees -------------------------------------------------


def legacy_record(messages: list[str]) -> MatchRecord:
    """A sealed record whose faults carry ``messages`` as older referees wrote them."""
    faults = tuple(
        RecordedFault(seat=seat, kind=FaultKind.STARTUP, message=message, at_event=0)
        for seat, message in enumerate(messages)
    )
    return MatchRecord(
        match_id="old-1", game="liars_dice", rules={}, num_seats=len(messages), seed=None,
        seats=tuple(SeatInfo(seat=s, bot=f"b{s}") for s in range(len(messages))),
        events=(), faults=faults, reason="forfeit", places=(2,) * len(messages),
        scores=(0.0,) * len(messages),
    ).sealed()  # fmt: skip


@pytest.mark.parametrize(
    "nonce",
    [CANARY, f"x', but {CANARY}", f"it's {CANARY}", f"a\"b'c {CANARY}"],
    ids=["bare", "quote-comma-but", "apostrophe", "both-quotes"],  # the canary is random:
)  # ids of their own, or pytest-xdist's workers collect different tests
def test_an_older_referees_quotes_of_bot_text_are_taken_out_of_its_records(nonce: str) -> None:
    old = legacy_record(
        [
            f"bot: bot exited with code 1 before it was ready; its output ends: {CANARY}\n"
            f"Traceback: RuntimeError: {CANARY}",
            f"answered turn 3 with nonce {nonce[:40]!r}, but its TurnRequest carried nonce"
            " 'abc' (protocol 3: an answer must echo the nonce of the request it answers)",
        ]
    )
    assert CANARY in old.to_json()  # guard: as stored by an older referee
    clean = without_bot_output(old)
    assert CANARY not in clean.to_json(), clean.to_json()
    assert clean.faults[0].message == "bot: bot exited with code 1 before it was ready"
    assert clean.faults[1].message.startswith(
        "answered turn 3 with a nonce of its own (not quoted), but its TurnRequest carried"
        " nonce 'abc'"
    )
    assert chain_problems(clean) == [] and clean.header_hash == old.header_hash
    assert without_bot_output(clean) is clean  # a record written since: unchanged


def test_the_server_serves_an_older_referees_records_without_the_bots_text() -> None:
    """Records stored before the referee stopped quoting bots are cleaned as they are
    served (``/api/matches/...``, the replay viewer: both read ``public_record``)."""
    from league.server.views import public_record

    old = legacy_record([f"bot: bot exited with code 1; its output ends: {CANARY}", "x"])
    assert CANARY in old.to_json()  # guard: as stored
    served = public_record(old)
    assert CANARY not in served.to_json()
    assert served.faults[0].message == "bot: bot exited with code 1"
