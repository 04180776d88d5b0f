"""The benchmark's pieces still fit the referee: instant bots finish real matches, the
raw floor replays them, and a table row says PASS/MISS (a few seconds)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bench import (
    cpu_fairness,
    engine,
    exploit_probe,
    league,
    league_db,
    luck_store,
    timing_channel,
    transports,
    wire,
)
from bench.instant_bot import plan
from bench.report import Row, format_table
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import SandboxError, require_tools

ROOT = str(Path(__file__).resolve().parent.parent)


def test_instant_bots_play_and_the_floor_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    run = wire.referee_run("liars_dice", range(2))
    assert run.decisions == len(plan("liars_dice", {}, 0)) + len(plan("liars_dice", {}, 1))
    assert run.per_decision_us > 0
    assert wire.floor_run(run.transcripts) > 0


def test_rounds_keep_both_floors_and_count_cpu_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    with wire.Floor() as raw:
        run = wire.referee_run("liars_dice", range(3), floor=raw, rounds=3)
    assert len(run.rounds) == len(run.aio_rounds) == 3
    assert run.floor_us and run.aio_floor_us
    # Every process answered: the referee, its bots and the floor's bots all used CPU.
    assert run.referee_cpu_us > 0 and run.bot_cpu_us > 0
    assert run.floor_bot_cpu_us and run.floor_bot_cpu_us > 0
    assert wire.socket_floor_us(run.transcripts) > 0


def test_every_transport_design_replays_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    transcripts = wire.referee_run("liars_dice", range(1)).transcripts
    results = transports.compare(transcripts, rounds=1)
    assert [r.name for r in results][:3] == ["sync", "aio", "trio + sync (ours)"]
    assert len(results) == 5
    assert all(r.per_decision_us > 0 and len(r.rounds) == 1 for r in results)


def test_the_exploit_rate_counts_only_the_probed_bots_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    # At least one match, however long a loaded machine takes to start the bots
    # (within 2 s, under load, none had finished: the rate had nothing to count).
    rate = exploit_probe.question_rate(2.0, min_matches=1)
    assert rate.matches > 0
    # One die each: 12 bids and a challenge at most, so the probed seat answers 1 to 7
    # times a match (counting the prober's turns too would allow up to 13).
    assert rate.matches <= rate.questions <= 7 * rate.matches
    assert rate.per_s > 0


def test_the_aio_instant_bot_and_an_sdk_bot_are_measured_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    bots = {
        "aio": wire.instant_spec(aio=True),
        "sdk": BotSpec("sdk", command=(sys.executable, *wire.SDK_BOT)),
    }
    cpu = wire.bot_cpu_rounds("liars_dice", range(2), bots, rounds=2)
    assert {name: len(values) for name, values in cpu.items()} == {"aio": 2, "sdk": 2}
    assert all(value > 0 for values in cpu.values() for value in values)


def test_rounds_cut_the_seeds_without_losing_one() -> None:
    cuts = wire._rounds(range(10), 3)
    assert [list(c) for c in cuts] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert wire._rounds(range(2), 3) == [range(0, 1), range(1, 2)]


def test_long_match_reaches_its_late_window() -> None:
    result = engine.long_match(1, early=10, late=200, window=10)
    assert result.matches == 1
    assert result.early_us > 0 and result.late_us > 0


def test_rows_report_misses_and_unmeasured() -> None:
    rows = [
        Row("s", "hit", 0.9, target_op=">=", target=0.8),
        Row("s", "miss", 2.0, target_op="<=", target=1.5),
        Row("s", "absent", None, detail="not implemented"),
    ]
    assert [r.status for r in rows] == ["PASS", "MISS", "NOT MEASURED"]
    assert "MISS" in format_table(rows)


def test_workers_row_plays_through_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    result = league.workers_run(3, 2, 2)
    assert result.run.matches == 3 and result.run.decisions > 0
    assert result.runner_cpu_s >= 0


def test_league_db_rows_play_a_league_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """The league-with-its-database rows: a whole league through the runner, its
    results written by the writer and, as before it, committed one by one."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    for write_behind in (True, False):
        result = league_db.db_run(6, 2, write_behind=write_behind)
        assert result.matches == 6 and result.steady == 3, result
        assert 1 <= result.batches <= 6 if write_behind else result.batches == 6
        # The writer's transactions never hold the event loop; a commit per match does.
        assert result.loop_write_ms == 0 if write_behind else result.loop_write_ms > 0


