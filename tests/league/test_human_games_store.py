"""The humans league's reservations: a game that ends stores its result or deletes its
row; one whose process cannot be checked from here (another host's: no owner here)
and that started a day ago is dropped when the next game starts, and a recent one is
left to finish. (A reservation whose process on this host is gone is released at
once: tests/server/test_human_reservations.py.)"""

from __future__ import annotations

import time
from pathlib import Path

from sqlmodel import select

from league.store.db import open_database, session_scope
from league.store.human_games import (
    ABANDONED_S,
    PLAYING,
    drop_abandoned,
    human_row,
    humans_league,
    start_human_match,
)
from league.store.models import MatchRow
from league.store.registry import add_bot


def test_a_reservation_left_playing_is_dropped_a_day_later(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with session_scope(engine) as session:
        league = humans_league(session=session, game="liars_dice", rules={})
        bot = add_bot(
            session=session, name="b", command="python -m example_bots.liars_dice_random",
            games=["liars_dice"],
        )  # fmt: skip
        seats = [human_row(session=session, player="ada", game="liars_dice"), bot]
        others = [human_row(session=session, player="bo", game="liars_dice"), bot]
        old = start_human_match(session=session, league=league, seats=seats, owner="")
        recent = start_human_match(session=session, league=league, seats=others, owner="")
        statuses = {m.id: m.status for m in session.exec(select(MatchRow))}
        assert statuses == {old.match_id: PLAYING, recent.match_id: PLAYING}
        later = time.time() + ABANDONED_S + 60
        row = session.get(MatchRow, recent.match_id)
        assert row is not None
        row.group_key = f"h-{int(later)}-0123456789abcdef"  # started "now", a day on
        session.add(row)
        session.flush()
        assert drop_abandoned(session=session, league=league, now=later) == 1
        assert [m.id for m in session.exec(select(MatchRow))] == [recent.match_id]
        # The next reservation drops nothing recent and takes the next position.
        assert drop_abandoned(session=session, league=league) == 0
        third = start_human_match(session=session, league=league, seats=seats, owner="")
        assert third.key.endswith("-2")
    engine.dispose()
