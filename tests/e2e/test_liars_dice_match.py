"""Real Liar's Dice matches between bot processes over gRPC."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from referee.core.catalogue import get_game
from referee.core.events import replay
from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, NO_SANDBOX
from tests.e2e.conftest import (
    EXAMPLE,
    assert_all_gone,
    assert_no_sandboxed_processes,
    misbehaving,
    module_bot,
)

pytestmark = pytest.mark.e2e

FAST = Limits(decision_s=5.0, startup_s=20.0)


def check_replays(record: MatchRecord) -> None:
    game = get_game(record.game)
    states = replay(game, game.parse_rules(record.rules), record.num_seats, record.engine_events())
    if record.reason == "completed":
        assert game.outcome(states[-1]) == record.outcome


@pytest.mark.parametrize(
    ("seed", "rules", "seats"),
    [
        (1, {}, ("random", "probability")),
        (2, {"wild_face": "1", "raise_rule": "reset-face"}, ("probability", "random")),
        (
            3,
            {"dice_per_player": "2", "raise_rule": "quantity-or-face"},
            ("random", "random", "probability"),
        ),
        (
            4,
            {"wild_face": "6", "sum_endgame": "false", "roll_off": "false"},
            ("probability", "probability"),
        ),
        (5, {"one_round": "true"}, ("random", "probability", "random", "probability")),
    ],
)
async def test_example_bots_play_complete_matches(
    seed: int, rules: dict[str, str], seats: tuple[str, ...]
) -> None:
    bots = tuple(module_bot(EXAMPLE[name]) for name in seats)
    record = await run_match(MatchSpec("liars_dice", bots, seed=seed, rules=rules), FAST)
    assert record.reason == "completed", record.faults
    assert not record.faults
    assert sorted(record.places)[0] == 1
    assert all(1 <= p <= len(seats) for p in record.places)
    assert record.rules == get_game("liars_dice").format_rules(
        get_game("liars_dice").parse_rules(rules)
    )
    actions = [e for e in record.events if e.seat is not None]
    assert actions and all(e.elapsed_ms is not None and e.elapsed_ms >= 0 for e in actions)
    check_replays(record)
    assert MatchRecord.from_json(record.to_json()) == record


async def test_same_seed_and_match_id_replay_the_same_match() -> None:
    """Chance comes from the seed; the example bots seed themselves from the match id."""
    bots = (module_bot(EXAMPLE["probability"]), module_bot(EXAMPLE["random"]))
    spec = MatchSpec("liars_dice", bots, seed=42, match_id="same-match")
    first, second = [await run_match(spec, FAST) for _ in range(2)]

    def untimed(record: MatchRecord) -> list[tuple[object, ...]]:
        return [(e.seat, e.outcome, str(e.action)) for e in record.events]

    assert untimed(first) == untimed(second)
    assert first.outcome == second.outcome


@pytest.mark.parametrize(
    ("mode", "limits", "fault"),
    [
        ("crash", FAST, FaultKind.CRASH),
        ("hang", Limits(decision_s=0.4, grace_s=0.1, startup_s=20.0), FaultKind.TIMEOUT),
        ("illegal", FAST, FaultKind.ILLEGAL_ACTION),
        ("garbage", FAST, FaultKind.MALFORMED_MESSAGE),
        ("raise", FAST, FaultKind.CRASH),
        ("freeze", Limits(decision_s=0.4, grace_s=0.1, startup_s=20.0), FaultKind.TIMEOUT),
        ("wrong-turn", FAST, FaultKind.MALFORMED_MESSAGE),
    ],
)
@pytest.mark.parametrize("bad_seat", [0, 1])
@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "no-sandbox"])
async def test_misbehaving_bot_forfeits_with_named_fault(
    mode: str, limits: Limits, fault: FaultKind, bad_seat: int, pidfile: Path, sandboxed: bool
) -> None:
    good = module_bot(EXAMPLE["random"])
    bots = [good, good]
    bots[bad_seat] = misbehaving(mode, after=1)
    record = await run_match(
        MatchSpec("liars_dice", tuple(bots), seed=11, rules={"roll_off": "false"}),
        limits,
        launcher=FreshLauncher(sandbox=DEFAULT_SANDBOX if sandboxed else NO_SANDBOX),
    )
    assert record.reason == "forfeit"
    assert [(f.seat, f.kind) for f in record.faults] == [(bad_seat, fault)]
    assert record.places[bad_seat] == 2 and record.places[1 - bad_seat] == 1
    # The fault came on the bad bot's second turn: its first action is recorded.
    assert sum(1 for e in record.events if e.seat == bad_seat) == 1
    check_replays(record)
    if sandboxed:
        assert_no_sandboxed_processes()
    else:
        assert_all_gone(pidfile)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "no-sandbox"])
async def test_hung_bot_is_cut_off_near_its_deadline(pidfile: Path, sandboxed: bool) -> None:
    limits = Limits(decision_s=0.3, grace_s=0.1, startup_s=20.0, finish_s=0.2)
    bots = (misbehaving("hang", after=0), module_bot(EXAMPLE["random"]))
    started = trio.current_time()
    record = await run_match(
        MatchSpec("liars_dice", bots, seed=5, rules={"roll_off": "false"}),
        limits,
        launcher=FreshLauncher(sandbox=DEFAULT_SANDBOX if sandboxed else NO_SANDBOX),
    )
    assert record.faults[0].kind == FaultKind.TIMEOUT
    assert "turn 1" in record.faults[0].message
    # Startup takes a moment; the hang itself costs the deadline plus cleanup only.
    assert trio.current_time() - started < 20
    if sandboxed:
        assert_no_sandboxed_processes()
    else:
        assert_all_gone(pidfile)


@pytest.mark.parametrize(
    ("command", "text"),
    [
        ((sys.executable, "-c", "import sys; sys.exit(4)"), "exited with code 4"),
        (("/nonexistent/bot-binary",), "cannot start"),
        ((sys.executable, "-c", "import time; time.sleep(30)"), "not ready"),
    ],
)
async def test_bot_that_never_becomes_ready_is_a_startup_fault(
    command: tuple[str, ...], text: str
) -> None:
    bots = (BotSpec("broken", command=command), module_bot(EXAMPLE["random"]))
    limits = Limits(decision_s=1.0, startup_s=4.0)
    record = await run_match(MatchSpec("liars_dice", bots, seed=1), limits)
    assert record.reason == "forfeit"
    assert [(f.seat, f.kind) for f in record.faults] == [(0, FaultKind.STARTUP)]
    assert text in record.faults[0].message
    assert record.places == (2, 1)
    assert record.events == ()


@pytest.mark.parametrize(
    "address", ["127.0.0.1:1", "unix:/nonexistent/dir/bot.sock", "::nonsense::"]
)
async def test_unreachable_bot_service_is_a_startup_fault(address: str) -> None:
    bots = (module_bot(EXAMPLE["random"]), BotSpec("remote", address=address))
    record = await run_match(MatchSpec("liars_dice", bots, seed=1), Limits(startup_s=4.0))
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.STARTUP)]
    assert record.places == (1, 2)


async def test_each_seat_receives_only_its_own_view() -> None:
    log = MessageLog()
    bots = (module_bot(EXAMPLE["random"]), module_bot(EXAMPLE["probability"]))
    record = await run_match(MatchSpec("liars_dice", bots, seed=9), FAST, observer=log)
    from arena.v1 import bot_pb2

    for seat in (0, 1):
        messages = [bot_pb2.PlayRequest.FromString(raw) for raw in log.sent[seat]]
        assert messages[0].WhichOneof("kind") == "start"
        assert messages[0].start.seat == seat
        assert messages[-1].WhichOneof("kind") == "end"
        for message in messages:
            if message.WhichOneof("kind") == "turn":
                obs = message.turn.observation.liars_dice
                assert obs.seat == seat
    assert record.reason == "completed"
