"""How many matches the luck adjustment saves, measured on real bot pairs
(``docs/ratings.md``, luck-adjusted results).

Every deal ``j`` (seed ``--seed + j``, the fast chance stream) is played twice in
process (``sdk.local``), NEW in seat 0 then in seat 1: a duplicate pair. For each pair
it keeps NEW's raw pair score (the mean of its two scores, 1 / ½ / 0 per game) and its
luck-adjusted pair score (each game's score minus NEW's luck in it,
:mod:`referee.analysis.luck`; the pair's deal seed is the salt of sampled
expectations). It prints, per bot pair:

* the two means with their 95% intervals, and the mean luck (raw − adjusted) with its
  interval, which must hold 0: the adjustment does not move the mean;
* the variance per pair of each estimator and their ratio ``Var(raw pairs) /
  Var(adjusted pairs)`` with a 95% bootstrap interval over deals: how many times
  fewer matches the adjustment needs for the same interval width;
* the matches each needs for a 95% interval of ±0.01 on NEW's score.

    python -m bench.luck                          # a small run of every bot pair
    python -m bench.luck --matches 20000          # ≥ 20k matches per game
    python -m bench.luck --game liars_dice --matches 2000
    python -m bench.luck --fit                    # refit every game's baseline.json
    python -m bench.luck --fit --game liars_dice  # refit one game's
    python -m bench.luck --fit-tables             # only the tables
    python -m bench.luck --fit-rounds 5000        # only Liar's Dice's round-win shares
    python -m bench.luck --fit-coefficients 2000  # only b per game
    python -m bench.luck --sprt 1000 --matches 4000  # the GSPRT's error rates, resampled

A game's fitted data is ``baseline.json`` in its folder (``referee/games/<game>/``, beside
the ``baseline.py`` that reads it; the format: :mod:`referee.gamekit.luck_baseline`).
``--fit`` refits all of it, game by game, in order: the tables (``--fit-tables``: the
reference pairs of :data:`FIT_PAIRS`, ``--fit-matches`` each, on seeds apart from the
measurement's), Liar's Dice's round-win shares (``--fit-rounds``: the same pairs,
``--fit-round-matches`` each), then each game's least-squares coefficient ``b`` of the
luck term (adjusted = score − b·luck) under the new tables (``--fit-coefficients``:
duplicate pairs of the measured bot pairs on other seeds again, ``--fit-deals`` each or
as many as the game's ``b`` was last fitted on). The measurement prints the ratio with
the fitted ``b`` and, for comparison, with ``b = 1``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from bench import sprt_error_rates as harness
from bench.luck_store import section_rows as stored_rows
from bench.report import Row
from league.domain.luck import LuckSprt, fitted_coefficient, pair_interval
from league.execution.counters import bot_class
from referee.analysis.luck import baseline_for, coefficient_for, luck
from referee.core.catalogue import get_game
from referee.core.events import ChanceEvent, Event
from referee.gamekit import luck_baseline
from referee.gamekit.luck_baseline import (
    ConstantBaseline,
    Fitted,
    FittedTable,
    Key,
    TableBaseline,
    format_fitted,
    load_fitted,
    parent,
)
from referee.games.dice_poker.baseline import DicePokerBaseline
from sdk.local import play_local

BOT_PAIRS: tuple[tuple[str, str, str], ...] = (
    # game, NEW, OLD: strong vs heuristic, heuristic vs a weaker bot, two close versions
    # (a pair that one bot sweeps, such as heuristic vs random in most games, has no
    # variance to reduce and is left out, as Liar's Poker's strong vs heuristic, 2,000 of
    # 2,000; so is a bot against itself in Dice Poker, whose duplicate pairs are then the
    # same game twice and always score ½)
    ("liars_dice", "liars_dice_posterior", "liars_dice_probability"),
    ("liars_dice", "liars_dice_probability", "liars_dice_counting"),
    ("liars_dice", "liars_dice_probability_10", "liars_dice_probability_20"),
    ("liars_poker_dice", "liars_poker_dice_strong", "liars_poker_dice_heuristic"),
    ("liars_poker_dice", "liars_poker_dice_heuristic", "liars_poker_dice_rule_out"),
    ("liars_poker_dice", "liars_poker_dice_heuristic", "liars_poker_dice_truthful"),
    ("dice_poker", "dice_poker_optimal", "dice_poker_heuristic"),
    ("cockroach_poker", "cockroach_poker_strong", "cockroach_poker_heuristic"),
    ("cockroach_poker", "cockroach_poker_heuristic", "cockroach_poker_truthful"),
    ("liars_poker", "liars_poker_heuristic", "liars_poker_always_challenge"),
)
FIT_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {
    "liars_dice": (
        ("liars_dice_probability", "liars_dice_probability"),
        ("liars_dice_posterior", "liars_dice_probability"),
    ),
    "liars_poker_dice": (
        ("liars_poker_dice_strong", "liars_poker_dice_heuristic"),
        ("liars_poker_dice_heuristic", "liars_poker_dice_heuristic"),
    ),
    "liars_poker": (("liars_poker_heuristic", "liars_poker_heuristic"),),
    "dice_poker": (("dice_poker_heuristic", "dice_poker_heuristic"),),
}
"""The reference pairs each table is fitted on (each plays both seats)."""
FIT_SEED = 10_000_000
"""Fitting deals start here, far from the measurement's seeds."""
COEFFICIENT_SEED = 20_000_000
"""The coefficients' deals start here, apart from the measurement's and the tables'."""
SMOOTHING = 10.0
"""Virtual observations at the parent key's mean added to every fitted cell."""
FIT_MATCHES = 3000
"""Matches per reference pair a table is fitted on (``--fit-matches``)."""
FIT_ROUND_MATCHES = 5000
"""Matches per reference pair Liar's Dice's round-win shares are fitted on."""
FIT_DEALS = 1000
"""Duplicate pairs per bot pair ``b`` is fitted on when the game's data names none."""


