"""Luck-adjusted scores in a league's standings: recomputed from the played events apart
from the database, they must equal what ``league standings`` shows in its column."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from example_bots.liars_dice_random import RandomLiarsDiceBot
from league.cli import app
from league.domain.luck import LuckSprt, adjusted_pair_score, summarize
from league.store.db import session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    get_league,
    pending_matches,
    record_result,
)
from league.store.luck_standings import league_luck, pair_points
from league.store.registry import add_bot
from league.store.sprt_tests import SprtSettings, create_sprt_league, extend_pairs, sprt_state
from referee.analysis.luck import luck
from referee.core.catalogue import get_game
from sdk.local import BotFactory, play_local
from tests.forge import record_of

BOTS: dict[str, BotFactory] = {
    "random": RandomLiarsDiceBot,
    "probability": ProbabilityLiarsDiceBot,
}
RULES = {"dice_per_player": "3"}


def play_league(engine: Engine, name: str = "lucky") -> dict[str, dict[str, list[float]]]:
    """Play a 2-bot, 4-round liars_dice league in process and store it; returns each
    bot's adjusted scores per duplicate group, recomputed from the events."""
    with session_scope(engine) as session:
        for bot in BOTS:
            add_bot(session=session, name=bot, command="true", games=["liars_dice"])
        league = create_league(
            session=session,
            name=name,
            settings=LeagueSettings("liars_dice", tuple(BOTS), rules=RULES, rounds=4),
        )
        pending = pending_matches(session=session, league=league)
    rules = get_game("liars_dice").parse_rules(RULES)
    expected: dict[str, dict[str, list[float]]] = {}
    for index, match in enumerate(pending):
        names = [bot.name for bot in match.bots]
        played = play_local("liars_dice", [BOTS[n] for n in names], seed=index, rules=RULES)
        key = f"{name}-{match.position}"
        record = record_of("liars_dice", RULES, played.events, match_id=key, bots=names)
        lucky = luck("liars_dice", rules, 2, played.events, salt=key.encode())
        for seat, bot in enumerate(names):
            score = pair_points(list(played.outcome.places), seat) - lucky[seat]
            expected.setdefault(bot, {}).setdefault(match.group, []).append(score)
        with session_scope(engine) as session:
            league = get_league(session=session, name=name)
            record_result(session=session, league=league, match_id=match.match_id, record=record)
    return expected


def test_the_standings_show_the_recomputed_luck_adjusted_scores(
    engine: Engine, db_url: str
) -> None:
    expected = play_league(engine)
    with session_scope(engine) as session:
        league = get_league(session=session, name="lucky")
        found = league_luck(session=session, league=league)
    assert found.skipped == []
    assert found.matches == 8
    for bot, groups in expected.items():
        summary = summarize(list(groups.values()))
        assert summary is not None
        assert found.bots[bot] == summary
        assert summary.groups == 4
    # the adjustment moved the scores: adjusted scores are not all 0, ½ or 1
    adjusted = [s for groups in expected.values() for g in groups.values() for s in g]
    assert any(s not in (0.0, 0.5, 1.0) for s in adjusted)
    if not db_url.startswith("sqlite"):
        return
    result = CliRunner().invoke(
        app, ["--db", db_url, "league", "standings", "lucky", "--samples", "20"]
    )
    assert result.exit_code == 0, result.output
    assert "luck-adj." in result.output
    for bot in BOTS:
        line = next(line for line in result.output.splitlines() if f" {bot} " in f" {line} ")
        assert found.bots[bot].text() in line, line


def test_a_luck_adjusted_sprt_decides_on_the_adjusted_pair_scores(engine: Engine) -> None:
    """An ``arena sprt --luck-adjusted`` league: its state's LLR is the normal GSPRT's
    on NEW's adjusted pair scores, recomputed here from the played events."""
    with session_scope(engine) as session:
        new = add_bot(session=session, name="prob", games=["liars_dice"], command="true")
        old = add_bot(session=session, name="rnd", games=["liars_dice"], command="true")
        settings = SprtSettings(
            new_bot=new.id or 0,
            old_bot=old.id or 0,
            elo1=50.0,
            concurrency=8,
            luck_adjusted=True,
        )
        create_sprt_league(
            session=session,
            name="s",
            game="liars_dice",
            new=new,
            old=old,
            settings=settings,
            rules=RULES,
        )
        league = get_league(session=session, name="s")
        pending = extend_pairs(session=session, league=league, decide=False)
    rules = get_game("liars_dice").parse_rules(RULES)
    factories = {"prob": ProbabilityLiarsDiceBot, "rnd": RandomLiarsDiceBot}
    halves: dict[str, list[tuple[float, float]]] = {}
    for match in pending:
        names = [bot.name for bot in match.bots]
        deal = int(match.group[1:])
        played = play_local("liars_dice", [factories[n] for n in names], seed=deal, rules=RULES)
        key = f"s-{match.position}"
        record = record_of("liars_dice", RULES, played.events, match_id=key, bots=names)
        seat = names.index("prob")
        lucky = luck("liars_dice", rules, 2, played.events, salt=key.encode())
        halves.setdefault(match.group, []).append(
            (pair_points(list(played.outcome.places), seat), lucky[seat])
        )
        with session_scope(engine) as session:
            league = get_league(session=session, name="s")
            record_result(session=session, league=league, match_id=match.match_id, record=record)
    test = LuckSprt(elo0=0.0, elo1=50.0)
    expected = test.start()
    for group in ("p0", "p1", "p2", "p3"):
        expected = expected.add(adjusted_pair_score(halves[group]))
    with session_scope(engine) as session:
        state = sprt_state(session=session, league=get_league(session=session, name="s"))
    assert state.luck
    assert state.llr == pytest.approx(test.llr(expected))
    assert (state.lower, state.upper) == pytest.approx((test.lower, test.upper))
    assert "luck-adjusted LLR" in state.progress_line()
