"""The secret chance stream: known answers, uniformity, rejection, keys and commitments."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from referee.core import chance
from referee.core.chance import (
    ChanceKeyError,
    ChanceStream,
    chance_stream,
    commitment,
    deal_key,
    key_from_seed,
    league_secret_from_seed,
    new_secret,
    parse_secret,
)
from referee.gamekit.base import DiceRoll, Shuffle, draw_chance
from referee.runtime.match import MatchSpec
from referee.runtime.process import BotSpec

KEY = bytes(range(32))


def reference_bytes(key: bytes) -> Iterator[int]:
    """The stream computed straight from the definition, independently of the module."""
    counter = 0
    while True:
        yield from hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1


def reference_dice(key: bytes, count: int, sides: int = 6) -> list[int]:
    """``count`` dice by hand: one byte per try (sides <= 8 needs 3 bits), reject >= sides."""
    assert 4 < sides <= 8
    stream = reference_bytes(key)
    dice: list[int] = []
    while len(dice) < count:
        value = next(stream) & 0b111
        if value < sides:
            dice.append(value + 1)
    return dice


def test_known_answers_match_hmac_counter_mode() -> None:
    first = hmac.new(KEY, b"\x00" * 8, hashlib.sha256).digest()
    assert chance.block(KEY, 0) == first
    assert ChanceStream(KEY).read(40) == bytes(itertools.islice(reference_bytes(KEY), 40))
    stream = ChanceStream(KEY)
    assert [stream.randint(1, 6) for _ in range(50)] == reference_dice(KEY, 50)


def test_key_from_seed_and_a_pinned_vector() -> None:
    key = key_from_seed(1)
    assert key == hashlib.sha256(b"bluff-arena/chance/seed/v1:1").digest()
    assert draw_chance(DiceRoll(10), ChanceStream(key)) == tuple(reference_dice(key, 10))
    # Pinned so that an accidental change of the stream (and of every seeded match
    # and revealed league deal) shows up here.
    assert draw_chance(DiceRoll(10), ChanceStream(key)) == (4, 2, 4, 5, 2, 5, 4, 1, 1, 5)
    assert key_from_seed(1) != key_from_seed(2) != league_secret_from_seed(1)


def test_deal_key_commitment_and_secret_helpers() -> None:
    secret = bytes(range(100, 132))
    assert deal_key(secret, "r0-t1") == hmac.digest(
        secret, b"bluff-arena/chance/deal/v1:r0-t1", "sha256"
    )
    assert deal_key(secret, "r0-t1") != deal_key(secret, "r0-t2")
    assert commitment(secret) == hashlib.sha256(secret).hexdigest()
    assert parse_secret(secret.hex()) == secret
    fresh = {new_secret() for _ in range(20)}
    assert len(fresh) == 20 and all(len(s) == 32 for s in fresh)


def chi_square(counts: Counter[int], categories: list[int]) -> float:
    total = sum(counts.values())
    expected = total / len(categories)
    assert set(counts) <= set(categories)
    return sum((counts[c] - expected) ** 2 / expected for c in categories)


@pytest.mark.parametrize(
    ("n", "limit"),
    [(6, 20.52), (10, 27.88), (8, 24.32), (300, 381.4)],  # chi-square, p = 0.001
)
def test_below_is_uniform(n: int, limit: float) -> None:
    stream = ChanceStream(key_from_seed(n))
    draws = Counter(stream.below(n) for _ in range(400 * n if n > 10 else 60_000))
    assert chi_square(draws, list(range(n))) < limit


def test_shuffle_is_a_uniform_permutation() -> None:
    stream = ChanceStream(KEY)
    orders: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        items = [0, 1, 2, 3]
        stream.shuffle(items)
        orders[tuple(items)] += 1
    assert len(orders) == 24
    expected = 1000
    assert sum((c - expected) ** 2 / expected for c in orders.values()) < 49.7  # 23 dof
    drawn = draw_chance(Shuffle(52), ChanceStream(KEY))
    assert sorted(drawn) == list(range(52)) and drawn != tuple(range(52))


def test_rejection_throws_away_values_out_of_range(monkeypatch: pytest.MonkeyPatch) -> None:
    # 7 and 6 (after masking to 3 bits) are not below 6: both are rejected.
    blocks = [bytes([0xFF, 0x0E, 0x02]) + bytes(29), bytes([0x05] * 32)]
    calls: list[int] = []

    def fake_block(key: bytes, index: int) -> bytes:
        calls.append(index)
        return blocks[index]

    monkeypatch.setattr(chance, "block", fake_block)
    stream = ChanceStream(KEY)
    assert stream.below(6) == 2
    assert stream.read(1) == b"\x00"  # three bytes were used by the one draw
    # A power of two never rejects: 0xFF masked to 3 bits is 7.
    stream = ChanceStream(KEY)
    assert stream.below(8) == 7
    # Two-byte draws: 0xFF0E & 0x1FF = 270 < 300, accepted; 0x1FF would be rejected.
    stream = ChanceStream(KEY)
    assert stream.below(300) == 0xFF0E & 0x1FF
    assert stream.below(1) == 0  # no bytes needed
    assert stream.read(1) == b"\x02"


def test_determinism_per_key_and_different_keys_differ() -> None:
    def draws(key: bytes) -> list[int]:
        stream = ChanceStream(key)
        return [stream.randint(1, 6) for _ in range(100)]

    assert draws(KEY) == draws(KEY)
    assert draws(KEY) != draws(key_from_seed(0))
    assert draws(new_secret()) != draws(new_secret())
    assert draws(chance_stream(seed=5)._key) == draws(key_from_seed(5))


def test_draw_chance_accepts_a_random_random_too() -> None:
    assert draw_chance(DiceRoll(5), random.Random(3)) == draw_chance(DiceRoll(5), random.Random(3))
    assert sorted(draw_chance(Shuffle(5), random.Random(3))) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: ChanceStream(b"short"), ChanceKeyError, "got 5 bytes"),
        (lambda: ChanceStream("x" * 32), ChanceKeyError, "got str"),  # type: ignore[arg-type]
        (lambda: ChanceStream(KEY).below(0), ValueError, "got 0"),
        (lambda: ChanceStream(KEY).randint(6, 1), ValueError, "randint(6, 1)"),
        (lambda: deal_key(b"k", "r0-t0"), ChanceKeyError, "league secret must be 32 bytes"),
        (lambda: parse_secret("zz"), ChanceKeyError, "'zz' is not hexadecimal"),
        (lambda: key_from_seed("1"), ChanceKeyError, "'1'"),  # type: ignore[arg-type]
        (lambda: chance_stream(seed=1, key=KEY), ChanceKeyError, "not both (seed 1)"),
    ],
)
def test_bad_input_is_a_named_error(make: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()  # type: ignore[operator]


def test_match_spec_keeps_its_key_out_of_sight_and_draws_fresh_secrets() -> None:
    bots = (BotSpec.from_command_line("true"), BotSpec.from_command_line("true"))
    spec = MatchSpec("liars_dice", bots, chance_key=KEY)
    assert KEY.hex() not in repr(spec) and repr(KEY) not in repr(spec)
    assert draw_chance(DiceRoll(20), spec.chance()) == draw_chance(DiceRoll(20), ChanceStream(KEY))
    fresh = MatchSpec("liars_dice", bots)
    assert draw_chance(DiceRoll(30), fresh.chance()) != draw_chance(DiceRoll(30), fresh.chance())
    seeded = MatchSpec("liars_dice", bots, seed=4)
    assert draw_chance(DiceRoll(9), seeded.chance()) == draw_chance(DiceRoll(9), seeded.chance())
    with pytest.raises(ChanceKeyError, match="not both"):
        MatchSpec("liars_dice", bots, seed=4, chance_key=KEY)
    with pytest.raises(ChanceKeyError, match="got 3 bytes"):
        MatchSpec("liars_dice", bots, chance_key=b"abc")
