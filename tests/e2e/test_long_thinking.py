"""A seat may think as long as its time limit allows (a person at `arena play`, or a
bot given a generous `--time-limit`): the referee's keepalive pings on an idle stream
must not make the SDK's gRPC server drop the connection.

They did: the SDK set the server's ping allowance under a key gRPC does not know
(``grpc.http2.min_recv_ping_interval_without_data_ms``), so the default (one ping per
5 minutes without data, 2 strikes) applied, and after about 10 s of thinking the
server sent GOAWAY "too_many_pings" to every seat: the thinking seat faulted
``stall`` (a person at `arena play` lost on that).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.test_no_tracebacks import ARENA

pytestmark = pytest.mark.e2e


def test_a_seat_thinking_16_seconds_within_its_limit_is_not_dropped() -> None:
    thinker = f"{sys.executable} -m tests.bots.misbehaving --mode think"
    ran = subprocess.run(
        [ARENA, "match", "--game", "liars_dice", "--bot", thinker,
         "--bot", f"{sys.executable} -m example_bots.liars_dice_random",
         "--seed", "4", "--time-limit", "30", "--quiet"],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "result (completed" in ran.stdout and "stall" not in ran.stdout, ran.stdout
    assert "too_many_pings" not in ran.stderr, ran.stderr
