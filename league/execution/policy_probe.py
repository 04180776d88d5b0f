"""Ask a bot what it plays at every information set, through the normal protocol.

The exploitability of a bot (``arena exploit``) needs its policy at every decision
point of a small variant. The bot is started exactly as for a match (the referee's
launcher, its sandbox), and every question is a match-like stream of its own:
``MatchStart`` (a fresh match id per sample, so a bot that draws from ``self.rng``
draws anew), ``Ready``, one ``TurnRequest`` carrying the information set's
observation, its answer; then the stream is dropped. ``K`` samples per information
set estimate a stochastic policy by frequencies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import trio

from referee import messages
from referee.channel import BotConnection
from referee.core.best_response import GameTree, InfoSet
from referee.core.protocol import NONCE_PROTOCOL, seat_protocol
from referee.faults import BotFault
from referee.games.base import GameError
from referee.launcher import FreshLauncher
from referee.process import BotSpec
from referee.sandbox import DEFAULT_SANDBOX, SandboxConfig
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


async def probe_policy(
    spec: BotSpec,
    tree: GameTree,
    seat: int,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[int, list[float]]:
    """``seat``'s policy as the bot plays it: action frequencies over ``samples``
    answers at every information set of ``seat`` (one legal action: no question)."""
    wanted = [i for i in tree.seat_infosets(seat) if len(tree.infosets[i].actions) > 1]
    counts = {i: [0] * len(tree.infosets[i].actions) for i in tree.seat_infosets(seat)}
    for row in counts.values():
        if len(row) == 1:
            row[0] = settings.samples
    limiter = trio.CapacityLimiter(PARALLEL_STREAMS)
    done = 0
    launcher = FreshLauncher(sandbox=settings.sandbox)
    async with launcher.lease(spec, settings.startup_s) as lease:

        async def ask_all(index: int) -> None:
            nonlocal done
            async with limiter:
                for sample in range(settings.samples):
                    infoset = tree.infosets[index]
                    choice = await _ask(lease.connection, infoset, seat, codec, settings, sample)
                    counts[index][choice] += 1
            done += 1
            if on_progress is not None:
                on_progress(done, len(wanted))

        async with trio.open_nursery() as nursery:
            for index in wanted:
                nursery.start_soon(ask_all, index)
    return {i: [c / settings.samples for c in row] for i, row in counts.items()}


async def ask_action(
    connection: BotConnection,
    infoset: InfoSet,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
    sample: int,
) -> int:
    """One question at one observation (``infoset.seat`` plays): the index of the
    bot's action among ``infoset.actions``; for callers that choose the observations
    themselves (local best response, ``league/execution/local_br.py``)."""
    return await _ask(connection, infoset, infoset.seat, codec, settings, sample)


async def _ask(
    connection: BotConnection,
    infoset: InfoSet,
    seat: int,
    codec: Codec[Any, Any],
    settings: ProbeSettings,
    sample: int,
) -> int:
    """One match-like stream: the index of the bot's action among the legal ones."""
    health = connection.health
    protocol = seat_protocol(health.protocol_version if health else 0)
    stream = connection.open_stream()
    budget = settings.decision_s + settings.startup_s
    try:
        with trio.fail_after(budget):
            stream.send(
                messages.match_start(
                    match_id=f"exploit-{infoset.key}-{sample}",
                    game=settings.game,
                    rules=settings.raw_rules,
                    seat=seat,
                    num_seats=2,
                )
            )
            ready = await stream.receive()
            if ready.WhichOneof("kind") != "ready":
                raise ProbeError(f"the bot answered MatchStart with {ready.WhichOneof('kind')}")
            encoder = DeltaEncoder(codec, enabled=ready.ready.observation_deltas)
            nonce = messages.new_nonce() if protocol >= NONCE_PROTOCOL else ""
            stream.send(
                messages.turn_request(
                    turn=1,
                    observation=encoder.encode(infoset.observation),
                    time_limit_ms=int(settings.decision_s * 1000),
                    nonce=nonce,
                )
            )
            reply = await stream.receive()
    except trio.TooSlowError:
        raise ProbeError(f"no answer within {budget:g} s at {infoset.observation!r}") from None
    except BotFault as fault:
        raise ProbeError(f"the bot failed: {fault.message}") from None
    finally:
        stream.cancel()
    if reply.WhichOneof("kind") != "turn":
        raise ProbeError(f"expected an action, got {reply.WhichOneof('kind')}")
    try:
        action = codec.decode_action(reply.turn.action)
    except (GameError, ValueError, TypeError, KeyError, IndexError) as error:
        raise ProbeError(f"undecodable action {reply.turn.action!r}: {error}") from None
    if action not in infoset.actions:
        raise ProbeError(f"illegal action {action!r} at {infoset.observation!r}")
    return infoset.actions.index(action)
