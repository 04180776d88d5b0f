"""Mixed moves: a seat answers with probabilities and the referee draws the action.

A seat that speaks protocol 4 may answer a turn with a *mixed move*: a probability
for each of some legal actions. The referee checks the probabilities
(:func:`checked`), then draws the action played from them with its own keyed chance
(:func:`draw`), so the stated probabilities are exactly the played ones: a bot cannot
state one policy and play another.

How the draw is made, so anyone holding the match's chance key can redo it:

* The *mixed key* of a match is ``HMAC-SHA256(chance key, MIXED_LABEL)``
  (:func:`mixed_key`): separate from the stream the dice and cards come from, so a
  seat's answers never change the deal (a duplicate pair still deals alike).
* Turn ``t`` draws ``u = (first 8 bytes of HMAC-SHA256(mixed key, t as u64 BE)) >> 11``
  divided by 2^53: a uniform number in [0, 1) (:func:`uniform`).
* The entries are put in the order of the engine's ``legal_actions`` at the seat's
  observation (deterministic: the engines are pure), their weights summed left to
  right into ``c_1 … c_n``, and the action drawn is the first with a positive weight
  and ``u · c_n < c_i`` (:func:`pick`).

What is recorded: the public record holds the drawn action, as for any action, and a
commitment to the probabilities, ``HMAC-SHA256(salt, entries)`` with a fresh 16-byte
salt (:func:`commit`): hiding (nobody can test a guess at the probabilities without
the salt) and binding. The salt and the probabilities are the seat's author's alone
(:class:`MixedAnswer`); with them and the chance key, :func:`problems_with` checks a
recorded draw.

Pure: no I/O, no clocks; the only randomness is the salt (:func:`new_salt`), which
callers pass in.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import random
import secrets
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from referee.core.digests import canonical
from referee.core.mixed_move import Mixed as Mixed

MIXED_LABEL: Final = b"bluff-arena/chance/mixed/v1:"
"""Domain label of :func:`mixed_key`."""
SUM_TOLERANCE: Final = 1e-6
"""How far from 1 the stated probabilities may sum (they are then divided by their sum)."""
MAX_ENTRIES: Final = 65536
"""The most entries a mixed move may have (more is a fault, whatever the game)."""
SALT_BYTES: Final = 16


class BadProbabilitiesError(ValueError):
    """Probabilities that are not a distribution over legal actions; the message says
    which entry and why, in the referee's own words and numbers."""


@dataclass(frozen=True, slots=True)
class Distribution:
    """Checked probabilities in canonical order (zero weights dropped), summing to 1."""

    actions: tuple[Any, ...]
    probabilities: tuple[float, ...]

    def as_dict(self) -> dict[Any, float]:
        return dict(zip(self.actions, self.probabilities, strict=True))


@dataclass(frozen=True, slots=True)
class MixedAnswer:
    """What one seat answered one turn with, for its author only: the salt of the
    public commitment and the probabilities (canonical order, as stated)."""

    turn: int
    salt: bytes
    distribution: Distribution


def checked(entries: Iterable[tuple[Any, float]], legal: Sequence[Any]) -> Distribution:
    """The stated ``(action, probability)`` entries as a :class:`Distribution` in the
    order of ``legal`` (the engine's legal actions at the seat's observation), or
    :class:`BadProbabilitiesError`: every probability finite and in [0, 1], no action
    twice, no illegal action with a positive weight (one with weight 0 is ignored),
    at most :data:`MAX_ENTRIES` entries, the sum within :data:`SUM_TOLERANCE` of 1
    (then divided by it)."""
    position = {action: index for index, action in enumerate(legal)}
    weights: dict[int, float] = {}
    illegal: set[Any] = set()
    for count, (action, probability) in enumerate(entries, start=1):
        if count > MAX_ENTRIES:
            raise BadProbabilitiesError(f"more than {MAX_ENTRIES} entries")
        p = float(probability)
        if not math.isfinite(p) or p < 0.0 or p > 1.0:
            raise BadProbabilitiesError(
                f"entry {count}: probability {p!r} is not a number in [0, 1]"
            )
        index = position.get(action)
        if index is None:
            if p > 0.0:
                raise BadProbabilitiesError(f"entry {count}: an illegal action with weight {p:g}")
            if action in illegal:
                raise BadProbabilitiesError(f"entry {count}: an action given twice")
            illegal.add(action)
            continue
        if index in weights:
            raise BadProbabilitiesError(f"entry {count}: an action given twice")
        weights[index] = p
    total = math.fsum(weights.values())
    if not abs(total - 1.0) <= SUM_TOLERANCE:
        raise BadProbabilitiesError(
            f"the probabilities sum to {total!r}, not 1 (within {SUM_TOLERANCE:g})"
        )
    kept = sorted(index for index, p in weights.items() if p > 0.0)
    return Distribution(
        tuple(legal[index] for index in kept), tuple(weights[index] / total for index in kept)
    )


