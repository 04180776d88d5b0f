"""What keeping each match's luck with its result costs, and what it saves
(:mod:`league.store.match_luck`; ``docs/sprt.md``, luck-adjusted tests).

    python -m bench.luck_store                                  # Liar's Dice and Dice Poker
    python -m bench.luck_store --game dice_poker --pairs 20

Matches are played in process (:mod:`sdk.local`, NEW against OLD on each pair's deal,
both seat orders) and stored in a SQLite league as the league runner stores them
(:func:`league.store.leagues.record_result`, one transaction per match; a seat that
answered with mixed moves has them stored and committed to in its record, as the
referee does). Two measures per game:

* ``record_result``: the time to store a match with its luck computed, and without it
  (the same call given a precomputed "no luck": what storing cost before);
* ``arena sprt --luck-adjusted``: the time of the test's state
  (:func:`league.store.luck_standings.luck_sprt_state`, what the test reads after every
  pair) once ``N`` pairs are stored and once ``2N`` are, in the same run, and, for
  comparison at the same two points, the test's pentanomial counts (what a test
  without ``--luck-adjusted`` reads after every pair) and what recomputing every stored
  match's luck (as each read did before) takes. A per-pair cost that stays flat as
  pairs grow keeps the test's cost linear in its pairs; both reads are one query over
  the test's matches, so they grow with them, at a small fraction of a millisecond per
  match.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import select

from bench.report import Row
from league.execution.counters import bot_class
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    decompress_record,
    get_league,
    pending_matches,
    record_result,
)
from league.store.luck_standings import luck_sprt_state
from league.store.match_luck import MatchLuck, match_luck
from league.store.models import MatchRow
from league.store.registry import add_bot
from league.store.sprt_tests import (
    SprtSettings,
    create_sprt_league,
    extend_pairs,
    pentanomial,
    sprt_settings,
)
from referee.core.catalogue import get_codec, get_game
from referee.core.events import ActionEvent
from referee.core.mixed import MixedAnswer, commit, new_salt
from referee.records.record import MatchRecord, RecordedEvent, SeatInfo
from referee.runtime.sandbox import NO_SANDBOX
from sdk.local import play_local

PAIRS: dict[str, tuple[str, str]] = {
    "liars_dice": ("liars_dice_probability", "liars_dice_random"),
    "dice_poker": ("dice_poker_heuristic", "dice_poker_random"),
}
"""NEW and OLD per game (bots that need no solved table)."""
NOT_COMPUTED = MatchLuck(None, "not computed (bench)")
"""What ``record_result`` is given to store a match without computing its luck."""


def local_record(
    game: str, match_id: str, bots: Sequence[str], seed: int
) -> tuple[MatchRecord, dict[int, list[MixedAnswer]]]:
    """A match of ``bots`` played in process on deal ``seed`` as a record, with each
    seat's mixed moves (an action drawn from stated probabilities: committed to in the
    record, the probabilities kept for its author)."""
    played = play_local(game, [bot_class(b) for b in bots], seed=seed, match_id=match_id)
    codec = get_codec(game)
    events: list[RecordedEvent] = []
    mixed: dict[int, list[MixedAnswer]] = {}
    turn = 0
    for index, event in enumerate(played.events):
        if not isinstance(event, ActionEvent):
            events.append(RecordedEvent(seat=None, outcome=event.outcome, at_ms=float(index)))
            continue
        turn += 1
        committed = None
        if event.policy is not None:
            salt = new_salt()
            mixed.setdefault(event.seat, []).append(MixedAnswer(turn, salt, event.policy))
            committed = commit(salt, event.policy)
        events.append(
            RecordedEvent(
                seat=event.seat,
                action=codec.action_to_json(event.action),
                elapsed_ms=0.0,
                at_ms=float(index),
                turn=turn,
                mixed=committed,
            )
        )
    engine = get_game(game)
    record = MatchRecord(
        match_id=match_id,
        game=game,
        rules=engine.format_rules(engine.parse_rules({})),
        num_seats=2,
        seed=None,
        seats=tuple(SeatInfo(seat=s, bot=b) for s, b in enumerate(bots)),
        events=tuple(events),
        faults=(),
        reason="completed",
        places=played.outcome.places,
        scores=played.outcome.scores,
    )
    return record.sealed(), mixed


@dataclass(frozen=True, slots=True)
class WriteCost:
    game: str
    matches: int
    with_luck_ms: float
    """Median time of one ``record_result`` and its commit, the luck computed."""
    without_ms: float
    """The same, the luck not computed."""
    mixed_moves: int
    """Mixed moves stored over the matches (each an action term's policy)."""


def _timed_write(
    engine: Engine,
    league: str,
    match_id: int,
    record: MatchRecord,
    mixed: dict[int, list[MixedAnswer]],
    luck: MatchLuck | None,
) -> float:
    began = time.perf_counter()
    with session_scope(engine) as session:
        record_result(
            session=session,
            league=get_league(session=session, name=league),
            match_id=match_id,
            record=record,
            mixed=mixed,
            luck=luck,
        )
    return time.perf_counter() - began


def write_cost(engine: Engine, game: str, matches: int) -> WriteCost:
    """Store ``matches`` played matches twice, in two leagues of the same schedule: with
    their luck computed and without (alternating, so both see the same database)."""
    new, old = PAIRS[game]
    with session_scope(engine) as session:
        for bot in (new, old):
            add_bot(session=session, name=f"{game}-{bot}", command="true", games=[game])
        for name in ("with", "without"):
            create_league(
                session=session,
                name=f"{game}-{name}",
                settings=LeagueSettings(
                    game,
                    (f"{game}-{new}", f"{game}-{old}"),
                    rounds=(matches + 1) // 2,
                    sandbox=NO_SANDBOX,
                ),
            )
        schedules = [
            pending_matches(session=session, league=get_league(session=session, name=f"{game}-{n}"))
            for n in ("with", "without")
        ]
    with_luck, without, moves = [], [], 0
    for index, (first, second) in enumerate(zip(*schedules, strict=True)):
        if index == matches:
            break
        bots = [b.name.removeprefix(f"{game}-") for b in first.bots]
        record, mixed = local_record(game, f"{game}-{first.position}", bots, seed=index // 2)
        moves += sum(len(answers) for answers in mixed.values())
        with_luck.append(_timed_write(engine, f"{game}-with", first.match_id, record, mixed, None))
        without.append(
            _timed_write(engine, f"{game}-without", second.match_id, record, mixed, NOT_COMPUTED)
        )
    return WriteCost(
        game,
        len(with_luck),
        statistics.median(with_luck) * 1e3,
        statistics.median(without) * 1e3,
        moves,
    )


@dataclass(frozen=True, slots=True)
class SprtCost:
    game: str
    pairs: int
    """``N``: the state is timed at ``N`` and at ``2N`` pairs."""
    state_ms: tuple[float, float]
    """Median time of ``luck_sprt_state`` at ``N`` and ``2N`` pairs (stored luck)."""
    recompute_s: tuple[float, float]
    """Time to recompute every stored match's luck at ``N`` and ``2N`` pairs (each
    read's cost before luck was stored)."""
    penta_ms: tuple[float, float]
    """Median time of the same test's pentanomial counts (what a test without
    ``--luck-adjusted`` reads after every pair) at ``N`` and ``2N`` pairs."""

    @property
    def ratio(self) -> float:
        return self.state_ms[1] / self.state_ms[0]

    @property
    def recompute_ratio(self) -> float:
        return self.recompute_s[1] / self.recompute_s[0]


def _median_time(call: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def _state_times(engine: Engine, name: str, repeats: int) -> tuple[float, float]:
    """Median times of reading the test's luck-adjusted state and its pentanomial
    counts, each in a session of its own (as ``arena sprt`` reads them after each pair)."""

    def luck_state() -> None:
        with session_scope(engine) as session:
            league = get_league(session=session, name=name)
            settings = sprt_settings(league)
            luck_sprt_state(
                session=session,
                league=league,
                new_bot=settings.new_bot,
                old_bot=settings.old_bot,
                test=settings.luck_test(),
            )

    def counts() -> None:
        with session_scope(engine) as session:
            pentanomial(session=session, league=get_league(session=session, name=name))

    luck_state()  # the first reads warm SQLAlchemy's statement caches: not timed
    counts()
    return _median_time(luck_state, repeats), _median_time(counts, repeats)


def _recompute_time(engine: Engine, name: str) -> float:
    """Every stored match's luck computed again from its record (without the mixed
    moves' decoding: a lower bound of what each read cost before)."""
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        data = session.exec(
            select(MatchRow.record).where(
                MatchRow.league_id == league.id, MatchRow.status == "done"
            )
        ).all()
    began = time.perf_counter()
    for blob in data:
        assert blob is not None
        match_luck(decompress_record(blob))
    return time.perf_counter() - began


def sprt_cost(engine: Engine, game: str, pairs: int, repeats: int = 21) -> SprtCost:
    """A luck-adjusted SPRT league of ``2 * pairs`` pairs, its state timed halfway and
    at the end."""
    new, old = PAIRS[game]
    name = f"sprt-{game}"
    with session_scope(engine) as session:
        bots = {
            b: add_bot(session=session, name=f"s-{b}", command="true", games=[game])
            for b in (new, old)
        }
        settings = SprtSettings(
            new_bot=bots[new].id or 0,
            old_bot=bots[old].id or 0,
            elo1=50.0,
            concurrency=4 * pairs,
            luck_adjusted=True,
        )
        create_sprt_league(
            session=session,
            name=name,
            game=game,
            new=bots[new],
            old=bots[old],
            settings=settings,
            sandbox=NO_SANDBOX,
        )
        pending = extend_pairs(
            session=session, league=get_league(session=session, name=name), decide=False
        )
    assert len(pending) == 4 * pairs
    state_ms, penta_ms, recompute_s = [], [], []
    for index, match in enumerate(pending):
        seated = [b.name.removeprefix("s-") for b in match.bots]
        record, mixed = local_record(
            game, f"{name}-{match.position}", seated, seed=int(match.group[1:])
        )
        with session_scope(engine) as session:
            league = get_league(session=session, name=name)
            record_result(
                session=session, league=league, match_id=match.match_id, record=record, mixed=mixed
            )
        if index + 1 in (2 * pairs, 4 * pairs):
            luck_s, counts_s = _state_times(engine, name, repeats)
            state_ms.append(luck_s * 1e3)
            penta_ms.append(counts_s * 1e3)
            recompute_s.append(_recompute_time(engine, name))
    return SprtCost(
        game,
        pairs,
        (state_ms[0], state_ms[1]),
        (recompute_s[0], recompute_s[1]),
        (penta_ms[0], penta_ms[1]),
    )


def measure(games: Sequence[str], matches: int, pairs: int) -> tuple[list[Row], list[str]]:
    """Both measures for every game of ``games`` on fresh SQLite files."""
    rows: list[Row] = []
    lines: list[str] = []
    for game in games:
        with tempfile.TemporaryDirectory() as folder:
            engine = open_database(f"sqlite:///{Path(folder) / 'arena.db'}")
            try:
                write = write_cost(engine, game, matches)
                sprt = sprt_cost(engine, game, pairs)
            finally:
                engine.dispose()
        rows.extend(_rows(write, sprt))
        lines.append(
            f"{game}: record_result {write.with_luck_ms:.1f} ms with the luck,"
            f" {write.without_ms:.1f} ms without (median of {write.matches} matches,"
            f" {write.mixed_moves} mixed moves); luck_sprt_state {sprt.state_ms[0]:.2f} ms at"
            f" {sprt.pairs} pairs, {sprt.state_ms[1]:.2f} ms at {2 * sprt.pairs}"
            f" ({sprt.ratio:.2f}×); the pentanomial counts {sprt.penta_ms[0]:.2f} ms,"
            f" {sprt.penta_ms[1]:.2f} ms; recomputing every match's luck"
            f" {sprt.recompute_s[0]:.2f} s, {sprt.recompute_s[1]:.2f} s"
            f" ({sprt.recompute_ratio:.2f}×)"
        )
    return rows, lines


def _rows(write: WriteCost, sprt: SprtCost) -> list[Row]:
    n = sprt.pairs
    return [
        Row(
            "luck",
            f"{write.game}: record_result with the luck ÷ without",
            write.with_luck_ms / write.without_ms,
            detail=f"{write.with_luck_ms:.1f} ms vs {write.without_ms:.1f} ms per match"
            f" (median of {write.matches}, SQLite)",
        ),
        Row(
            "luck",
            f"{sprt.game}: luck-adjusted SPRT state, {2 * n} pairs ÷ {n} pairs",
            sprt.ratio,
            detail=f"{sprt.state_ms[1]:.2f} ms vs {sprt.state_ms[0]:.2f} ms (stored luck;"
            f" the pentanomial counts {sprt.penta_ms[1]:.2f} ms vs {sprt.penta_ms[0]:.2f} ms);"
            f" recomputing every match's luck as before: {sprt.recompute_s[1]:.2f} s vs"
            f" {sprt.recompute_s[0]:.2f} s ({sprt.recompute_ratio:.2f}×)",
        ),
    ]


def section_rows(*, quick: bool = False) -> list[Row]:
    """The rows ``python -m bench --only luck`` adds: Liar's Dice's SPRT state at 100 and
    200 pairs (25 and 50 with ``quick``), and, unless ``quick``, Dice Poker's (whose luck
    is the slow one to compute) at 10 and 20."""
    rows, lines = measure(("liars_dice",), matches=10 if quick else 20, pairs=25 if quick else 100)
    if not quick:
        more, more_lines = measure(("dice_poker",), matches=20, pairs=10)
        rows, lines = rows + more, lines + more_lines
    for line in lines:
        print(line, flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=sorted(PAIRS))
    parser.add_argument("--matches", type=int, default=20, help="matches timed per game")
    parser.add_argument("--pairs", type=int, default=10, help="N: the state at N and 2N pairs")
    options = parser.parse_args(argv)
    _, lines = measure(options.game or sorted(PAIRS), options.matches, options.pairs)
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
