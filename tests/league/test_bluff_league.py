"""Bluff analytics of a whole league: standings text, ``--json`` and the HTML report.

The matches are played in-process by the example bots and stored as a league run
stores them (:func:`record_result`); the expected numbers are recomputed from the
played events, apart from the database, and must equal what the league shows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

from example_bots.liars_dice_counting import CountingBot
from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from example_bots.liars_dice_random import RandomLiarsDiceBot
from league.cli import app
from league.store.bluff import league_bluff
from league.store.db import session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    get_league,
    pending_matches,
    record_result,
)
from league.store.registry import add_bot
from league.store.standings import standings
from referee.records.analytics import BluffStats, analyse_events, format_ratio
from sdk.local import BotFactory, play_local
from tests.forge import record_of

BOTS: dict[str, BotFactory] = {
    "random": RandomLiarsDiceBot,
    "probability": ProbabilityLiarsDiceBot,
    "counting": CountingBot,
}
RULES = {"dice_per_player": "2"}


def play_league(engine: Engine, name: str = "bluff") -> dict[str, BluffStats]:
    """Play every match of a 3-bot, 2-round liars_dice league; the last one is
    stored as aborted. Returns the per-bot totals recomputed from the events."""
    with session_scope(engine) as session:
        for bot in BOTS:
            add_bot(session=session, name=bot, command="true", games=["liars_dice"])
        league = create_league(
            session=session,
            name=name,
            settings=LeagueSettings("liars_dice", tuple(BOTS), rules=RULES, rounds=2),
        )
        pending = pending_matches(session=session, league=league)
    expected: dict[str, BluffStats] = {}
    for index, match in enumerate(pending):
        names = [bot.name for bot in match.bots]
        played = play_local("liars_dice", [BOTS[n] for n in names], seed=index, rules=RULES)
        key = f"{name}-{match.position}"
        if index == len(pending) - 1:
            # A referee error before the last action: stored, but never counted.
            record = record_of(
                "liars_dice",
                RULES,
                played.events[:-1],
                match_id=key,
                bots=names,
                reason="aborted",
                meta={"error": "engine failure"},
            )
        else:
            record = record_of("liars_dice", RULES, played.events, match_id=key, bots=names)
            per_seat = analyse_events("liars_dice", RULES, len(names), played.events)
            assert per_seat is not None
            for bot, stats in zip(names, per_seat, strict=True):
                expected[bot] = expected.get(bot, BluffStats()) + stats
        with session_scope(engine) as session:
            league = get_league(session=session, name=name)
            record_result(session=session, league=league, match_id=match.match_id, record=record)
    return expected


def test_league_standings_show_the_recomputed_analytics(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    expected = play_league(engine)
    assert sum(s.challenges for s in expected.values()) > 0  # the league is not trivial
    with session_scope(engine) as session:
        league = get_league(session=session, name="bluff")
        bluff = league_bluff(session=session, league=league)
        assert bluff is not None and bluff.skipped == []
        assert bluff.matches == 11  # 12 scheduled, the aborted one skipped
        assert bluff.bots == expected
        rows = standings(session=session, league=league, samples=20, bluff=bluff)
        assert {row.bot: row.bluff for row in rows} == expected
    if not db_url.startswith("sqlite"):
        return  # the command line keeps its engine open until the process exits

    runner = CliRunner()
    result = runner.invoke(
        app, ["--db", db_url, "league", "standings", "bluff", "--samples", "20", "--json"]
    )
    assert result.exit_code == 0, result.output
    shown = {row["bot"]: row["bluff"] for row in json.loads(result.output)}
    assert shown == {bot: stats.as_json() for bot, stats in expected.items()}
    counting = shown["counting"]
    assert counting["claims"] == expected["counting"].claims
    assert counting["bluff_rate"] == round(
        expected["counting"].false_claims / expected["counting"].claims, 4
    )

    result = runner.invoke(app, ["--db", db_url, "league", "standings", "bluff", "--samples", "20"])
    assert result.exit_code == 0, result.output
    assert "bluff analytics, judged from 11 match records:" in result.output
    for bot, stats in expected.items():
        line = next(
            line
            for line in result.output.splitlines()
            if re.match(rf"{bot}\s+\S*%|{bot}\s+-", line)
        )
        for part, whole in stats.ratios().values():
            assert format_ratio(part, whole) in line, (bot, line)

    page = tmp_path / "league.html"
    result = runner.invoke(
        app, ["--db", db_url, "league", "report", "bluff", "--html", str(page), "--samples", "20"]
    )
    assert result.exit_code == 0, result.output
    html = page.read_text()
    for bot, stats in expected.items():
        row = re.search(rf'<tr data-bot="{bot}">(.*?)</tr>', html)
        assert row is not None
        cells = dict(re.findall(r'data-stat="(\w+)">([^<]*)</td>', row.group(1)))
        assert cells == {
            name: format_ratio(part, whole) if whole else "–"
            for name, (part, whole) in stats.ratios().items()
        }


def test_a_game_without_claims_shows_no_analytics(engine: Engine, db_url: str) -> None:
    with session_scope(engine) as session:
        for bot in ("x", "y"):
            add_bot(session=session, name=bot, command="true", games=["dice_poker"])
        league = create_league(
            session=session, name="dp", settings=LeagueSettings("dice_poker", ("x", "y"))
        )
        assert league_bluff(session=session, league=league) is None
        assert all(row.bluff is None for row in standings(session=session, league=league))
    if not db_url.startswith("sqlite"):
        return  # the command line keeps its engine open until the process exits
    result = CliRunner().invoke(app, ["--db", db_url, "league", "standings", "dp"])
    assert result.exit_code == 0, result.output
    assert "bluff" not in result.output
    result = CliRunner().invoke(app, ["--db", db_url, "league", "standings", "dp", "--json"])
    assert all(row["bluff"] is None for row in json.loads(result.output))
