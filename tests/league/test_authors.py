"""Authors and their tokens (issue 14): shown once, stored only as a salted hash,
and every bad token refused without being repeated back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from league.cli import app
from league.store.authors import (
    AuthError,
    add_author,
    authenticate,
    disable_author,
    list_authors,
)
from league.store.db import session_scope
from league.store.registry import AlreadyExistsError, LeagueError


def test_token_is_returned_once_and_only_its_hash_is_stored(engine: Engine) -> None:
    with session_scope(engine) as session:
        row, token = add_author(session=session, name="ada")
    assert token.startswith(f"arena_{row.token_id}_")
    secret = token.split("_", 2)[2]
    with engine.connect() as connection:
        stored = [str(v) for r in connection.execute(text("SELECT * FROM author")) for v in r]
    dump = " ".join(stored)
    assert secret not in dump and token not in dump
    assert row.token_hash in dump and row.token_params == "sha256"
    with session_scope(engine) as session:
        assert authenticate(session=session, token=token).name == "ada"
        assert authenticate(session=session, token=f"  {token}\n").name == "ada"


def test_salts_differ_so_equal_hashes_reveal_nothing(engine: Engine) -> None:
    with session_scope(engine) as session:
        first, _ = add_author(session=session, name="a1")
        second, _ = add_author(session=session, name="a2")
    assert first.token_salt != second.token_salt and first.token_id != second.token_id


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda t: "", "missing token"),
        (lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), "unknown or wrong token"),
        (lambda t: t.replace(t.split("_")[1], "0" * 12, 1), "unknown or wrong token"),
        (lambda t: "Bearer " + t, "malformed token"),
        (lambda t: t[:-3], "malformed token"),
        (lambda t: t + "x", "malformed token"),
        (lambda t: "arena_../../etc_" + "x" * 43, "malformed token"),
    ],
)
def test_bad_tokens_are_refused_without_echoing_them(
    engine: Engine, mangle: object, message: str
) -> None:
    with session_scope(engine) as session:
        _, token = add_author(session=session, name="ada")
    bad = mangle(token)  # type: ignore[operator]
    with session_scope(engine) as session, pytest.raises(AuthError) as caught:
        authenticate(session=session, token=bad)
    assert message in str(caught.value)
    secret = token.split("_", 2)[2]
    assert secret[:8] not in str(caught.value)
    if bad:
        assert bad.strip() not in str(caught.value)
    assert isinstance(caught.value, LeagueError)


def test_disabled_author_is_refused_and_listed_as_such(engine: Engine) -> None:
    with session_scope(engine) as session:
        _, token = add_author(session=session, name="ada")
        add_author(session=session, name="bob")
    with session_scope(engine) as session:
        disable_author(session=session, name="ada")
    with session_scope(engine) as session, pytest.raises(AuthError, match="'ada' is disabled"):
        authenticate(session=session, token=token)
    with session_scope(engine) as session:
        assert [(a.name, a.disabled) for a in list_authors(session=session)] == [
            ("ada", True),
            ("bob", False),
        ]


def test_names_are_checked_and_unique(engine: Engine) -> None:
    with session_scope(engine) as session:
        add_author(session=session, name="ada")
    with session_scope(engine) as session, pytest.raises(AlreadyExistsError, match="'ada'"):
        add_author(session=session, name="ada")
    for bad in ("", "a b", "<script>", "x" * 65):
        with session_scope(engine) as session, pytest.raises(LeagueError, match="bad author name"):
            add_author(session=session, name=bad)


def test_cli_prints_the_token_once_and_never_lists_it(tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--db", f"sqlite:///{tmp_path / 'a.db'}"]
    added = runner.invoke(app, [*db, "author", "add", "ada"])
    assert added.exit_code == 0, added.output
    token = next(line for line in added.output.splitlines() if line.startswith("arena_"))
    assert "not stored" in added.output
    listed = runner.invoke(app, [*db, "author", "list", "--json"])
    assert listed.exit_code == 0 and token.split("_", 2)[2] not in listed.output
    assert json.loads(listed.output)[0]["name"] == "ada"
    assert runner.invoke(app, [*db, "author", "disable", "ada"]).exit_code == 0
    table = runner.invoke(app, [*db, "author", "list"])
    assert "disabled" in table.output
    missing = runner.invoke(app, [*db, "author", "disable", "nobody"])
    assert missing.exit_code == 2 and "no author named 'nobody'" in missing.output