def mixed_key(chance_key: bytes) -> bytes:
    """The key a match's mixed draws come from (see the module docstring)."""
    return hmac.digest(chance_key, MIXED_LABEL, "sha256")


def uniform(key: bytes, turn: int) -> float:
    """Turn ``turn``'s uniform number in [0, 1) under the mixed key ``key``."""
    block = hmac.digest(key, turn.to_bytes(8, "big"), "sha256")
    return (int.from_bytes(block[:8], "big") >> 11) / 9007199254740992.0  # 2**53


def pick(weights: Sequence[float], u: float) -> int:
    """The index drawn by ``u`` in [0, 1) from ``weights`` (non-negative, some
    positive): the first positive weight whose running sum exceeds ``u`` times the
    total."""
    running: list[float] = []
    total = 0.0
    for weight in weights:
        total += weight
        running.append(total)
    target = u * total
    last = -1
    for index, weight in enumerate(weights):
        if weight > 0.0:
            last = index
            if target < running[index]:
                return index
    if last < 0:
        raise BadProbabilitiesError("no action has a positive probability")
    return last  # u * total rounded up to the total: the last positive weight


def draw(distribution: Distribution, key: bytes, turn: int) -> Any:
    """The action turn ``turn`` plays: :func:`pick` at :func:`uniform`."""
    return distribution.actions[pick(distribution.probabilities, uniform(key, turn))]


def sampled(answer: Any, rng: random.Random) -> Any:
    """An in-process caller's action from a bot's answer: the answer itself, or an
    action drawn with ``rng`` from a :class:`Mixed` (for tools that ask a bot outside
    a match, where no referee draws: a match draws with :func:`draw`)."""
    if type(answer) is not Mixed:
        return answer
    actions = list(answer.probabilities)
    return rng.choices(actions, [answer.probabilities[a] for a in actions])[0]


def new_salt() -> bytes:
    """A fresh salt for :func:`commit` (from the operating system)."""
    return secrets.token_bytes(SALT_BYTES)


def commit(salt: bytes, distribution: Distribution) -> str:
    """The public commitment to ``distribution``: HMAC-SHA256 keyed by ``salt`` over
    each action's canonical form and its probability (8 bytes, IEEE 754 big-endian)."""
    data = b"".join(
        canonical(action) + struct.pack(">d", p)
        for action, p in zip(distribution.actions, distribution.probabilities, strict=True)
    )
    return hmac.digest(salt, data, hashlib.sha256).hex()


def problems_with(
    answer: MixedAnswer, recorded_commitment: str, drawn: Any, key: bytes | None
) -> list[str]:
    """What does not fit between an author's :class:`MixedAnswer`, the public
    commitment and the drawn action (``key``: the match's mixed key, if known)."""
    if not hmac.compare_digest(commit(answer.salt, answer.distribution), recorded_commitment):
        return [f"turn {answer.turn}: the probabilities do not match the record's commitment"]
    if key is not None:
        expected = draw(answer.distribution, key, answer.turn)
        if canonical(expected) != canonical(drawn):
            return [f"turn {answer.turn}: the mixed draw is not what the chance key draws"]
    elif all(canonical(a) != canonical(drawn) for a in answer.distribution.actions):
        return [f"turn {answer.turn}: the action played had no weight in the mixed move"]
    return []
