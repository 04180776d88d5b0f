"""Issue 28: server ladders accept only protocol 3 bots by default.

The attack: a bot announcing protocol 1 in its Health speaks a protocol without
the request's nonce, so an answer it streams before reading its request (a blind
pre-answer) can land; on a server ladder it did in 3 of 18 matches. Now the
server's check refuses such a bot with a clear reason (``arena serve
--min-protocol``, default 3), and the server's ladder matches forfeit a seat that
announces less (:attr:`referee.runtime.match.Limits.min_protocol`), in case a bot tells
the check from a ladder match.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import Engine

import league.server.ladders as ladders
from league.cli.authors import multipart
from league.execution.rolling_runs import RollingSummary
from league.execution.submissions import SubmissionLimits
from league.server.state import Settings
from league.store.authors import add_author
from league.store.db import open_database, session_scope
from referee.core.faults import FaultKind
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from tests.e2e.conftest import EXAMPLE, module_bot
from tests.security.live_server import live_server

OLD_BOT = b'''"""A Liar's Dice bot whose Health announces protocol 1 (an old SDK)."""
import sdk.serve
from example_bots.liars_dice_random import RandomLiarsDiceBot
from sdk import run

_init = sdk.serve.BotServicer.__init__


def _old(self, factory, *, protocol_version=1):
    _init(self, factory, protocol_version=1)


sdk.serve.BotServicer.__init__ = _old
if __name__ == "__main__":
    run(RandomLiarsDiceBot)
'''


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    yield engine
    engine.dispose()


def test_the_servers_check_refuses_a_protocol_1_bot_with_a_clear_reason(
    engine: Engine, tmp_path: Path
) -> None:
    with session_scope(engine) as session:
        _row, token = add_author(session=session, name="ada")
    settings = Settings(
        store=tmp_path / "store",
        watch_interval_s=0.2,
        check_matches=1,
        limits=SubmissionLimits(min_interval_s=0.0),
    )
    assert settings.min_protocol == 3  # the default
    body, content_type = multipart({"name": "old_bot", "game": "liars_dice"}, "bot", "old_bot.py", OLD_BOT)  # fmt: skip  # noqa: E501
    with live_server(engine, tmp_path / "store", settings=settings) as site:
        reply = site.request(
            "/api/submissions",
            method="POST",
            body=body,
            headers={"authorization": f"Bearer {token}", "content-type": content_type},
            timeout=120,
        )
    assert reply.status == 422, reply.text
    reasons = reply.json()["reasons"]
    assert any(
        "announced protocol 1" in reason and "requires protocol 3" in reason for reason in reasons
    ), reasons


def old_bot(tmp_path: Path) -> Any:
    path = tmp_path / "old_bot.py"
    path.write_bytes(OLD_BOT)
    import sys

    from referee.runtime.process import BotSpec

    return BotSpec(name="old", command=(sys.executable, str(path)))


@pytest.mark.parametrize("min_protocol", [3, 1], ids=["required-3", "guard-1"])
async def test_a_ladder_match_forfeits_a_seat_below_the_minimum_protocol(
    tmp_path: Path, min_protocol: int
) -> None:
    """GUARD (``min_protocol=1``, before): the protocol 1 seat plays, without nonces."""
    bots = (old_bot(tmp_path), module_bot(EXAMPLE["random"], name="victim"))
    record = await run_match(
        MatchSpec("liars_dice", bots, seed=1, rules={"dice_per_player": "1"}),
        Limits(decision_s=2.0, startup_s=20.0, min_protocol=min_protocol),
        launcher=FreshLauncher(),
    )
    fault = record.fault_of(0)
    if min_protocol == 3:
        assert fault is not None and fault.kind is FaultKind.STARTUP, record.faults
        assert "announced protocol 1" in fault.message
        assert record.fault_of(1) is None
    else:
        assert fault is None and record.seats[0].protocol == 1


async def test_the_servers_ladders_play_with_its_min_protocol(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, engine: Engine
) -> None:
    seen: list[int] = []

    async def fake_run_rolling(_engine: Any, _name: str, **kwargs: Any) -> RollingSummary:
        seen.append(kwargs["min_protocol"])
        return RollingSummary(played=0, scheduled=0, pending=0, stopped=True, elapsed_s=0.0)

    monkeypatch.setattr(ladders, "run_rolling", fake_run_rolling)
    from league.server.serving import make_server

    server = make_server(engine, Settings(store=tmp_path / "store"))
    await ladders._play(server, "ladder", trio.Event())
    server.settings.min_protocol = 2
    await ladders._play(server, "ladder", trio.Event())
    assert seen == [3, 2]


def test_limits_refuse_a_minimum_no_referee_speaks() -> None:
    with pytest.raises(ValueError, match="min_protocol"):
        Limits(min_protocol=5)
    assert json.dumps(Limits().min_protocol) == "1"  # matches outside a server: any protocol
