"""A bot cannot tell ``arena exploit``'s probe from a league's matches.

The attack (:mod:`tests.security.probe_sensor`): a real SDK bot process that
records, per stream, everything it can see beyond its observations — streams
open at once, the first turn it is asked, whether MatchEnd comes, the time limit,
the match id's shape, the rules text, its seat and whether it changed, the time
between streams, from its Ready to its first turn, and between its answers and
its next requests — so that it could play one policy when measured and another in
matches. Classifiers (the best single-feature threshold chosen on a training
half, and nearest centroid on standardised features) are trained on its lines
from a league's matches (a warm pool, two matches at a time, seats drawn at
random, against the random bot process: what ``LeagueRun``'s local executor
runs) and from the probe, and scored on balanced held-out lines.

The probe plays real matches (``league.execution.probe_matches``): the
classifiers do no better than chance. GUARD: the old probe (one stream per
question, 8 at once, cancelled after the answer;
``policy_probe.probe_answers``) is separated almost perfectly by the same
classifiers, so the test can fail.

The bots run unsandboxed so that the sensor can write its lines to a file the
test reads; the sandbox changes nothing of what it observes here.
"""

from __future__ import annotations

import functools
import hashlib
import random
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from league.execution.policy_probe import ProbeSettings, probe_answers
from league.execution.probe_matches import MatchProbeSettings, probe_by_matches, shadow_bot
from referee.analysis.best_response import GameTree
from referee.core.catalogue import get_codec, get_game
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX
from tests.security.classifiers import fit_centroid, fit_stump
from tests.security.probe_sensor import FEATURES, read_seen

pytestmark = [pytest.mark.e2e]

GAME = "liars_dice"
RULES = {"dice_per_player": "1", "sum_endgame": "false", "roll_off": "false"}
UNSANDBOXED = replace(DEFAULT_SANDBOX, enabled=False)
RANDOM_BOT = BotSpec(
    name="random", command=(sys.executable, "-m", "example_bots.liars_dice_random")
)
SPLITS = 5
NOT_FEATURES = ("opened",)
"""The stream's opening time on the process's own clock: not comparable between
runs made one after the other (``gap_ms`` is the time between streams)."""


def sensor(out: Path) -> BotSpec:
    return BotSpec(
        name="sensor",
        command=(sys.executable, "-m", "tests.security.probe_sensor", str(out)),
    )


@functools.cache
def tree() -> GameTree:
    engine = get_game(GAME)
    return GameTree(engine, engine.parse_rules(RULES))


async def league_like(out: Path, until: trio.Event, least: int = 120, concurrency: int = 2) -> None:
    """Matches as a league plays them (``LeagueRun``'s local executor): a warm
    pool, ``concurrency`` at a time, run_match with the league's default limits,
    seats drawn at random; at least ``least`` matches, and on until ``until``."""
    bot = sensor(out)
    rng = random.Random(7)
    pool = WarmPool(sandbox=UNSANDBOXED)
    played = 0
    try:

        async def slot() -> None:
            nonlocal played
            while played < least or not until.is_set():
                seat = rng.randrange(2)
                bots = (bot, RANDOM_BOT) if seat == 0 else (RANDOM_BOT, bot)
                await run_match(MatchSpec(GAME, bots, rules=RULES), Limits(), launcher=pool)
                played += 1

        async with trio.open_nursery() as nursery:
            for _ in range(concurrency):
                nursery.start_soon(slot)
    finally:
        with trio.CancelScope(shield=True):
            await pool.aclose()


def side_by_side(probe: Any, out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The probe and a league's matches at the same time (so the host's load is the
    same for both): the sensor's lines from the league, then from the probe."""
    league_out = out.with_name("league.jsonl")

    async def main() -> None:
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(league_like, league_out, done)
            await probe(out)
            done.set()

    trio.run(main)
    return read_seen(str(league_out)), read_seen(str(out))


async def new_probe(out: Path) -> None:
    settings = MatchProbeSettings(GAME, samples=2, sandbox=UNSANDBOXED, shadow=shadow_bot(GAME))
    await probe_by_matches(sensor(out), tree(), get_codec(GAME), settings)


async def old_probe(out: Path) -> None:
    settings = ProbeSettings(GAME, RULES, samples=1, sandbox=UNSANDBOXED)
    for seat in (0, 1):
        await probe_answers(sensor(out), tree(), seat, get_codec(GAME), settings)


def vector(seen: dict[str, Any]) -> list[float]:
    """Every feature as a number (text by a hash of it: equal or not is what counts)."""
    out = []
    for name in FEATURES:
        if name in NOT_FEATURES:
            continue
        value = seen[name]
        if isinstance(value, str):
            value = int(hashlib.sha256(value.encode()).hexdigest()[:8], 16)
        out.append(float(value))
    return out


def accuracies(matches: list[dict[str, Any]], probed: list[dict[str, Any]]) -> dict[str, float]:
    """Held-out accuracy of each classifier on balanced samples (0: a league
    match, 1: the probe), averaged over ``SPLITS`` random halvings."""
    rng = random.Random(2028)
    n = min(len(matches), len(probed))
    assert n >= 40, f"too few lines: {len(matches)} matches, {len(probed)} probe streams"
    scores: dict[str, list[float]] = {"stump": [], "centroid": []}
    for _ in range(SPLITS):
        rows = [(vector(s), 0) for s in rng.sample(matches, n)]
        rows += [(vector(s), 1) for s in rng.sample(probed, n)]
        rng.shuffle(rows)
        train, test = rows[: len(rows) // 2], rows[len(rows) // 2 :]
        inputs, labels = [x for x, _ in train], [y for _, y in train]
        stump = fit_stump(inputs, labels, max_cuts=64)
        scores["stump"].append(statistics.fmean(stump.predict(x) == y for x, y in test))
        predict = fit_centroid(inputs, labels)
        scores["centroid"].append(statistics.fmean(predict(x) == y for x, y in test))
    return {name: statistics.fmean(values) for name, values in scores.items()}


def test_the_probe_looks_like_a_league_to_every_classifier(tmp_path: Path) -> None:
    matches, probed = side_by_side(new_probe, tmp_path / "probe.jsonl")
    for name in ("concurrent", "max_concurrent", "match_end", "time_limit_ms", "id_shape"):
        assert {s[name] for s in probed} == {s[name] for s in matches}, name
    assert {s["rules"] for s in probed} == {s["rules"] for s in matches}
    assert {s["first_turn"] for s in probed} == {1, 2}
    scores = accuracies(matches, probed)
    print(f"\nnew probe vs league: {scores} ({len(probed)} probe, {len(matches)} league matches)")
    assert max(scores.values()) <= 0.65, scores


def test_guard_the_old_probe_is_told_apart(tmp_path: Path) -> None:
    matches, probed = side_by_side(old_probe, tmp_path / "probe.jsonl")
    scores = accuracies(matches, probed)
    print(f"\nold probe vs league: {scores} ({len(probed)} probe streams)")
    assert max(scores.values()) >= 0.9, scores
