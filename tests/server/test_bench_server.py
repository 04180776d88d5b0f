"""The server benchmark still runs: it loads both URLs while the server's ladder plays."""

from __future__ import annotations

import pytest

from bench.server_load import URLS, describe, server_load

pytestmark = pytest.mark.e2e


def test_server_load_measures_both_urls_while_the_ladder_plays() -> None:
    loads = server_load(clients=2, requests=10, bots=3)
    assert [load.path for load in loads] == list(URLS)
    for load in loads:
        assert load.errors == 0
        assert len(load.latencies_ms) == 10
        assert load.pages_per_s > 0
        assert "keep-alive clients" in describe(load)
