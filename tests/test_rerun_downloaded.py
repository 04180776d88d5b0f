"""``arena rerun --record FILE --league-info FILE``: a match downloaded from ``arena serve``
(``GET /api/matches/KEY`` and ``GET /api/leagues/NAME``) played again with the author's
next version, the other seats' commands named by ``--other`` (issue 32, item 4). The
deal is checked as for a match of the local database: the secret against the
commitment, the record's chance outcomes against the deal key."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from referee.records.record import MatchRecord
from referee.records.replay import verify
from tests.server.harness import start_server, stop_server
from tests.test_no_tracebacks import ARENA
from tests.test_rerun import CHALLENGER, TRUTHFUL, arena, played_league, seat_of

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class Download:
    db: Path
    """The league database the server served (for the local form of the rerun)."""
    match: str
    truthful: int
    """The seat ``truthful`` held in ``match``; ``challenger`` held the other."""
    record: Path
    """``match``'s record, as ``GET /api/matches/MATCH`` served it."""
    league: Path
    """``cup``'s settings, as ``GET /api/leagues/cup`` served them."""
    stranger: Path
    """A record of ``match`` of another league named ``cup`` (another secret)."""

    @property
    def challenger(self) -> int:
        return 1 - self.truthful


@pytest.fixture(scope="module")
def download(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Download]:
    tmp = tmp_path_factory.mktemp("download")
    db = played_league(tmp)
    match, seat = seat_of(db, "truthful")
    served = start_server(f"sqlite:///{db}", tmp / "store", tmp / "serve.log")
    try:
        record = served.get(f"/api/matches/{match}")
        league = served.get("/api/leagues/cup")
    finally:
        assert stop_server(served) == 0, (tmp / "serve.log").read_text()
    assert record.status == 200 and league.status == 200, (record.text, league.text)
    (tmp / "record.json").write_bytes(record.body)
    (tmp / "league.json").write_bytes(league.body)
    other = tmp / "other"
    other.mkdir()
    replayed = arena(played_league(other), "replay", match, "--json")
    assert replayed.returncode == 0, replayed.stderr
    (tmp / "stranger.json").write_text(replayed.stdout)
    yield Download(db, match, seat, tmp / "record.json", tmp / "league.json", tmp / "stranger.json")


def rerun(
    download: Download, *args: str, record: Path | None = None, league: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``arena rerun --record ... --league-info ...`` with no league database at all."""
    return subprocess.run(
        [
            ARENA, "rerun", "--record", str(record or download.record),
            "--league-info", str(league or download.league), *args, "--no-sandbox",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "ARENA_DB": f"sqlite:///{download.db.parent / 'absent' / 'no.db'}"},
    )  # fmt: skip


def unchanged(download: Download) -> list[str]:
    """Truthful again in its seat, challenger named for the other."""
    return [
        "--seat", str(download.truthful), "--bot", TRUTHFUL,
        "--other", f"{download.challenger}={CHALLENGER}",
    ]  # fmt: skip


def edited(download: Download, name: str, source: Path, **changes: object) -> Path:
    """A copy of the downloaded JSON ``source`` with ``changes``."""
    data = json.loads(source.read_text())
    data.update(changes)
    path = download.record.parent / name
    path.write_text(json.dumps(data))
    return path


def test_a_downloaded_record_replays_the_original_exactly(download: Download) -> None:
    """The same output as the rerun of the same match from the league database."""
    done = rerun(download, *unchanged(download))
    assert done.returncode == 0, done.stderr
    assert "the same game as the original: all" in done.stdout, done.stdout
    assert "note:" not in done.stderr, done.stderr  # the same commands: the same versions
    local = arena(
        download.db, "rerun", download.match, "--seat", str(download.truthful),
        "--bot", TRUTHFUL, "--no-sandbox",
    )  # fmt: skip
    assert local.returncode == 0, local.stderr
    assert done.stdout == local.stdout


def test_every_other_seat_needs_its_command(download: Download) -> None:
    done = rerun(download, "--seat", str(download.truthful), "--bot", TRUTHFUL)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"error: seat {download.challenger} (challenger): give its bot's command with"
        f" --other {download.challenger}=CMD (a downloaded record does not carry the other"
        " bots' code)"
    )


def test_a_tampered_secret_refuses(download: Download) -> None:
    secret = json.loads(download.league.read_text())["secret"]
    flipped = secret[:-1] + ("0" if secret[-1] != "0" else "1")
    league = edited(download, "tampered.json", download.league, secret=flipped)
    done = rerun(download, *unchanged(download), league=league)
    assert done.returncode == 2, done.stderr
    assert "error: league 'cup': its secret does not hash to the commitment" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_record_of_another_leagues_match_refuses(download: Download) -> None:
    """A league of the same name but another secret: its deal is not this league's."""
    done = rerun(download, *unchanged(download), record=download.stranger)
    assert done.returncode == 2, done.stderr
    assert (
        f"error: match {download.match}: its record does not check against the deal:"
        " event 1: chance outcome"
    ) in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_a_record_of_a_league_of_another_name_refuses(download: Download) -> None:
    record = edited(download, "cup2.json", download.record, match_id="cup2-0")
    done = rerun(download, *unchanged(download), record=record)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"error: {record} is match cup2-0 of league 'cup2', not of league 'cup' ({download.league})"
    )


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing", "error: cannot read {path}: No such file or directory"),
        ("not JSON", "error: {path} is not JSON (Expecting value: line 1 column 1 (char 0)):"),
        ("a list", "error: {path} is not a JSON object: expected the league's settings"),
        ("the server's 404", "error: {path} is the server's error 404: no league named 'cap'"),
        ("not revealed", "error: league 'cup' has not revealed its secret"),
        ("not a league", "error: {path}: its 'commitment' is missing or of the wrong type"),
    ],
)
def test_bad_league_settings_refuse_in_one_line(
    download: Download, case: str, expected: str
) -> None:
    path = download.record.parent / f"{case}.json"
    texts = {
        "not JSON": "<html>Not Found</html>",
        "a list": json.dumps([json.loads(download.league.read_text())]),
        "the server's 404": json.dumps({"error": "no league named 'cap'", "status": 404}),
    }
    if case in texts:
        path.write_text(texts[case])
    elif case == "not revealed":
        path = edited(download, "secret.json", download.league, secret=None)
    elif case == "not a league":
        path = edited(download, "partial.json", download.league, commitment=None)
    done = rerun(download, *unchanged(download), league=path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(expected.format(path=path)), done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_public_copy_is_checked_from_its_stored_header_hash_on(download: Download) -> None:
    """The server empties every seat's command, so the header no longer hashes as it
    was sealed; ``header=False`` checks the rest of the chain, which still catches an
    altered event."""
    record = MatchRecord.from_json(download.record.read_text())
    assert verify(record)[0] == "header: hash does not match its content"
    assert verify(record, header=False) == []
    last = record.events[-1]
    altered = replace(record, events=(*record.events[:-1], replace(last, elapsed_ms=1.0)))
    assert verify(altered, header=False)[0] == (
        f"event {len(record.events)}: hash does not match (the event or one before it was altered)"
    )
