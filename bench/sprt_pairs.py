"""How many games duplicate pairs save an SPRT, measured on real bots (``docs/sprt.md``).

For each bot pair below, every deal ``j`` (seed ``--seed + j``) is played twice in
process (``sdk.local``), NEW in seat 0 and then in seat 1: a duplicate pair, as
``arena sprt`` plays it. From those same real outcomes the script builds the two
schedules an SPRT could use, each of which plays two games per step with the seats
swapped:

* **paired**: both games on one deal (what ``arena sprt`` does);
* **unpaired**: the seat-0 game of one deal with the seat-1 game of another,
  independent deal (every game a fresh deal, seats alternating).

It prints, per bot pair:

* NEW's mean score and its logistic Elo;
* ``ρ``: the correlation of NEW's scores in the two halves of a pair (negative when
  the deal or the seat decides: a lucky deal helps whoever holds it, once each);
* the variance per game of each schedule (``2·Var`` of a two-game step's mean score)
  and the share of games pairing saves at equal precision, ``1 − Var_paired /
  Var_unpaired``, with a 95% bootstrap interval over deals;
* the mean number of games ``arena sprt``'s test needs to decide (its own
  exact ``league.domain.sprt_statistics.llr`` and bounds, ``--elo0``/``--elo1`` in normalized Elo,
  α = β = 0.05) when its pairs come from each schedule: ``--runs`` tests whose pairs
  are drawn from the schedule's empirical distribution (a bootstrap of the real
  deals; ± its standard error), with the share that accepted H1 (NEW stronger).
  The stronger bot of the two is NEW in these tests; pairs whose measured Elo is
  below ``--elo-floor`` get none (the test would run to ``--max-pairs``).

The SPRT saves less than the variance: with hypotheses much narrower than the
measured difference (``--elo1 5`` against hundreds of Elo) the LLR grows about as
``N·2·t1·t̂`` with ``t̂ = (μ − ½)/σ``, so the games needed scale with the
deviation σ, not with the variance.

    python -m bench.sprt_pairs                      # every bot pair below
    python -m bench.sprt_pairs --game liars_dice --pairs 400 --runs 2000
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.sprt_error_rates import PentanomialTest, simulate
from league.domain.sprt_statistics import SprtError, SprtParameters
from league.execution.counters import bot_class
from sdk.local import play_local

BOT_PAIRS: tuple[tuple[str, str, str, int], ...] = (
    # game, NEW, OLD, deals by default (the slow games get fewer)
    ("liars_dice", "liars_dice_posterior", "liars_dice_probability", 200),
    ("liars_dice", "liars_dice_probability", "liars_dice_counting", 200),
    ("liars_dice", "liars_dice_probability", "liars_dice_probability_30", 200),
    ("liars_poker_dice", "liars_poker_dice_strong", "liars_poker_dice_heuristic", 200),
    ("cockroach_poker", "cockroach_poker_strong", "cockroach_poker_heuristic", 200),
    ("dice_poker", "dice_poker_optimal", "dice_poker_heuristic", 100),
    ("liars_poker", "liars_poker_strong", "liars_poker_heuristic", 40),
)
"""Strong against the next bot down, and two close pairs (Liar's Dice)."""


class SprtPairsError(ValueError):
    """A request the measurement cannot run (the message names the bad value)."""


@dataclass(frozen=True, slots=True)
class Measured:
    """One bot pair's deals and what the two schedules make of them."""

    game: str
    new: str
    old: str
    halves: tuple[tuple[float, float], ...]
    """NEW's score with NEW in seat 0 and in seat 1, per deal."""
    seconds: float

    @property
    def mean(self) -> float:
        return statistics.fmean(a + b for a, b in self.halves) / 2

    @property
    def elo(self) -> float:
        """Logistic Elo of the mean score (±inf for a sweep)."""
        score = self.mean
        if score in (0.0, 1.0):
            return math.copysign(math.inf, score - 0.5)
        return -400.0 * math.log10(1.0 / score - 1.0)


def score(places: Sequence[int], new_seat: int) -> float:
    """NEW's points in a two-seat match: 1 ahead of OLD, ½ level, 0 behind."""
    mine, theirs = places[new_seat], places[1 - new_seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def play_deals(game: str, new: str, old: str, deals: int, seed: int) -> Measured:
    """Each deal twice in process, NEW in seat 0 then in seat 1."""
    new_bot, old_bot = bot_class(new), bot_class(old)
    start = time.perf_counter()
    halves = []
    for index in range(deals):
        first = play_local(game, [new_bot, old_bot], seed=seed + index).outcome.places
        second = play_local(game, [old_bot, new_bot], seed=seed + index).outcome.places
        halves.append((score(first, 0), score(second, 1)))
    return Measured(game, new, old, tuple(halves), time.perf_counter() - start)


def correlation(halves: Sequence[tuple[float, float]]) -> float | None:
    """Pearson correlation of the two halves (None when either never varies)."""
    first, second = [a for a, _ in halves], [b for _, b in halves]
    if statistics.pvariance(first) == 0 or statistics.pvariance(second) == 0:
        return None
    return statistics.correlation(first, second)


def variances(halves: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Variance per game (2·Var of a step's mean score): paired, unpaired.

    Unpaired, the two halves come from independent deals, so a step's variance is
    ``(Var(seat 0) + Var(seat 1)) / 4``: the halves' own variances without their
    covariance."""
    first, second = [a for a, _ in halves], [b for _, b in halves]
    paired = statistics.pvariance([(a + b) / 2 for a, b in halves])
    unpaired = (statistics.pvariance(first) + statistics.pvariance(second)) / 4
    return 2 * paired, 2 * unpaired


def saving(halves: Sequence[tuple[float, float]]) -> float | None:
    """Share of games pairing saves at equal precision (None: no variance at all)."""
    paired, unpaired = variances(halves)
    return None if unpaired == 0 else 1.0 - paired / unpaired


def saving_interval(
    halves: Sequence[tuple[float, float]], rng: random.Random, samples: int = 400
) -> tuple[float, float] | None:
    """95% bootstrap interval of :func:`saving`, resampling deals."""
    values = []
    for _ in range(samples):
        drawn = [halves[rng.randrange(len(halves))] for _ in halves]
        value = saving(drawn)
        if value is not None:
            values.append(value)
    if len(values) < samples // 2:
        return None
    values.sort()
    return values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1]


Draw = Callable[[random.Random], float]
"""One two-game step of a schedule, drawn at random: the step's mean score."""


@dataclass(frozen=True, slots=True)
class SprtRuns:
    """What ``runs`` simulated SPRTs on one schedule took."""

    games: float
    """Mean games to a decision (or to ``max_pairs``)."""
    error: float
    """Standard error of ``games``."""
    h1: float
    """Share of the runs that accepted H1."""

    def cell(self) -> str:
        return f"{self.games:.0f} ± {self.error:.0f} ({self.h1:.0%})"


def sprt_games(
    draw: Draw, parameters: SprtParameters, rng: random.Random, runs: int, max_pairs: int
) -> SprtRuns:
    """``runs`` of ``arena sprt``'s tests (its exact LLR, run side by side by
    :func:`bench.sprt_error_rates.simulate`), each pair drawn by ``draw``; a run
    undecided after ``max_pairs`` counts its games and no decision."""

    def sampler(_generator: np.random.Generator, n: int) -> NDArray[np.float64]:
        return np.array([draw(rng) for _ in range(n)])

    outcome = simulate(PentanomialTest(parameters), sampler, runs=runs, seed=0, max_pairs=max_pairs)
    error = 2 * outcome.pairs_deviation / math.sqrt(runs)
    return SprtRuns(2 * outcome.mean_pairs, error, outcome.h1 / runs)


def schedules(halves: Sequence[tuple[float, float]]) -> tuple[Draw, Draw]:
    """Step draws of the paired schedule (both games on one deal) and of the unpaired
    one (the seat-0 game of one deal with the seat-1 game of another, drawn apart)."""
    count = len(halves)

    def paired(rng: random.Random) -> float:
        a, b = halves[rng.randrange(count)]
        return (a + b) / 2

    def unpaired(rng: random.Random) -> float:
        return (halves[rng.randrange(count)][0] + halves[rng.randrange(count)][1]) / 2

    return paired, unpaired


def row(measured: Measured, args: argparse.Namespace) -> str:
    """One Markdown table row for ``measured``."""
    rng = random.Random(args.seed)
    halves = measured.halves
    if measured.mean < 0.5:  # test the stronger one as NEW: H1 is then the true side
        halves = tuple((1 - a, 1 - b) for a, b in halves)
    paired, unpaired = variances(halves)
    rho = correlation(halves)
    saved = saving(halves)
    interval = saving_interval(halves, rng)
    cells = [
        measured.game,
        f"`{measured.new}` vs `{measured.old}`",
        str(len(halves)),
        f"{measured.mean:.3f}",
        _signed(measured.elo),
        "-" if rho is None else f"{rho:+.2f}",
        f"{unpaired:.3f}",
        f"{paired:.3f}",
        "-" if saved is None else f"{saved:+.0%}",
        "-" if interval is None else f"{interval[0]:+.0%} .. {interval[1]:+.0%}",
    ]
    if abs(measured.elo) >= args.elo_floor and saved is not None:
        parameters = SprtParameters(args.elo0, args.elo1, 0.05, 0.05)
        paired_draw, unpaired_draw = schedules(halves)
        on_paired = sprt_games(paired_draw, parameters, rng, args.runs, args.max_pairs)
        on_unpaired = sprt_games(unpaired_draw, parameters, rng, args.runs, args.max_pairs)
        cells += [
            on_unpaired.cell(),
            on_paired.cell(),
            f"{1 - on_paired.games / on_unpaired.games:+.0%}",
        ]
    else:
        cells += ["-", "-", "-"]
    return "| " + " | ".join(cells) + " |"


def _signed(elo: float) -> str:
    return f"{elo:+.0f}" if math.isfinite(elo) else ("+∞" if elo > 0 else "−∞")


HEADER = (
    "| game | NEW vs OLD | deals | NEW score | Elo | ρ halves | var/game unpaired"
    " | var/game paired | games saved | 95% interval"
    " | SPRT games unpaired (H1) | SPRT games paired (H1) | SPRT games saved |\n"
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    games = sorted({game for game, *_ in BOT_PAIRS})
    parser.add_argument("--game", action="append", default=[], help=f"only these ({games})")
    parser.add_argument("--pairs", type=int, default=None, help="deals per bot pair")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1000, help="simulated SPRTs per schedule")
    parser.add_argument("--max-pairs", type=int, default=20_000, help="per simulated SPRT")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0 of the SPRT, nElo")
    parser.add_argument("--elo1", type=float, default=5.0, help="H1 of the SPRT, nElo")
    parser.add_argument(
        "--elo-floor",
        type=float,
        default=10.0,
        help="no simulated SPRT below this measured |Elo| (it would run to --max-pairs)",
    )
    args = parser.parse_args(argv)
    try:
        unknown = [game for game in args.game if game not in games]
        if unknown:
            raise SprtPairsError(f"no bot pair for {unknown[0]!r} (known: {', '.join(games)})")
        for name in ("pairs", "runs", "max_pairs"):
            value = getattr(args, name)
            if value is not None and value < 2:
                raise SprtPairsError(f"--{name.replace('_', '-')} must be at least 2, got {value}")
        SprtParameters(args.elo0, args.elo1)
    except (SprtPairsError, SprtError) as error:
        print(f"bench.sprt_pairs: {error}", file=sys.stderr)
        return 2
    print(HEADER)
    for game, new, old, deals in BOT_PAIRS:
        if args.game and game not in args.game:
            continue
        measured = play_deals(game, new, old, args.pairs or deals, args.seed)
        print(row(measured, args), flush=True)
        print(
            f"({game}: {2 * len(measured.halves)} matches in {measured.seconds:.0f} s)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
