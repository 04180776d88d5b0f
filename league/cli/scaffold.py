"""``arena bot new``: write a bot project that works before its author changes a line.

A new author's first hour goes into plumbing (imports, ``run``, how to test
without a referee). The project written here plays legal moves, has a test that
plays it against the game's random example bot in-process, and a README that
says how to check and register it; the author only replaces ``act``.
"""

from __future__ import annotations

import importlib
import importlib.util
import keyword
import re
from pathlib import Path


class ScaffoldError(ValueError):
    """The project cannot be written as asked; the message names the bad input."""


NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_name(name: str) -> None:
    """The name becomes a module and a file name, so it must be importable as one
    and must not shadow a module the bot itself imports."""
    if not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(
            f"bad bot name {name!r}: it becomes a Python module, so use letters, digits"
            " and underscores, not starting with a digit (e.g. my_bot)"
        )
    if keyword.iskeyword(name):
        raise ScaffoldError(f"bad bot name {name!r}: it is a Python keyword")
    try:
        shadowed = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        shadowed = False
    if shadowed:
        raise ScaffoldError(
            f"bad bot name {name!r}: a module of that name already exists and the bot's"
            " file would shadow it; pick another name"
        )


def class_name(name: str) -> str:
    """``my_bot`` → ``MyBot`` (``Bot`` appended unless it ends so already)."""
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    return camel if camel.endswith("Bot") else camel + "Bot"


BOT_TEMPLATE = '''"""{title} bot {name}: plays a random legal action; put your strategy in ``act``.

    python {name}.py      (the referee starts it so; see README.md)
"""

from __future__ import annotations

from sdk import Bot, run
from {sdk} import Action, Observation, legal_actions


class {cls}(Bot[Observation, Action]):
    """A legal-move baseline: every answer comes from ``legal_actions``, so it never
    forfeits for an illegal action while you build a real policy on top."""

    game = "{game}"
    name = "{name}"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run({cls})
'''

TEST_TEMPLATE = '''"""{name} plays whole matches against {opponent_text}, in-process.

    python -m pytest {test_file}
"""

from __future__ import annotations

import pytest

{opponent_import}from sdk.local import play_local
from {name} import {cls}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("seat", [0, 1])
def test_plays_a_whole_match(seed: int, seat: int) -> None:
    """play_local raises on an illegal action, so finishing means every move was legal."""
    bots = [{cls}, {random_cls}] if seat == 0 else [{random_cls}, {cls}]
    match = play_local("{game}", bots, seed=seed)
    assert len(match.outcome.places) == 2
'''

README_TEMPLATE = """# {name}

A bot for {title} (`{game}`), written by `arena bot new`. It plays a random legal
action; put your strategy in `act` in `{name}.py`.

Test it in-process against {opponent_text} (run from this directory):

    python -m pytest -q {test_file}

Check it the way a league would run it (sandboxed, over gRPC, against the example
bots, across the rule options) — it prints PASS or FAIL with the reasons (run from
this directory; `arena` resolves `{name}.py` against it):

    arena bot check "python {name}.py" --game {game}

Register it, then enter it in a league (`arena league create ... --bot {name}`):

    arena bot add {name} --cmd "python {name}.py" --game {game}
"""
# No absolute path in this README: it is published on the bot's page when the bot
# is submitted to a server, and where the author keeps their files is theirs.


def write_project(name: str, game: str, directory: Path, *, force: bool = False) -> list[Path]:
    """Write the bot, its test and its README into ``directory``; return the files."""
    from referee.core.catalogue import game_names, get_entry, get_game

    check_name(name)
    if game not in game_names():
        raise ScaffoldError(f"unknown game {game!r} (known: {', '.join(sorted(game_names()))})")
    if directory.exists() and not directory.is_dir():
        raise ScaffoldError(f"{directory} exists and is not a directory")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise ScaffoldError(
            f"{directory} exists and is not empty; choose another --dir or pass --force"
            " to overwrite the bot's files there"
        )
    directory.mkdir(parents=True, exist_ok=True)
    bot_file = directory / f"{name}.py"
    test_file = directory / f"test_{name}.py"
    opponent = _random_bot(game)
    values = {
        "name": name,
        "game": game,
        "sdk": get_entry(game).sdk,
        "title": get_game(game).title,
        "cls": class_name(name),
        "random_cls": opponent[1] if opponent else class_name(name),
        "opponent_import": f"from {opponent[0]} import {opponent[1]}\n" if opponent else "",
        "opponent_text": "the random example bot" if opponent else "itself",
        "test_file": test_file.name,
    }
    files = {
        bot_file: BOT_TEMPLATE,
        test_file: TEST_TEMPLATE,
        directory / "README.md": README_TEMPLATE,
    }
    for path, template in files.items():
        path.write_text(template.format(**values))
    return list(files)


def _random_bot(game: str) -> tuple[str, str] | None:
    """``(module, class)`` of the game's random example bot (its roster's), or ``None``
    for a game without example bots: the scaffolded bot then plays itself."""
    from referee.core.catalogue import get_entry
    from sdk import Bot

    roster = get_entry(game).roster
    if roster is None:
        return None
    module = importlib.import_module(f"example_bots.{roster.random}")
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Bot)
            and value.__module__ == module.__name__
        ):
            return module.__name__, value.__name__
    raise ScaffoldError(f"{module.__name__} has no bot class")
