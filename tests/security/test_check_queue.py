"""The pre-submission check queue is fair between authors.

One author (``tests.security.check_hog``, a real client) uploads three bots whose
checks are slow; another author then uploads one. With the fair queue the second
author's check starts after at most one of the hog's (the one running when it
arrived), and while it waits ``GET /api/submissions`` shows its position. The
guard: one first-come-first-served queue (the old single slot) makes it wait for
all three.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import Engine

from league.cli.authors import multipart
from league.execution.submissions import SubmissionLimits
from league.server.checkqueue import QueueLimits
from league.server.state import Settings
from league.store.authors import add_author
from league.store.db import open_database, session_scope
from tests.security.check_hog import BOT
from tests.security.live_server import LiveServer, live_server

ROOT = Path(__file__).resolve().parents[2]
HOG_CHECKS = 3
HOG_SLEEP_S = 5.0
"""How long each hog bot sleeps before serving: its check holds the slot at least that
long, the window in which the hog's other uploads must queue (3 s was once too short
on a loaded CI machine: the first check ended before the third upload was queued)."""

pytestmark = pytest.mark.e2e


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    yield engine
    engine.dispose()


def author(engine: Engine, name: str) -> tuple[int, str]:
    with session_scope(engine) as session:
        row, token = add_author(session=session, name=name)
        assert row.id is not None
        return row.id, token


def settings(store: Path, *, fair: bool) -> Settings:
    return Settings(
        store=store,
        watch_interval_s=0.2,
        limits=SubmissionLimits(min_interval_s=0, per_hour=100),
        check_matches=1,
        queue=QueueLimits(fair=fair, per_author=HOG_CHECKS),
    )


def my_submissions(site: LiveServer, token: str) -> list[dict[str, Any]]:
    reply = site.request("/api/submissions", headers={"authorization": f"Bearer {token}"})
    assert reply.status == 200, reply.text
    rows: list[dict[str, Any]] = reply.json()["submissions"]
    return rows


def run_attack(site: LiveServer, hog: str, victim: str) -> tuple[list[str], list[Any], int]:
    """The hog's uploads, then the victim's once the hog's are queued; (who started
    in which order, the victim's queue positions while waiting, victim's status)."""
    hog_process = subprocess.Popen(
        [sys.executable, "-m", "tests.security.check_hog", site.url, hog,
         "--count", str(HOG_CHECKS), "--sleep", str(HOG_SLEEP_S)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120  # a loaded CI machine once took more than 60 s
        while True:
            rows = my_submissions(site, hog)
            if sum(row["status"] == "checking" for row in rows) == HOG_CHECKS:
                break
            done = [row for row in rows if row["status"] != "checking"]
            assert not done, f"a hog check ended before all {HOG_CHECKS} queued: {rows}"
            if time.monotonic() > deadline or hog_process.poll() is not None:
                raise AssertionError(
                    f"the hog's uploads never queued: {rows}; hog exit {hog_process.poll()}"
                )
            time.sleep(0.1)
        status: list[int] = []

        def submit() -> None:
            body, content_type = multipart(
                {"name": "honest", "game": "liars_dice"}, "bot", "honest.py",
                BOT.format(sleep=0).encode(),
            )  # fmt: skip
            reply = site.request(
                "/api/submissions", method="POST", body=body, timeout=300,
                headers={"authorization": f"Bearer {victim}", "content-type": content_type},
            )  # fmt: skip
            status.append(reply.status)

        thread = threading.Thread(target=submit)
        thread.start()
        positions: list[Any] = []
        while thread.is_alive():
            for row in my_submissions(site, victim):
                queued = row["status"] == "checking" and row["queue"] is not None
                if queued and row["queue"] not in positions[-1:]:
                    positions.append(row["queue"])
            time.sleep(0.1)
        thread.join()
        out, _ = hog_process.communicate(timeout=300)
    finally:
        if hog_process.poll() is None:
            hog_process.kill()
            hog_process.wait()
        if hog_process.stdout is not None:  # else a failure here warns in a later test
            hog_process.stdout.close()
    assert json.loads(out)["statuses"] == [200] * HOG_CHECKS
    return [str(a) for a, _ in site.server.check_queue.started], positions, status[0]


def test_a_second_authors_check_starts_after_at_most_one_of_the_hogs(
    engine: Engine, tmp_path: Path
) -> None:
    hog_id, hog = author(engine, "hog")
    _victim_id, victim = author(engine, "victim")
    with live_server(
        engine, tmp_path / "store", settings=settings(tmp_path / "store", fair=True)
    ) as site:
        order, positions, status = run_attack(site, hog, victim)
    assert status == 200
    names = ["hog" if a == str(hog_id) else "victim" for a in order]
    assert names == ["hog", "victim", "hog", "hog"]
    # While it waited it was told it is next (one check running, none before it).
    assert positions[0] == {"state": "waiting", "ahead": 0}
    assert positions[-1] == {"state": "checking", "ahead": 0}


def test_guard_first_come_first_served_makes_it_wait_for_every_hog_check(
    engine: Engine, tmp_path: Path
) -> None:
    hog_id, hog = author(engine, "hog")
    _victim_id, victim = author(engine, "victim")
    with live_server(
        engine, tmp_path / "store", settings=settings(tmp_path / "store", fair=False)
    ) as site:
        order, positions, status = run_attack(site, hog, victim)
    assert status == 200
    names = ["hog" if a == str(hog_id) else "victim" for a in order]
    assert names == ["hog", "hog", "hog", "victim"]
    assert positions[0] == {"state": "waiting", "ahead": HOG_CHECKS - 1}


def test_the_queue_bounds_per_author_and_waiting_time() -> None:
    """At most ``per_author`` checks of one author queued (429 at once, the others'
    unaffected); a check that waits past ``wait_budget_s`` is refused (503) and
    leaves the queue."""
    from league.server.checkqueue import CheckQueue, QueueBusy, QueueFull
    from league.server.submit import http_status

    async def main() -> None:
        queue = CheckQueue(QueueLimits(per_author=2, wait_budget_s=0.5))
        release = trio.Event()
        outcomes: dict[int, str] = {}

        async def check(author_id: int, submission_id: int) -> None:
            try:
                async with queue.slot(author_id, submission_id):
                    outcomes[submission_id] = "started"
                    await release.wait()
            except (QueueFull, QueueBusy) as error:
                outcomes[submission_id] = f"{type(error).__name__} {http_status(error)}"

        async with trio.open_nursery() as nursery:
            nursery.start_soon(check, 1, 10)
            await trio.sleep(0.01)
            nursery.start_soon(check, 1, 11)
            await trio.sleep(0.01)
            nursery.start_soon(check, 1, 12)  # a third of author 1: refused at once
            nursery.start_soon(check, 2, 20)
            await trio.sleep(0.05)
            assert outcomes == {10: "started", 12: "QueueFull 429"}
            assert queue.position(20) is not None and queue.position(20).ahead == 0  # type: ignore[union-attr]
            assert queue.position(11).ahead == 1  # type: ignore[union-attr]
            await trio.sleep(0.6)  # past the wait budget, the slot still held
            assert outcomes[11] == outcomes[20] == "QueueBusy 503"
            assert queue.position(11) is None and queue.position(20) is None
            release.set()
        assert queue.started == [(1, 10)]

    trio.run(main)


def test_a_check_over_its_budget_fails_saying_so_and_leaves_nothing_running(
    tmp_path: Path,
) -> None:
    from league.execution.botcheck import check_bot_matches
    from referee.runtime.process import BotSpec

    source = tmp_path / "slow.py"
    source.write_text(BOT.format(sleep=30))
    spec = BotSpec(name="slow", command=(sys.executable, str(source)))
    began = time.monotonic()
    report = check_bot_matches(spec, "liars_dice", matches=2, budget_s=2.0)
    assert time.monotonic() - began < 15
    assert not report.passed
    assert any("longer than its 2 s budget" in reason for reason in report.reasons)