def test_fairness_counts_each_decision_for_the_hogs_state_meanwhile() -> None:
    log = b"".join(
        b"HOGSTATE " + json.dumps({"t": t, "spinning": spinning}).encode() + b"\n"
        for t, spinning in [(10.0, True), (11.0, False), (12.0, True)]
    )
    states = cpu_fairness.hog_states(b"noise\n" + log)
    assert states == [(10.0, True), (11.0, False), (12.0, True)]

    def at(start: float, end: float) -> cpu_fairness.Decision:
        spinning = cpu_fairness.hog_state_during(states, start, end)
        return cpu_fairness.Decision(
            start, end, (end - start) * 1e3, 40.0, (end - start) * 1e3, (), spinning
        )

    decisions = [
        at(10.2, 10.3),  # the hog spins
        at(11.2, 11.25),  # the hog is stopped
        at(11.9, 12.1),  # the hog resumed meanwhile: dropped
        at(9.0, 9.1),  # before the hog said anything: dropped
    ]
    spinning, idle = cpu_fairness.split_by_hog(decisions)
    assert spinning == [decisions[0]] and idle == [decisions[1]]
    played = cpu_fairness.Played(per_match=[decisions])
    with pytest.raises(cpu_fairness.NotEnoughDecisions, match="1 decisions beside a spinning"):
        cpu_fairness.summarize(played, sharing="fair")
    summary = cpu_fairness.summarize(played, sharing="fair", least=1)
    assert summary.ratio == pytest.approx(100 / 50)


def test_timing_channel_decodes_on_the_preamble_and_scores_the_payload() -> None:
    preamble = [5.0 if bit == "1" else 1.0 for bit in timing_channel.PREAMBLE]
    sent = timing_channel.PREAMBLE + "0110"
    report = {"channel": "pagecache", "slot_ms": 4.0, "width": 2, "late": 1}
    result = timing_channel.score("apart", sent, {**report, "values": [*preamble, 1, 5, 5, 5]}, 2)
    assert (result.errors, result.payload_bits, result.late_slots) == (1, 4, 3)
    assert result.raw_bps == 500.0
    assert result.capacity_bps == pytest.approx(500.0 * (1 - timing_channel.binary_entropy(0.25)))
    # Slower is "1" when the preamble says so (a cold page takes longer to read).
    inverted = [1.0 if bit == "1" else 5.0 for bit in timing_channel.PREAMBLE]
    flipped = timing_channel.score("apart", sent, {**report, "values": [*inverted, 5, 1, 1, 5]}, 0)
    assert flipped.errors == 0


def _sandbox_missing() -> str:
    try:
        require_tools()
    except SandboxError as error:
        return str(error)
    return ""


@pytest.mark.e2e
@pytest.mark.refused_calls  # its bots try the page-cache primitives (mincore) on purpose
@pytest.mark.skipif(bool(_sandbox_missing()), reason=_sandbox_missing() or "sandbox available")
def test_timing_channel_quick_bench_reports_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quick bench end to end: two sandboxes per placement, every channel
    measured. Only that numbers come out: their size is the machine's business."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    # Smaller than --quick (a smoke test): fewer payload bits, shorter waits.
    monkeypatch.setattr(
        timing_channel, "QUICK", replace(timing_channel.QUICK, payload_bits=16, quiet_s=0.5)
    )
    monkeypatch.setattr(timing_channel, "START_MARGIN_S", 2.5)
    out = tmp_path / "timing.json"
    timing_channel.main(["--quick", "--json", str(out)])
    data = json.loads(out.read_text())
    measured = {(r["placement"], r["channel"]) for r in data["results"]}
    channels = set(timing_channel.QUICK.settings)
    if not data["meta"]["file"]:
        channels = {c for c in channels if not c.startswith("pagecache")}
    assert measured == {(p, c) for p in timing_channel.PLACEMENTS for c in channels}
    for row in data["results"]:
        if row["channel"] == "pagecache-probe":
            # Asking the page cache (preadv2 RWF_NOWAIT) is refused in the sandbox.
            assert row["errors"] is None and "Operation not supported" in row["why"], row
            continue
        assert row["errors"] is not None, row
        assert 0.0 <= row["ber"] <= 1.0 and row["raw_bps"] > 0, row
        assert 0.0 <= row["capacity_bps"] <= row["raw_bps"], row
    assert data["meta"]["load_before"] and data["meta"]["load_after"]
    printed = capsys.readouterr().out
    assert "capacity bit/s" in printed and "best:" in printed


def test_the_stored_luck_rows_measure_writes_and_an_sprts_state() -> None:
    """``bench/luck_store.py`` on a few Liar's Dice matches: both rows, measured."""
    rows, lines = luck_store.measure(("liars_dice",), matches=2, pairs=1)
    assert [row.name for row in rows] == [
        "liars_dice: record_result with the luck ÷ without",
        "liars_dice: luck-adjusted SPRT state, 2 pairs ÷ 1 pairs",
    ]
    assert all(row.value is not None and row.value > 0 for row in rows)
    assert len(lines) == 1 and "recomputing every match's luck" in lines[0]
