"""Ask a bot what it plays at every information set, through the normal protocol.

The exploitability of a bot (``arena exploit``) needs its policy at every decision
point of a small variant. The bot is started exactly as for a match (the referee's
launcher, its sandbox), and every question is a match-like stream of its own:
``MatchStart``, ``Ready``, one ``TurnRequest`` carrying the information set's
observation, its answer; then the stream is dropped. ``K`` samples per information
set estimate a stochastic policy by frequencies.

A bot that could tell a probe from a real match could play well when probed and
badly in matches, so the ``MatchStart`` is a real match's: an opaque match id drawn
as the referee draws one for a match (:func:`referee.core.messages.new_match_token`, fresh
per sample, so a bot that draws from ``self.rng`` draws anew), the canonical rules
the referee sends (every option, ``format_rules``), and the ``TurnRequest`` carries
the turn number the match would have reached. A bot can still tell it from a
match (8 streams open at once, a first turn deep in a round, no ``MatchEnd``:
``tests/security/test_probe_sensing.py``'s guard), so ``arena exploit`` samples a
bot by playing real matches instead (:mod:`league.execution.probe_matches`); this
per-question probe is left for ``--ask-policy`` (whose request says it is a
measurement anyway), the local best response's questions (``--lower-bound``) and
tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import trio

from arena.v1 import bot_pb2
from referee.analysis.best_response import Frontier, GameTree, InfoSet
from referee.core import messages
from referee.core.chance import new_secret
from referee.core.faults import BotFault
from referee.core.mixed import BadProbabilitiesError, checked, draw, mixed_key
from referee.core.protocol import NONCE_PROTOCOL, seat_protocol
from referee.gamekit.base import GameError
from referee.runtime.channel import BotConnection
from referee.runtime.launcher import FreshLauncher
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from referee.wire import Codec
from referee.wire.deltas import DeltaEncoder

PARALLEL_STREAMS: Final = 8
"""Questions in flight at once on the one bot process (hides the round-trip time)."""


class ProbeError(Exception):
    """The bot could not be asked, or answered with something that is not a legal action."""


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    """How to reach and ask the bot."""

    game: str
    raw_rules: Mapping[str, str]
    samples: int = 1
    startup_s: float = 10.0
    decision_s: float = 5.0
    sandbox: SandboxConfig = DEFAULT_SANDBOX
    want_policy: bool = False
    """Set ``TurnRequest.want_policy``: ask the bot to state its policy (self-reported;
    the request tells the bot it is measured, so it is never the default)."""


async def probe_answers(
    spec: BotSpec,
    tree: GameTree,
    seat: int,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
    on_progress: Callable[[int], None] | None = None,
) -> dict[int, list[int]]:
    """``seat``'s sampled play: at each information set asked, the indices of the
    bot's ``samples`` answers among the legal actions, in the order they came.

    Only where the bot's own sampled answers can lead is it asked, wave by wave
    down the tree (:func:`~referee.analysis.best_response.unanswered_reachable`): an
    information set no sampled answer leads to has no reach under any estimate
    made from these answers, so asking there would change no number. One legal
    action: no question. ``on_progress`` gets the count asked so far."""
    answers: dict[int, list[int]] = {}
    start_rules = tree.game.format_rules(tree.rules)  # what run_match sends, every option
    limiter = trio.CapacityLimiter(PARALLEL_STREAMS)
    launcher = FreshLauncher(sandbox=settings.sandbox)
    frontiers = Frontier(tree, seat)
    async with launcher.lease(spec, settings.startup_s) as lease:

        async def ask_all(index: int) -> None:
            question = _Question(tree.infosets[index], seat, start_rules)
            async with limiter:
                row = [
                    (await _ask(lease.connection, question, codec, settings))[0]
                    for _sample in range(settings.samples)
                ]
            answers[index] = row
            if on_progress is not None:
                on_progress(len(answers))

        while frontier := frontiers.advance(answers):
            async with trio.open_nursery() as nursery:
                for index in sorted(frontier):
                    if len(tree.infosets[index].actions) == 1:
                        answers[index] = [0] * settings.samples
                    else:
                        nursery.start_soon(ask_all, index)
    return answers


@dataclass(frozen=True, slots=True)
class _Question:
    """One information set to ask about, as a seat of a match would meet it."""

    infoset: InfoSet
    seat: int
    rules: Mapping[str, str]
    """The canonical rules (``format_rules``), as ``run_match`` sends them."""


async def ask_action(
    connection: BotConnection,
    infoset: InfoSet,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
    rules: Mapping[str, str],
) -> int:
    """One question at one observation (``infoset.seat`` plays): the index of the
    bot's action among ``infoset.actions``; for callers that choose the observations
    themselves (local best response, ``league/execution/lbr_against_bot.py``). ``rules``:
    the canonical rules text (``format_rules``), as a real match's MatchStart has it."""
    index, _ = await _ask(connection, _Question(infoset, infoset.seat, rules), codec, settings)
    return index


