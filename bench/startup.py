"""Start-up costs as subprocesses (median of several runs) and the ratings fit's scaling."""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

from league.domain.ratings import MatchResult, fit_bradley_terry

BARE_SERVER = """
import os, time
from concurrent import futures
import grpc
server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
    "arena.v1.BotService",
    {"Health": grpc.unary_unary_rpc_method_handler(lambda request, context: b"")}),))
server.add_insecure_port(os.environ["ARENA_LISTEN"])
server.start()
server.wait_for_termination()
"""


def _wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


def cli_help(runs: int) -> tuple[float, float]:
    """Median seconds of ``arena --help`` and of ``python -c "import typer"``."""
    arena = shutil.which("arena") or str(Path(sys.executable).parent / "arena")
    helps, typers = [], []
    for _ in range(runs):
        helps.append(_wall([arena, "--help"]))
        typers.append(_wall([sys.executable, "-c", "import typer"]))
    return statistics.median(helps), statistics.median(typers)


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of the process ``argv`` and its children."""
    process = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{argv} exited with {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def cli_ending(runs: int) -> tuple[float, float]:
    """Median CPU seconds of ``arena league list`` (a database command, on a fresh
    SQLite file) as the ``arena`` script runs it (``league.cli.main``: it ends the
    process at once) and as Python's normal ending would (``league.cli.run``, then
    the interpreter's teardown)."""
    ending = "import sys; sys.argv = ['arena', 'league', 'list']; from league.cli import {0}; {0}()"
    quick, normal = [], []
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        env = dict(os.environ, ARENA_DB=f"sqlite:///{Path(tmp) / 'arena.db'}")
        for _ in range(runs):
            quick.append(_cpu([sys.executable, "-c", ending.format("main")], env))
            normal.append(_cpu([sys.executable, "-c", ending.format("run")], env))
    return statistics.median(quick), statistics.median(normal)


def _time_to_health(argv: list[str]) -> float:
    """Seconds from spawning ``argv`` until its Health answers on a unix socket."""
    with tempfile.TemporaryDirectory(prefix="bench-health-") as tmp:
        socket = Path(tmp) / "bot.sock"
        env = dict(os.environ, ARENA_LISTEN=f"unix:{socket}", ARENA_REFEREE_PID=str(os.getpid()))
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL)
        try:
            while not socket.exists():
                if process.poll() is not None:
                    raise RuntimeError(f"{argv} exited with {process.returncode}")
                time.sleep(0.001)
            with grpc.insecure_channel(f"unix:{socket}") as channel:
                health = channel.unary_unary("/arena.v1.BotService/Health")
                health(b"", timeout=30, wait_for_ready=True)
            return time.perf_counter() - started
        finally:
            process.terminate()
            process.wait(10)


def health_times(runs: int) -> tuple[float, float]:
    """Median seconds to a Health answer: an SDK bot vs a bare grpcio server."""
    sdk_bot = [sys.executable, "-m", "example_bots.liars_dice_random"]
    bare = [sys.executable, "-c", BARE_SERVER]
    sdk_times, bare_times = [], []
    for _ in range(runs):
        sdk_times.append(_time_to_health(sdk_bot))
        bare_times.append(_time_to_health(bare))
    return statistics.median(sdk_times), statistics.median(bare_times)


def synthetic_results(bots: int, matches: int, seed: int = 0) -> list[MatchResult]:
    """Two-seat matches between random pairs; winners drawn from Bradley–Terry strengths."""
    rng = random.Random(seed)
    names = [f"bot{i:02d}" for i in range(bots)]
    strength = {name: rng.gauss(0.0, 1.0) for name in names}
    results = []
    for _ in range(matches):
        a, b = rng.sample(names, 2)
        p_a = 1 / (1 + pow(10, strength[b] - strength[a]))
        places = (1, 2) if rng.random() < p_a else (2, 1)
        results.append(MatchResult((a, b), places))
    return results


def ratings_fit(bots: int, small: int, large: int) -> tuple[float, float]:
    """Seconds of one batch Bradley–Terry fit at ``small`` and at ``large`` matches."""
    times = []
    for count in (small, large):
        results = synthetic_results(bots, count)
        started = time.perf_counter()
        fit_bradley_terry(results)
        times.append(time.perf_counter() - started)
    return times[0], times[1]
