"""A hostile Liar's Dice bot that tries to recover the referee's chance from its own dice.

On its first turn it knows its own dice and the public roll-off. It replays the
referee's chance draws for every seed it could guess — the old generator
``random.Random(f"bluff-arena:{s}")`` and the new seeded key ``key_from_seed(s)``
for s in 0..100000, the old league derivation ``random.Random(f"{seed}:{round}:
{table}")`` and the new ``--reproducible-seed`` league derivation for small league
seeds, and seeds derived from the match id — and keeps the candidates whose draws
reproduce what it sees. If one matched, it would know every seat's dice.

Report channel (survives a sandbox that hides the filesystem and stderr): the first
action. Among the legal bids of its first turn, in ``legal_actions`` order, it
plays bid number :data:`NOTHING_FOUND` (0) if the full search matched nothing,
:data:`SEED_FOUND` (1) if some candidate matched, :data:`SEARCH_INCOMPLETE` (2) if
the search did not cover every candidate. It also writes a JSON line to stderr.
After that it challenges whenever it may, else bids the lowest bid (short matches).

    python -m tests.security.seed_guesser            # searches on its first turn
    python -m tests.security.seed_guesser --no-search  # the same policy, no search
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from referee.core.chance import (
    SEED_LABEL,
    ChanceStream,
    block,
    deal_key,
    key_from_seed,
    league_secret_from_seed,
)
from referee.gamekit.base import CHANCE, ChanceSource, DiceRoll, draw_chance
from referee.games.liars_dice.engine import LIARS_DICE, State
from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.liars_dice import Action, Challenge, Observation, legal_actions

SEED_RANGE = 100_001
"""Seeds 0..100000 of both the old and the new seeded generators."""
LEAGUE_SEEDS = 100
"""League seeds 0..99 of the old and new league derivations ..."""
LEAGUE_ROUNDS = 5
LEAGUE_TABLES = 10
"""... for rounds 0..4 and tables 0..9."""

NOTHING_FOUND = 0
SEED_FOUND = 1
SEARCH_INCOMPLETE = 2


@dataclass
class Report:
    candidates: int = 0
    matched: list[str] = field(default_factory=list)
    complete: bool = False
    seconds: float = 0.0

    @property
    def verdict(self) -> int:
        if not self.complete:
            return SEARCH_INCOMPLETE
        return SEED_FOUND if self.matched else NOTHING_FOUND

    def as_json(self) -> dict[str, object]:
        return {
            "candidates": self.candidates,
            "matched": self.matched,
            "complete": self.complete,
            "seconds": round(self.seconds, 3),
            "verdict": self.verdict,
        }


Maker = Callable[[object], ChanceSource]
Family = tuple[str, Sequence[object], Maker]
"""A family of candidate generators: a label, its parameters, and the generator of one."""


def old_stream(seed: object) -> random.Random:
    """The referee's generator before secret chance: ``random.Random(f"bluff-arena:{seed}")``."""
    return random.Random(f"bluff-arena:{seed}")


def new_seeded(seed: object) -> ChanceStream:
    return ChanceStream(key_from_seed(seed))  # type: ignore[arg-type]


def keyed(key: object) -> ChanceStream:
    return ChanceStream(key)  # type: ignore[arg-type]


def families(match_id: str) -> list[Family]:
    """Every generator the referee could plausibly have used."""
    old_league: list[int] = []
    new_league: list[bytes] = []
    for league_seed in range(LEAGUE_SEEDS):
        secret = league_secret_from_seed(league_seed)
        for round_ in range(LEAGUE_ROUNDS):
            for table in range(LEAGUE_TABLES):
                old_league.append(random.Random(f"{league_seed}:{round_}:{table}").getrandbits(63))
                new_league.append(deal_key(secret, f"r{round_}-t{table}"))
    # Seeds derived from the match id ("LEAGUE-POSITION", "local-N", a hex id).
    numbers = {int(n) for n in re.findall(r"\d+", match_id)}
    if re.fullmatch(r"[0-9a-f]{1,16}", match_id):
        numbers.add(int(match_id, 16))
    return [
        ("old", range(SEED_RANGE), old_stream),
        ("new", range(SEED_RANGE), new_seeded),
        ("old-league", old_league, old_stream),
        ("league-seed", new_league, keyed),
        ("id-old", sorted(numbers), old_stream),
        ("id-new", sorted(numbers), new_seeded),
        ("id-old-str", [match_id], old_stream),
        ("id-random", [match_id], lambda text: random.Random(str(text))),
        ("id-sha256", [hashlib.sha256(match_id.encode()).digest()], keyed),
    ]