async def _ask(
    connection: BotConnection,
    question: _Question,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
) -> tuple[int, bot_pb2.TurnResponse]:
    """One match-like stream: the index of the bot's action among the legal ones, and
    its whole answer (with the stated policy if ``settings.want_policy``)."""
    infoset = question.infoset
    health = connection.health
    protocol = seat_protocol(health.protocol_version if health else 0)
    stream = connection.open_stream()
    budget = settings.decision_s + settings.startup_s
    try:
        with trio.fail_after(budget):
            stream.send(
                messages.match_start(
                    match_id=messages.new_match_token(match_id=""),  # no seed or key: secrets
                    game=settings.game,
                    rules=question.rules,
                    seat=question.seat,
                    num_seats=2,
                )
            )
            ready = await stream.receive()
            if ready.WhichOneof("kind") != "ready":
                raise ProbeError(f"the bot answered MatchStart with {ready.WhichOneof('kind')}")
            encoder = DeltaEncoder(codec, enabled=ready.ready.observation_deltas)
            nonce = messages.new_nonce() if protocol >= NONCE_PROTOCOL else ""
            request = messages.turn_request(
                turn=infoset.turn,
                observation=encoder.encode(infoset.observation),
                time_limit_ms=int(settings.decision_s * 1000),
                nonce=nonce,
            )
            request.turn.want_policy = settings.want_policy
            stream.send(request)
            reply = await stream.receive()
    except trio.TooSlowError:
        raise ProbeError(f"no answer within {budget:g} s at {infoset.observation!r}") from None
    except BotFault as fault:
        raise ProbeError(f"the bot failed: {fault.message}") from None
    finally:
        stream.cancel()
    if reply.WhichOneof("kind") != "turn":
        raise ProbeError(f"expected an action, got {reply.WhichOneof('kind')}")
    if reply.turn.mixed:
        action = _drawn(reply.turn, infoset, codec)
    else:
        action = _decoded(codec, reply.turn.action)
    if action not in infoset.actions:
        raise ProbeError(f"illegal action {action!r} at {infoset.observation!r}")
    return infoset.actions.index(action), reply.turn


def _decoded(codec: Codec[Any, Any], message: bot_pb2.Action) -> Any:
    try:
        return codec.decode_action(message)
    except (GameError, ValueError, TypeError, KeyError, IndexError) as error:
        raise ProbeError(f"undecodable action {message!r}: {error}") from None


def _drawn(answer: bot_pb2.TurnResponse, infoset: InfoSet, codec: Codec[Any, Any]) -> Any:
    """A mixed move's action (protocol 4), as a match would play it: its
    probabilities checked as the referee checks them, the action drawn with the
    referee's keyed draw under a fresh secret key (one question, one draw)."""
    entries = [(_decoded(codec, entry.action), entry.probability) for entry in answer.mixed]
    try:
        distribution = checked(entries, infoset.actions)
    except BadProbabilitiesError as error:
        raise ProbeError(f"bad mixed move at {infoset.observation!r}: {error}") from None
    return draw(distribution, mixed_key(new_secret()), infoset.turn)


async def probe_stated_policy(
    spec: BotSpec,
    tree: GameTree,
    seat: int,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
) -> dict[int, list[float]]:
    """``seat``'s policy as the bot *states* it (``TurnResponse.policy``, asked with
    ``want_policy``): one question per information set its stated policy can reach
    (others get the uniform policy: no reach). Self-reported: the bot may play
    otherwise. :class:`ProbeError` if it states none somewhere it is asked."""
    stated = replace(settings, samples=1, want_policy=True)
    policy = {i: _uniform(len(tree.infosets[i].actions)) for i in tree.seat_infosets(seat)}
    support: dict[int, list[int]] = {}
    start_rules = tree.game.format_rules(tree.rules)
    limiter = trio.CapacityLimiter(PARALLEL_STREAMS)
    frontiers = Frontier(tree, seat)
    async with FreshLauncher(sandbox=settings.sandbox).lease(spec, settings.startup_s) as lease:

        async def ask(index: int) -> None:
            question = _Question(tree.infosets[index], seat, start_rules)
            async with limiter:
                _, reply = await _ask(lease.connection, question, codec, stated)
            policy[index] = _stated(reply, tree.infosets[index], codec)
            support[index] = [a for a, p in enumerate(policy[index]) if p > 0]

        while frontier := frontiers.advance(support):
            async with trio.open_nursery() as nursery:
                for index in sorted(frontier):
                    if len(tree.infosets[index].actions) == 1:
                        policy[index], support[index] = [1.0], [0]
                    else:
                        nursery.start_soon(ask, index)
    return policy


def _uniform(width: int) -> list[float]:
    return [1.0 / width] * width


def _stated(reply: bot_pb2.TurnResponse, infoset: InfoSet, codec: Codec[Any, Any]) -> list[float]:
    """The probabilities of ``infoset``'s legal actions a reply states, checked: its
    ``policy``, or else its mixed move (protocol 4: what it plays, so what it states;
    the SDK sends no ``policy`` beside a mixed move)."""
    stated = reply.policy or reply.mixed
    if not stated:
        raise ProbeError(
            f"the bot states no policy at {infoset.observation!r} (it offers no"
            " Bot.policy()); measure it by sampling instead"
        )
    probs = [0.0] * len(infoset.actions)
    for entry in stated:
        try:
            action = codec.decode_action(entry.action)
        except (GameError, ValueError, TypeError, KeyError, IndexError) as error:
            raise ProbeError(f"undecodable action in the stated policy: {error}") from None
        if action not in infoset.actions:
            if entry.probability > 0:
                raise ProbeError(f"stated policy gives illegal {action!r} {entry.probability}")
            continue
        probs[infoset.actions.index(action)] += entry.probability
    if abs(sum(probs) - 1.0) > 1e-6 or min(probs) < 0:
        raise ProbeError(f"stated policy {probs} at {infoset.observation!r} is not a distribution")
    return probs