class LuckBenchError(ValueError):
    """A request the measurement cannot run (the message names the bad value)."""


def score(places: Sequence[int], seat: int) -> float:
    """Seat ``seat``'s points in a two-seat match: 1 ahead, ½ level, 0 behind."""
    mine, theirs = places[seat], places[1 - seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


# ---------------------------------------------------------------------------
# Measurement


@dataclass(frozen=True, slots=True)
class Pairs:
    """One bot pair's deals: NEW's raw and adjusted pair scores."""

    game: str
    new: str
    old: str
    raw: tuple[float, ...]
    adjusted: tuple[float, ...]
    seconds: float
    coefficient: float = 1.0
    """The ``b`` of ``adjusted`` (raw − b·luck)."""
    unit_adjusted: tuple[float, ...] = ()
    """The pair scores adjusted with ``b = 1`` (for comparison)."""


def play_pairs(
    game: str, new: str, old: str, deals: int, seed: int, coefficient: float | None = None
) -> Pairs:
    """Each deal twice in process (NEW in seat 0, then in seat 1) with its luck, the
    luck's coefficient ``b`` being ``coefficient`` or else the game's fitted one."""
    new_bot, old_bot = bot_class(new), bot_class(old)
    engine = get_game(game)
    rules = engine.parse_rules({})
    b = coefficient_for(game) if coefficient is None else coefficient
    start = time.perf_counter()
    raw, adjusted, unit = [], [], []
    for index in range(deals):
        deal = seed + index
        salt = str(deal).encode()
        halves_raw, halves_luck = [], []
        for seat, bots in ((0, [new_bot, old_bot]), (1, [old_bot, new_bot])):
            match = play_local(game, bots, seed=deal, fast_chance=True)
            halves_raw.append(score(match.outcome.places, seat))
            halves_luck.append(luck(game, rules, 2, match.events, salt=salt, coefficient=1.0)[seat])
        pair_raw, pair_luck = statistics.fmean(halves_raw), statistics.fmean(halves_luck)
        raw.append(pair_raw)
        adjusted.append(pair_raw - b * pair_luck)
        unit.append(pair_raw - pair_luck)
    return Pairs(
        game, new, old, tuple(raw), tuple(adjusted), time.perf_counter() - start, b, tuple(unit)
    )


def variance_ratio(raw: Sequence[float], adjusted: Sequence[float]) -> float:
    """``Var(raw) / Var(adjusted)``: how many times fewer pairs the adjusted mean needs
    for the same interval width (inf when the adjusted pairs never vary)."""
    adj = statistics.pvariance(adjusted)
    return math.inf if adj == 0 else statistics.pvariance(raw) / adj


def ratio_interval(
    raw: Sequence[float], adjusted: Sequence[float], rng: random.Random, samples: int = 400
) -> tuple[float, float]:
    """95% bootstrap interval of :func:`variance_ratio`, resampling deals."""
    count = len(raw)
    values = []
    for _ in range(samples):
        drawn = [rng.randrange(count) for _ in range(count)]
        values.append(variance_ratio([raw[i] for i in drawn], [adjusted[i] for i in drawn]))
    values.sort()
    return values[int(0.025 * samples)], values[int(0.975 * samples) - 1]


def matches_for(values: Sequence[float], half_width: float = 0.01) -> float:
    """Matches (two per pair) for a 95% interval of ± ``half_width`` on the mean."""
    return 2 * (1.96 * statistics.pstdev(values) / half_width) ** 2


def rows_for(pairs: Pairs, rng: random.Random) -> tuple[Row, str]:
    """A bench row (the variance ratio, target 2×) and a line of detail."""
    raw_lo, raw_hi = pair_interval(pairs.raw)
    adj_lo, adj_hi = pair_interval(pairs.adjusted)
    diffs = [a - b for a, b in zip(pairs.raw, pairs.adjusted, strict=True)]
    luck_lo, luck_hi = pair_interval(diffs)
    ratio = variance_ratio(pairs.raw, pairs.adjusted)
    low, high = ratio_interval(pairs.raw, pairs.adjusted, rng)
    matches = 2 * len(pairs.raw)
    unit = (
        f" (b = 1: {variance_ratio(pairs.raw, pairs.unit_adjusted):.2f}×)"
        if pairs.unit_adjusted
        else ""
    )
    detail = (
        f"{pairs.game}: {pairs.new} vs {pairs.old}, {matches} matches ({pairs.seconds:.0f} s),"
        f" b = {pairs.coefficient:.3f}:"
        f" raw {statistics.fmean(pairs.raw):.4f} [{raw_lo:.4f}, {raw_hi:.4f}],"
        f" adjusted {statistics.fmean(pairs.adjusted):.4f} [{adj_lo:.4f}, {adj_hi:.4f}],"
        f" mean luck {statistics.fmean(diffs):+.4f} [{luck_lo:+.4f}, {luck_hi:+.4f}]"
        f" ({'holds 0' if luck_lo <= 0 <= luck_hi else 'MISSES 0'});"
        f" Var per pair raw {statistics.pvariance(pairs.raw):.4f},"
        f" adjusted {statistics.pvariance(pairs.adjusted):.4f};"
        f" matches for ±0.01: {matches_for(pairs.raw):.0f} raw,"
        f" {matches_for(pairs.adjusted):.0f} adjusted;"
        f" ratio {ratio:.2f}× [{low:.2f}, {high:.2f}]{unit}"
    )
    row = Row(
        "luck",
        f"{pairs.game}: {pairs.new} vs {pairs.old}: Var(pairs) ÷ Var(luck-adjusted pairs)",
        ratio,
        "x",
        ">=",
        2.0,
        f"95% bootstrap [{low:.2f}, {high:.2f}], {matches} matches",
    )
    return row, detail


def measure(
    games: Sequence[str] | None, matches: int, seed: int, out: list[str] | None = None
) -> list[Row]:
    """Every bot pair of ``games`` (all when None), ``matches`` matches per game
    shared among its pairs."""
    chosen = [p for p in BOT_PAIRS if games is None or p[0] in games]
    if not chosen:
        raise LuckBenchError(f"no bot pair for games {games!r}")
    per_game: dict[str, int] = defaultdict(int)
    for game, _, _ in chosen:
        per_game[game] += 1
    rng = random.Random(seed)
    rows = []
    for game, new, old in chosen:
        deals = max(2, matches // (2 * per_game[game]))
        pairs = play_pairs(game, new, old, deals, seed)
        row, detail = rows_for(pairs, rng)
        rows.append(row)
        print(detail, flush=True)
        if out is not None:
            out.append(detail)
    return rows


SECTION_GAMES = ("liars_poker_dice", "liars_dice", "cockroach_poker")
"""The games ``python -m bench --only luck`` measures (the fast ones; Liar's Poker and
Dice Poker take minutes per thousand matches: ``python -m bench.luck --game ...``)."""


def section_rows(*, quick: bool = False) -> list[Row]:
    """The ``luck`` section of ``python -m bench``: a small run of :data:`SECTION_GAMES`,
    then what storing each match's luck with its result costs and saves
    (:mod:`bench.luck_store`: ``record_result`` with and without it, and a luck-adjusted
    SPRT's state at N and 2N pairs)."""
    return [*measure(SECTION_GAMES, 120 if quick else 400, seed=1), *stored_rows(quick=quick)]


# ---------------------------------------------------------------------------
# Fitting


def _fitted_baseline(game: str) -> tuple[str, Path]:
    """The ``"package:file"`` reference of the game's fitted data and the file itself."""
    reference = baseline_for(game).data
    if reference is None:
        raise LuckBenchError(f"{game}: its baseline reads no fitted data (nothing to refit)")
    path = luck_baseline.data_file(reference)
    if not isinstance(path, Path):
        raise LuckBenchError(f"{game}: its fitted data {reference} is not a file on disk")
    return reference, path


def update_fitted(game: str, change: Callable[[Fitted], Fitted]) -> Path:
    """Rewrite the game's fitted data (its ``baseline.json``) as ``change`` of what it
    holds (nothing when the file is missing); what is read next is the new data."""
    reference, path = _fitted_baseline(game)
    current = load_fitted(reference) if path.exists() else Fitted()
    path.write_text(format_fitted(change(current)), encoding="utf-8")
    load_fitted.cache_clear()
    return path


def _with_table(fitted: Fitted, name: str, table: FittedTable) -> Fitted:
    return replace(fitted, tables={**fitted.tables, name: table})


def _with_coefficient(fitted: Fitted, b: float, deals: int) -> Fitted:
    return replace(fitted, coefficient=b, fit_deals=deals)


def _smoothed(sums: dict[Key, list[float]]) -> FittedTable:
    """Mean per key, smoothed with :data:`SMOOTHING` virtual observations at the mean of
    its parent key (:func:`parent`); the parents' means are the table's fallback."""
    parents: dict[Key, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for key, (total, count) in sums.items():
        cell = parents[parent(key)]
        cell[0] += total
        cell[1] += count
    parent_means = {k: round(t / n, 4) for k, (t, n) in parents.items()}
    table = {
        key: round((total + SMOOTHING * parent_means[parent(key)]) / (count + SMOOTHING), 4)
        for key, (total, count) in sums.items()
    }
    return FittedTable(dict(sorted(table.items())), dict(sorted(parent_means.items())))


def _chance_keys(game: str, events: Sequence[Event]) -> list[tuple[Key, Key]]:
    """Both seats' table keys at every chance event of a match (tabular games)."""
    engine = get_game(game)
    baseline = baseline_for(game)
    state = engine.new_game(engine.parse_rules({}), 2)
    found = []
    for event in events:
        if isinstance(event, ChanceEvent):
            keys = baseline.keys(state, event.outcome)
            if keys is not None:
                found.append(keys)
            state = engine.apply_chance(state, event.outcome)
        else:
            state = engine.apply_action(state, event.seat, event.action)
    return found


def fit_table(game: str, matches: int) -> FittedTable:
    """Mean final score per key (smoothed towards the parent key) over ``matches``
    reference matches per fit pair, both seat orders."""
    sums: dict[Key, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for a, b in FIT_PAIRS[game]:
        bots = [bot_class(a), bot_class(b)]
        for index in range(matches):
            order = bots if index % 2 == 0 else bots[::-1]
            match = play_local(game, order, seed=FIT_SEED + index, fast_chance=True)
            scores = (score(match.outcome.places, 0), score(match.outcome.places, 1))
            for keys in _chance_keys(game, match.events):
                for seat in (0, 1):
                    cell = sums[keys[seat]]
                    cell[0] += scores[seat]
                    cell[1] += 1
    return _smoothed(sums)


def fit_dice_poker(deals: int) -> tuple[float, float]:
    """σ and β of the Dice Poker baseline that minimise the variance of the adjusted
    scores of the fit pair's matches (a grid; printed, not written: they are constants
    of ``referee/games/dice_poker/baseline.py``)."""
    a, b = FIT_PAIRS["dice_poker"][0]
    bots = [bot_class(a), bot_class(b)]
    engine = get_game("dice_poker")
    rules = engine.parse_rules({})
    played = []
    for index in range(deals):
        order = bots if index % 2 == 0 else bots[::-1]
        match = play_local("dice_poker", order, seed=FIT_SEED + index, fast_chance=True)
        played.append((score(match.outcome.places, 0), match.events))
    best = (math.inf, 0.0, 0.0)
    for sigma in (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0):
        for beta in (0.4, 0.6, 0.8, 1.0):
            baseline = DicePokerBaseline(sigma, beta)
            adjusted = [
                points - luck("dice_poker", rules, 2, events, baseline=baseline)[0]
                for points, events in played
            ]
            variance = statistics.pvariance(adjusted)
            print(f"dice_poker σ={sigma:g} β={beta:g}: Var(adjusted) {variance:.4f}", flush=True)
            if variance < best[0]:
                best = (variance, sigma, beta)
    raw = statistics.pvariance([points for points, _ in played])
    print(f"dice_poker: raw Var {raw:.4f}; best σ={best[1]:g} β={best[2]:g}: {best[0]:.4f}")
    return best[1], best[2]


def _games(games: Sequence[str] | None) -> list[str]:
    """The games with reference pairs, in :data:`FIT_PAIRS`' order (``games`` only)."""
    return [game for game in FIT_PAIRS if games is None or game in games]


def write_tables(matches: int, games: Sequence[str] | None = None) -> None:
    """Refit the table of each tabular game of ``games`` (every one when None) and write
    it to the game's data file, keeping the rest of the file."""
    for game in _games(games):
        baseline = baseline_for(game)
        if not isinstance(baseline, TableBaseline):
            continue
        start = time.perf_counter()
        table = fit_table(game, matches)
        path = update_fitted(game, partial(_with_table, name=baseline.table_name, table=table))
        print(
            f"{game}: {len(table.cells)} cells from {matches} matches per fit pair"
            f" ({time.perf_counter() - start:.0f} s); wrote {path}",
            flush=True,
        )


def _round_results(events: Sequence[Event]) -> list[tuple[Key, float]]:
    """Per Liar's Dice roll with table keys, both seats' keys with 1 when that seat won
    the round (the other seat lost a die before the next roll), 0 when it lost."""
    engine = get_game("liars_dice")
    baseline = baseline_for("liars_dice")
    state = engine.new_game(engine.parse_rules({}), 2)
    found: list[tuple[Key, float]] = []
    open_round: tuple[tuple[Key, Key], tuple[int, ...]] | None = None
    for event in events:
        if isinstance(event, ChanceEvent):
            keys = baseline.keys(state, event.outcome)
            state = engine.apply_chance(state, event.outcome)
            open_round = None if keys is None else (keys, tuple(state.dice_counts))
        else:
            state = engine.apply_action(state, event.seat, event.action)
            if open_round is not None and tuple(state.dice_counts) != open_round[1]:
                keys, counts = open_round
                lost = 0 if state.dice_counts[0] < counts[0] else 1
                found += [(keys[lost], 0.0), (keys[1 - lost], 1.0)]
                open_round = None
    return found


def fit_rounds(matches: int) -> None:
    """Liar's Dice's round-win shares per key over ``matches`` matches per reference pair
    (both seat orders, seeds from :data:`FIT_SEED`), written to the ``round_wins`` table
    of its data file."""
    sums: dict[Key, list[float]] = defaultdict(lambda: [0.0, 0.0])
    start = time.perf_counter()
    for a, b in FIT_PAIRS["liars_dice"]:
        bots = [bot_class(a), bot_class(b)]
        for index in range(matches):
            order = bots if index % 2 == 0 else bots[::-1]
            match = play_local("liars_dice", order, seed=FIT_SEED + index, fast_chance=True)
            for key, won in _round_results(match.events):
                cell = sums[key]
                cell[0] += won
                cell[1] += 1
    table = _smoothed(sums)
    path = update_fitted("liars_dice", partial(_with_table, name="round_wins", table=table))
    print(
        f"liars_dice: {len(table.cells)} round cells from {matches} matches per fit pair"
        f" ({time.perf_counter() - start:.0f} s); wrote {path}"
    )


def fit_coefficients(deals: int | None, games: Sequence[str] | None = None) -> dict[str, float]:
    """Each game's least-squares ``b`` (:func:`fitted_coefficient`) over ``deals``
    duplicate pairs (None: as many as its ``b`` was last fitted on, else
    :data:`FIT_DEALS`) of each of its :data:`BOT_PAIRS` (pair score against pair luck
    at b = 1), on seeds from :data:`COEFFICIENT_SEED`, apart from the measurement's;
    writes each into its game's data file, beside the tables.

    The pairs are the measured bot pairs, not the tables' reference pairs: a reference
    pair of a deterministic bot against itself (Dice Poker's, Liar's Poker's) plays the
    same game twice per deal, so its pair score never varies and says nothing of ``b``.
    In a league ``b`` would likewise come from earlier matches of its own bots."""
    found: dict[str, float] = {}
    for game in _games(games):
        baseline = baseline_for(game)
        if isinstance(baseline, ConstantBaseline):
            continue
        count = deals or baseline.fitted().fit_deals or FIT_DEALS
        start = time.perf_counter()
        scores: list[float] = []
        lucks: list[float] = []
        for _, new, old in (p for p in BOT_PAIRS if p[0] == game):
            played = play_pairs(game, new, old, count, COEFFICIENT_SEED, coefficient=1.0)
            pair_lucks = [r - u for r, u in zip(played.raw, played.unit_adjusted, strict=True)]
            print(f"{game}: {new} vs {old}: b = {fitted_coefficient(played.raw, pair_lucks):.4f}")
            scores += played.raw
            lucks += pair_lucks
        b = found[game] = round(fitted_coefficient(scores, lucks), 4)
        path = update_fitted(game, partial(_with_coefficient, b=b, deals=count))
        print(
            f"{game}: b = {b} from {len(scores)} pairs"
            f" ({time.perf_counter() - start:.0f} s); wrote {path}",
            flush=True,
        )
    return found


def fit_all(
    games: Sequence[str] | None = None,
    *,
    matches: int = FIT_MATCHES,
    round_matches: int = FIT_ROUND_MATCHES,
    deals: int | None = None,
) -> None:
    """Refit every part of the data of ``games`` (every game with reference pairs when
    None): the tables, Liar's Dice's round-win shares, then ``b`` under the new data."""
    write_tables(matches, games)
    if "liars_dice" in _games(games):
        fit_rounds(round_matches)
    fit_coefficients(deals, games)


# ---------------------------------------------------------------------------
# The sequential test's error rates


SPRT_PAIR = ("liars_poker_dice", "liars_poker_dice_heuristic", "liars_poker_dice_rule_out")
"""The real adjusted pair scores ``--sprt`` resamples (a fast pair with a wide spread)."""


def sprt_error_rates(pairs: Pairs, runs: int, seed: int) -> list[str]:
    """Error rates of :class:`LuckSprt` simulated with ``bench.sprt_error_rates`` (every
    pair checked as ``arena sprt`` checks it), on two samplers per hypothesis pair: the
    real adjusted pair scores of ``pairs`` resampled and shifted so that their mean is
    exactly H0's (then H1's) expected score, and normal scores with their deviation."""
    real = np.array(pairs.adjusted)
    deviation = float(real.std())
    lines = []
    for elo1 in (20.0, 50.0):
        test = LuckSprt(elo0=0.0, elo1=elo1)

        def resampled(target: float) -> harness.Sampler:
            shifted = real - real.mean() + target

            def draw(rng: np.random.Generator, n: int) -> harness.Floats:
                return np.asarray(shifted[rng.integers(len(shifted), size=n)], dtype=np.float64)

            return draw

        for name, at_h0, at_h1 in (
            ("resampled", resampled(test.score0), resampled(test.score1)),
            (
                f"normal sd {deviation:.3f}",
                harness.normal_sampler(test.score0, deviation),
                harness.normal_sampler(test.score1, deviation),
            ),
        ):
            row = harness.error_rates(
                f"luck-adjusted GSPRT, {name}",
                harness.ScalarTest(test),
                at_h0,
                at_h1,
                elo1=elo1,
                runs=runs,
                seed=seed,
            )
            lines.append(row.text())
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.luck", description=__doc__)
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--matches", type=int, default=400, help="matches per game")
    parser.add_argument("--seed", type=int, default=1, help="first deal's seed")
    parser.add_argument(
        "--fit",
        action="store_true",
        help="refit every game's baseline.json: tables, Liar's Dice's rounds, then b",
    )
    parser.add_argument("--fit-tables", action="store_true", help="refit only the tables")
    parser.add_argument(
        "--fit-matches", type=int, default=FIT_MATCHES, help="matches per fit pair (tables)"
    )
    parser.add_argument(
        "--fit-round-matches",
        type=int,
        default=FIT_ROUND_MATCHES,
        help="matches per fit pair (Liar's Dice's round-win shares)",
    )
    parser.add_argument(
        "--fit-deals",
        type=int,
        default=None,
        help="pairs per bot pair to fit b on (default: as many as last time)",
    )
    parser.add_argument("--fit-dice-poker", type=int, default=0, help="deals to fit σ, β on")
    parser.add_argument(
        "--fit-rounds", type=int, default=0, help="only Liar's Dice's rounds, on N matches per pair"
    )
    parser.add_argument(
        "--fit-coefficients", type=int, default=0, help="only b, on N pairs per bot pair"
    )
    parser.add_argument("--sprt", type=int, default=0, help="simulated tests per cell")
    args = parser.parse_args(argv)
    if args.matches < 4:
        raise SystemExit(f"--matches {args.matches}: at least 4")
    if args.fit:
        fit_all(
            args.game,
            matches=args.fit_matches,
            round_matches=args.fit_round_matches,
            deals=args.fit_deals,
        )
        return 0
    if args.fit_tables:
        write_tables(args.fit_matches, args.game)
        return 0
    if args.fit_rounds:
        fit_rounds(args.fit_rounds)
        return 0
    if args.fit_coefficients:
        fit_coefficients(args.fit_coefficients, args.game)
        return 0
    if args.fit_dice_poker:
        fit_dice_poker(args.fit_dice_poker)
        return 0
    if args.sprt:
        pairs = play_pairs(*SPRT_PAIR, args.matches // 2, args.seed)
        print(
            "| test | elo1 (logistic) | runs | α̂ [95%] | β̂ [95%] | pairs at H0 | pairs at H1"
            " | within 5% ± 1.5 |"
        )
        for line in sprt_error_rates(pairs, args.sprt, args.seed):
            print(line, flush=True)
        return 0
    rows = measure(args.game, args.matches, args.seed)
    for row in rows:
        print(f"{row.name}: {row.value:.2f}× ({row.detail}) {row.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