def expected_candidate_count(match_id: str) -> int:
    return sum(len(params) for _, params, _ in families(match_id))


class FastDie:
    """The die number ``position`` (0-based) of a candidate's first roll, computed as
    cheaply as possible; exactly what ``make(param)`` would give (checked again on
    the survivors with the real generator anyway)."""

    def __init__(self, position: int, sides: int) -> None:
        self.position = position
        self.sides = sides
        self.old = random.Random()
        self.seed_prefix = hashlib.sha256(SEED_LABEL)

    def __call__(self, make: Maker, param: object) -> int:
        if make is old_stream:
            self.old.seed(f"bluff-arena:{param}")
            return self._nth(self.old)
        if make is new_seeded and isinstance(param, int) and self.sides <= 8:
            hasher = self.seed_prefix.copy()
            hasher.update(b"%d" % param)
            seen = 0
            for byte in block(hasher.digest(), 0):  # the stream's first 32 bytes
                value = byte & 7
                if value < self.sides:
                    if seen == self.position:
                        return value + 1
                    seen += 1
        return self._nth(make(param))

    def _nth(self, stream: ChanceSource) -> int:
        for _ in range(self.position):
            stream.randint(1, self.sides)
        return stream.randint(1, self.sides)


def search(match: MatchInfo, observation: Observation) -> Report:
    """Every candidate whose chance draws reproduce what ``observation`` shows."""
    started = time.perf_counter()
    rules = match.rules
    seat = match.seat
    start = LIARS_DICE.new_game(rules, match.num_seats)
    first_request = LIARS_DICE.chance_request(start)
    assert isinstance(first_request, DiceRoll)
    # What the first chance event must have been, as far as this seat can tell.
    if rules.roll_off:
        first_known = [die for roll in observation.roll_offs[0] for die in roll.dice]
        offset = 0
    else:
        offset = sum(observation.dice_counts[:seat])
        first_known = list(observation.own_dice)
    sides = first_request.sides
    fast_die = FastDie(offset, sides)
    report = Report()
    for label, params, make in families(match.match_id):
        for param in params:
            report.candidates += 1
            # Cheap filter: the first known die (5 in 6 candidates stop here).
            if fast_die(make, param) != first_known[0]:
                continue
            stream = make(param)
            drawn = draw_chance(first_request, stream)
            if list(drawn[offset : offset + len(first_known)]) != first_known:
                continue
            if reproduces(start, drawn, stream, seat, observation):
                report.matched.append(f"{label}:{param!r}"[:60])
    report.complete = True
    report.seconds = time.perf_counter() - started
    return report


def reproduces(
    start: State, first: tuple[int, ...], stream: ChanceSource, seat: int, seen: Observation
) -> bool:
    """Replay the referee's chance up to the first decision and compare the views."""
    state = LIARS_DICE.apply_chance(start, first)
    while LIARS_DICE.to_act(state) == CHANCE:
        state = LIARS_DICE.apply_chance(
            state, draw_chance(LIARS_DICE.chance_request(state), stream)
        )
    mine = LIARS_DICE.observe(state, seat)
    return mine.own_dice == seen.own_dice and mine.roll_offs == seen.roll_offs


def report_action(observation: Observation, verdict: int) -> Action:
    """Bid number ``verdict`` among the legal bids (the test decodes it from the record)."""
    bids = [a for a in legal_actions(observation) if not isinstance(a, Challenge)]
    return bids[min(verdict, len(bids) - 1)]


def plain_action(observation: Observation) -> Action:
    legal = legal_actions(observation)
    return next((a for a in legal if isinstance(a, Challenge)), legal[0])


class SeedGuesser(Bot[Observation, Action]):
    game = "liars_dice"
    name = "seed-guesser"
    searching = True

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.reported = False

    def act(self, observation: Observation) -> Action:
        if self.reported or not self.searching:
            return plain_action(observation)
        self.reported = True
        assert self.match is not None
        try:
            report = search(self.match, observation)
        except Exception as error:  # report it rather than crash: the test reads the verdict
            print(json.dumps({"error": repr(error)}), file=sys.stderr, flush=True)
            report = Report()
        print(json.dumps(report.as_json()), file=sys.stderr, flush=True)
        return report_action(observation, report.verdict)


class Bystander(SeedGuesser):
    searching = False
    name = "bystander"


if __name__ == "__main__":
    run(Bystander if "--no-search" in sys.argv else SeedGuesser)
