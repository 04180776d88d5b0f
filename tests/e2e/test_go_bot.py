"""The Go Liar's Dice bot (example_bots/go_liars_dice), a statically linked binary,
plays Python bots over gRPC through the real referee under the default sandbox:
proof that the sandbox's allow list covers a static binary's runtime (issue 42),
whose every system call is its own (no C library in between). The autouse
``no_refused_calls`` fixture (tests/conftest.py) fails any test in which the
sandbox refused one of them."""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from arena.v1 import bot_pb2, bot_pb2_grpc
from league.cli import app
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX
from tests.e2e.conftest import EXAMPLE, module_bot

pytestmark = pytest.mark.e2e

BOT_DIR = Path(__file__).resolve().parents[2] / "example_bots" / "go_liars_dice"
BUILD = BOT_DIR / "build.sh"
TOOLS = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
GOCODE = Path("/usr/share/gocode/src")
LIBRARIES = ("google.golang.org/grpc", "google.golang.org/protobuf", "github.com/golang/protobuf")
APT = (
    "apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc"
    " golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev"
)
FAST = Limits(decision_s=5.0, startup_s=20.0)
PT_DYNAMIC, PT_INTERP = 2, 3


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bot, built once per test session (Go's own build cache makes a later
    session's build take seconds); skipped where Debian's Go packages are missing
    (.ci/run installs them)."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    missing += [str(GOCODE / lib) for lib in LIBRARIES if not (GOCODE / lib).is_dir()]
    if missing:
        pytest.skip(f"the Go bot needs {', '.join(missing)} ({APT})")
    out = tmp_path_factory.mktemp("go_liars_dice")
    build = subprocess.run(
        [str(BUILD), str(out)], capture_output=True, text=True, timeout=900, check=False
    )
    assert build.returncode == 0, build.stdout + build.stderr
    binary = out / "go_liars_dice"
    assert binary.is_file()
    return binary


def program_headers(path: Path) -> list[int]:
    """The types of an ELF file's program headers (the segments the loader reads)."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF", f"{path} is not an ELF file"
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:  # ELF64: e_phoff at 32 (8 bytes), e_phentsize and e_phnum at 54
        (phoff,) = struct.unpack_from(order + "Q", data, 32)
        size, count = struct.unpack_from(order + "HH", data, 54)
    else:  # ELF32: e_phoff at 28 (4 bytes), e_phentsize and e_phnum at 42
        (phoff,) = struct.unpack_from(order + "I", data, 28)
        size, count = struct.unpack_from(order + "HH", data, 42)
    return [struct.unpack_from(order + "I", data, phoff + i * size)[0] for i in range(count)]


@pytest.mark.slow  # the build: about a minute and a half from a cold Go cache on 2 cores
def test_the_bot_is_statically_linked(go_binary: Path) -> None:
    """No PT_INTERP (no program loader asked for) and no PT_DYNAMIC (no shared
    library): what `file` calls "statically linked" and `ldd` "not a dynamic
    executable", read from the ELF header without either tool."""
    types = program_headers(go_binary)
    assert types, "no program headers"
    assert PT_INTERP not in types, "the binary asks for a program loader (dynamically linked)"
    assert PT_DYNAMIC not in types, "the binary has a dynamic section (shared libraries)"


@pytest.mark.parametrize(
    ("seed", "rules", "seats"),
    [
        (1, {}, ("go", "random")),
        (2, {"wild_face": "1", "raise_rule": "reset-face"}, ("probability", "go")),
        (
            3,
            {"dice_per_player": "2", "raise_rule": "quantity-or-face", "wild_face": "6"},
            ("random", "go", "probability"),
        ),
        (
            4,
            {"wild_face": "6", "wild_opening": "keep", "sum_endgame": "false", "roll_off": "false"},
            ("go", "probability"),
        ),
        (5, {"one_round": "true", "dice_per_player": "3"}, ("go", "random", "go")),
        (6, {"dice_per_player": "1"}, ("probability", "go")),
    ],
)
async def test_go_bot_plays_python_bots(
    go_binary: Path, seed: int, rules: dict[str, str], seats: tuple[str, ...]
) -> None:
    bots = tuple(
        BotSpec(name=f"go{i}", command=(str(go_binary),))
        if name == "go"
        else module_bot(EXAMPLE[name])
        for i, name in enumerate(seats)
    )
    record = await run_match(
        MatchSpec("liars_dice", bots, seed=seed, rules=rules),
        FAST,
        launcher=FreshLauncher(sandbox=DEFAULT_SANDBOX),
    )
    assert record.reason == "completed", record.faults
    assert not record.faults
    go_seats = [i for i, name in enumerate(seats) if name == "go"]
    assert all(record.seats[i].deltas for i in go_seats), "the Go bot asks for deltas"
    assert any(e.seat in go_seats for e in record.events), "the Go bot never acted"
    # Protocol 3: every request to it carried a nonce, and it echoed each one.
    assert all(record.seats[i].protocol == 3 for i in go_seats)
    assert all(record.nonce_of(e.turn or 0) for e in record.events if e.seat in go_seats)


async def test_one_go_process_plays_several_matches(go_binary: Path) -> None:
    """A warm process serves match after match, each on a new Play stream, in the
    default sandbox (a league's warm pool)."""
    go = BotSpec(name="go", command=(str(go_binary),))
    pool = WarmPool(sandbox=DEFAULT_SANDBOX)
    try:
        for seed in (11, 12, 13, 14):
            opponent = module_bot(EXAMPLE["random" if seed % 2 else "probability"])
            seats = (go, opponent) if seed % 2 else (opponent, go)
            record = await run_match(
                MatchSpec("liars_dice", seats, seed=seed, rules={"dice_per_player": "3"}),
                FAST,
                launcher=pool,
            )
            assert record.reason == "completed", record.faults
            assert not record.faults
        assert pool.reused >= 3, (pool.started, pool.reused)
    finally:
        await pool.aclose()


def test_go_bot_passes_bot_check(go_binary: Path, tmp_path: Path) -> None:
    """`arena bot check` with every value of every rule option (3 matches cover
    them), under the default sandbox."""
    result = CliRunner().invoke(
        app,
        [
            "--db",
            f"sqlite:///{tmp_path / 'arena.db'}",
            "bot",
            "check",
            str(go_binary),
            "--game",
            "liars_dice",
            "--vary-rules",
            "--matches",
            "3",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == "PASS", report
    assert not report["faults"], report


def wait_for(path: Path, process: subprocess.Popen[bytes], within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_health_token_and_sigterm(go_binary: Path, tmp_path: Path) -> None:
    """Outside the sandbox (which ends a bot with SIGKILL): Health names the bot, a
    set ARENA_BOT_TOKEN refuses calls without it, and SIGTERM ends the process
    cleanly, removing its socket."""
    socket = tmp_path / "bot.sock"
    environment = {"PATH": os.environ.get("PATH", ""), "ARENA_BOT_TOKEN": "s3cret"}
    process = subprocess.Popen(
        [str(go_binary), "--listen", f"unix:{socket}"],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(socket, process)
        with grpc.insecure_channel(f"unix:{socket}") as channel:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Health(bot_pb2.HealthRequest(), timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            health = stub.Health(
                bot_pb2.HealthRequest(),
                metadata=(("authorization", "Bearer s3cret"),),
                timeout=10,
            )
        assert health.name == "go_liars_dice"
        assert list(health.games) == ["liars_dice"]
        assert health.protocol_version == 3
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        assert not socket.exists(), "the socket outlived the bot"
    finally:
        if process.poll() is None:  # pragma: no cover - cleanup after a failure
            process.kill()
            process.wait()
        assert process.stdout is not None
        process.stdout.close()
