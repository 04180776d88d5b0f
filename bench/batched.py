"""The batched Liar's Dice (``referee.batched``) against OpenSpiel and our scalar engine.

Three loops play random legal actions on the same rules (OpenSpiel's ``liars_dice``:
two players, 5 dice, one round, 6s wild and kept after an opening bid on 6s, a raise
is a higher quantity or the same quantity of a higher face, seat 0 opens):

* ours batched: :class:`referee.batched.liars_dice.LiarsDiceBatch` at N games, one
  uniformly random legal action per game per ``step``
  (:meth:`~referee.batched.liars_dice.LiarsDiceBatch.random_actions`, timed; each
  ``step`` also builds the N legal masks and validates the actions against them);
* OpenSpiel: pyspiel's C++ ``liars_dice`` driven from Python (legal actions, a uniform
  choice, apply; chance outcomes sampled);
* ours scalar: the referee's engine (observe, legal actions, transition; chance drawn
  from the match stream).

Only **decisions** (player moves) count, never chance steps; whole matches are timed,
chance included. The three run interleaved in rounds (batched, OpenSpiel, scalar,
batched, ...) so load hits them alike; each ratio is the median over rounds, with the
min-max in the detail.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

import numpy as np

from bench import engine
from bench.engine import Speed
from bench.report import Row
from referee.batched.liars_dice import LiarsDiceBatch
from referee.core.playout import match_rng

BATCH = 1024
ROUNDS = 3
OPENSPIEL_RULES: Mapping[str, str] = engine.MATCHING_LIARS_DICE
"""OpenSpiel's ``liars_dice`` rules exactly (the engine section's)."""


def batched_speed(budget_s: float, seed: int = 0, batch: int = BATCH) -> Speed:
    """``batch`` games stepped together for about ``budget_s`` seconds."""
    env = LiarsDiceBatch(OPENSPIEL_RULES, 2)
    rng = np.random.default_rng(seed)
    state = env.reset(np.arange(batch) + seed * batch)
    steps = matches = 0
    began = time.perf_counter()
    while steps < 5 or time.perf_counter() - began < budget_s:
        state = env.step(state, env.random_actions(state, rng))
        matches += int(state.terminated.sum())
        steps += 1
    return Speed(steps * batch, matches, time.perf_counter() - began)


def openspiel_speed(budget_s: float, seed: int = 0) -> Speed:
    """pyspiel's ``liars_dice`` (5 dice), random playouts: the engine section's loop."""
    return engine.openspiel_loop(budget_s, seed=seed)


def scalar_speed(budget_s: float, seed: int = 0) -> Speed:
    """Our engine, random playouts, decisions counted: the engine section's raw loop,
    with the referee's seeded chance stream."""
    return engine.raw_loop("liars_dice", OPENSPIEL_RULES, budget_s, seed=seed, chance=match_rng)


def _spread(values: list[float]) -> str:
    return f"median of {len(values)} rounds, min {min(values):.3g} max {max(values):.3g}"


def batched_rows(budget_s: float, rounds: int = ROUNDS, batch: int = BATCH) -> list[Row]:
    """The batched engine's rows (module doc); ``budget_s`` per side per round."""
    sides: dict[str, Callable[[float, int], Speed]] = {
        "batched": lambda budget, seed: batched_speed(budget, seed, batch),
        "scalar": scalar_speed,
    }
    have_openspiel = engine.openspiel_available()
    if have_openspiel:
        sides["openspiel"] = openspiel_speed
    runs: dict[str, list[Speed]] = {name: [] for name in sides}
    for round_ in range(max(rounds, 3)):
        for name, measure in sides.items():
            runs[name].append(measure(budget_s, round_))
    ours = runs["batched"]
    rows = [
        Row(
            "batched",
            f"liars_dice batched, N={batch}",
            statistics.median(s.decisions_per_s for s in ours),
            unit="decisions/s",
            detail=f"{statistics.median(s.matches_per_s for s in ours):,.0f} matches/s;"
            f" {sum(s.decisions for s in ours) / sum(s.matches for s in ours):.2f}"
            f" decisions/match; {_spread([s.decisions_per_s for s in ours])}",
        )
    ]
    rows.append(_ratio("ours scalar", runs["scalar"], ours, 200, batch))
    if not have_openspiel:
        rows.append(
            Row(
                "batched",
                "batched ÷ OpenSpiel liars_dice (decisions/s)",
                None,
                detail="not installed (import pyspiel fails; pip install open_spiel)",
            )
        )
        return rows
    rows.append(_ratio("OpenSpiel", runs["openspiel"], ours, 20, batch))
    theirs = runs["openspiel"]
    match_ratios = [b.matches_per_s / t.matches_per_s for b, t in zip(ours, theirs, strict=True)]
    rows.append(
        Row(
            "batched",
            f"batched N={batch} ÷ OpenSpiel liars_dice (matches/s)",
            statistics.median(match_ratios),
            detail=f"{statistics.median(s.matches_per_s for s in ours):,.0f} vs"
            f" {statistics.median(s.matches_per_s for s in theirs):,.0f} matches/s;"
            f" {_spread(match_ratios)}",
        )
    )
    return rows


def _ratio(name: str, theirs: list[Speed], ours: list[Speed], target: float, batch: int) -> Row:
    ratios = [b.decisions_per_s / t.decisions_per_s for b, t in zip(ours, theirs, strict=True)]
    per_match = sum(s.decisions for s in theirs) / sum(s.matches for s in theirs)
    return Row(
        "batched",
        f"batched N={batch} ÷ {name} liars_dice (decisions/s)",
        statistics.median(ratios),
        target_op=">=",
        target=target,
        detail=f"{statistics.median(s.decisions_per_s for s in ours):,.0f} vs"
        f" {statistics.median(s.decisions_per_s for s in theirs):,.0f} decisions/s"
        f" ({per_match:.2f} decisions/match there); {_spread(ratios)}; interleaved,"
        " chance never counted, OpenSpiel's rules (5 dice, one round, 6s wild, kept)",
    )
