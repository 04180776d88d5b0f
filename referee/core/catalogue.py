"""The game catalogue: one registration per game, and the lookups everything else uses.

A :class:`GameEntry` (:mod:`referee.gamekit.entry`) says everything the platform needs
to know about a game beyond its engine: where its engine and codec live, its SDK
module, its example bots (the demo league, the ladder and ``arena bot check`` read
them), how reinforcement learning enumerates its actions, and how the replay viewer
draws it. The engine itself carries the rules, the visibility of each action and the
claim judge (``Game.claim_truth`` / ``Game.challenge_action``), so analytics needs no
table.

Engines, codecs and action universes are named as ``"module:ATTRIBUTE"`` strings
and imported on first use (:func:`load`): listing the games imports no engine, and a
Liar's Dice bot never loads the card games.

Where games come from (:func:`discover`, once per process):

* **built in**: every package under ``referee/games/`` is a game, and its
  ``__init__`` holds its ``ENTRY``. A new built-in game is a new folder there.
* **installed**: a distribution that declares an entry point in the group
  ``bluff_arena.games``, named after its game (its value: the module holding
  ``ENTRY``, or the entry itself), adds its game when installed in the same
  environment; nothing is edited. Looking a game up loads only its own entry point;
  listing the games loads them all.
* **registered** at run time with :func:`register` (a program that builds a game on
  the fly; the test suites install their toy games as entry points instead).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.gamekit.base import Game, RulesError
from referee.gamekit.entry import GameEntry, Roster, ViewerSpec

if TYPE_CHECKING:  # the codec base imports protobuf; listing games must not
    from referee.wire.base import Codec

__all__ = [
    "BUILTIN_GAMES",
    "ENTRY_POINT_GROUP",
    "CatalogueError",
    "GameEntry",
    "Roster",
    "ViewerSpec",
    "action_universe",
    "discover",
    "entries",
    "game_folder",
    "game_names",
    "get_codec",
    "get_entry",
    "get_game",
    "load",
    "register",
]

BUILTIN_PACKAGE = "referee.games"
"""Every sub-package of this package is a built-in game."""
ENTRY_POINT_GROUP = "bluff_arena.games"
"""The entry point group through which an installed distribution adds its games."""


class CatalogueError(ValueError):
    """A registration that conflicts with the catalogue (a name taken by another entry)."""


def load(reference: str) -> Any:
    """The object a ``"module:ATTRIBUTE"`` reference names, importing its module."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


_ENTRIES: dict[str, GameEntry] = {}
_ENGINES: dict[str, Game[Any, Any, Any, Any]] = {}
_CODECS: dict[str, Codec[Any, Any]] = {}
_BUILTINS_DONE = False
_INSTALLED_DONE = False
"""Whether every entry point was loaded (listing the games scans them once)."""
_LOADED_POINTS: set[str] = set()
"""Names of the entry points already loaded."""


def register(entry: GameEntry) -> GameEntry:
    """Add ``entry`` to the catalogue; registering the same entry again is harmless.

    Raises :class:`CatalogueError` if another entry already has its name.
    """
    known = _ENTRIES.get(entry.name)
    if known is not None and known != entry:
        raise CatalogueError(f"game {entry.name!r} is already registered as {known!r}")
    _ENTRIES[entry.name] = entry
    return entry


def discover() -> None:
    """Register the built-in games and every installed one (once per process).

    Raises :class:`CatalogueError` naming the distribution whose entry point does not
    load or does not hold a :class:`GameEntry`.
    """
    global _INSTALLED_DONE
    _register_builtins()
    if not _INSTALLED_DONE:
        _register_installed()
        _INSTALLED_DONE = True


def _register_builtins() -> None:
    global _BUILTINS_DONE
    if not _BUILTINS_DONE:
        _BUILTINS_DONE = True
        for entry in _builtin_entries():
            register(entry)


def _builtin_entries() -> list[GameEntry]:
    """The registration of every package under ``referee/games``, in listing order."""
    found = [importlib.import_module(package).ENTRY for package in _packages(BUILTIN_PACKAGE)]
    return sorted(found, key=lambda entry: (entry.order, entry.name))


def _register_installed(only: str | None = None) -> None:
    """Load the installed games' entry points (``only``: just the one of that name, so
    a bot loads its own game's package and never a stranger's)."""
    import importlib.metadata  # ~20 ms that a built-in game's bot never pays

    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _LOADED_POINTS or (only is not None and point.name != only):
            continue
        where = f"entry point {point.name!r} of {_distribution(point)} ({point.value})"
        try:
            found = point.load()
        except Exception as error:  # any failure of a stranger's package: name it
            raise CatalogueError(f"{where} does not load: {error}") from error
        entry = found if isinstance(found, GameEntry) else getattr(found, "ENTRY", None)
        if not isinstance(entry, GameEntry):
            raise CatalogueError(f"{where} holds no GameEntry (expected ENTRY in its module)")
        register(entry)
        _LOADED_POINTS.add(point.name)


def _distribution(point: Any) -> str:
    dist = point.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unnamed distribution"


def _packages(package: str) -> list[str]:
    root = importlib.import_module(package)
    return [
        info.name
        for info in pkgutil.iter_modules(root.__path__, prefix=f"{package}.")
        if info.ispkg
    ]


def entries() -> tuple[GameEntry, ...]:
    """Every registered game, by its ``order`` (the built-in games first), then in
    registration order."""
    discover()
    ranked = sorted(enumerate(_ENTRIES.values()), key=lambda item: (item[1].order, item[0]))
    return tuple(entry for _, entry in ranked)


def game_names() -> tuple[str, ...]:
    """The registered games' names, in listing order (imports no engine)."""
    return tuple(entry.name for entry in entries())


def get_entry(name: str) -> GameEntry:
    """The registration of ``name``; :class:`RulesError` if there is none.

    Looks among the built-in games, then at the entry point of that name (an installed
    game names its entry point after itself), and only then at every installed game.
    """
    entry = _ENTRIES.get(name)
    if entry is None:
        _register_builtins()
        entry = _ENTRIES.get(name)
    if entry is None:
        _register_installed(only=name)
        entry = _ENTRIES.get(name)
    if entry is None:
        discover()
        entry = _ENTRIES.get(name)
    if entry is None:
        known = ", ".join(sorted(_ENTRIES))
        raise RulesError(f"unknown game {name!r} (known: {known})")
    return entry


def game_folder(name: str) -> Path:
    """The folder of the game ``name``: the package of its engine module, which holds
    what the game is (its golden files among them). Imports nothing."""
    spec = importlib.util.find_spec(get_entry(name).engine.partition(":")[0])
    if spec is None or spec.origin is None:
        raise CatalogueError(f"the engine module of {name!r} is not found")
    return Path(spec.origin).parent


def get_game(name: str) -> Game[Any, Any, Any, Any]:
    """The engine registered as ``name``; :class:`RulesError` if there is none."""
    engine = _ENGINES.get(name)
    if engine is None:
        engine = load(get_entry(name).engine)
        if engine.name != name:
            raise CatalogueError(f"game {name!r} is registered with the engine of {engine.name!r}")
        _ENGINES[name] = engine
    return engine


def get_codec(game: str) -> Codec[Any, Any]:
    """The codec for ``game``; :class:`RulesError` if there is none."""
    codec = _CODECS.get(game)
    if codec is None:
        try:
            entry = get_entry(game)
        except RulesError:
            raise RulesError(f"no wire codec for game {game!r}") from None
        codec = load(entry.codec)
        build = getattr(codec, "build", None)  # a derived codec: a mismatch with its
        if build is not None:  # messages shows here, never in a match
            build()
        if codec.game != game:
            raise CatalogueError(f"game {game!r} is registered with the codec of {codec.game!r}")
        _CODECS[game] = codec
    return codec


def action_universe(name: str) -> Callable[[Any, int], list[Hashable]]:
    """The game's action-universe function (see :attr:`GameEntry.action_universe`)."""
    function: Callable[[Any, int], list[Hashable]] = load(get_entry(name).action_universe)
    return function


BUILTIN_GAMES: tuple[str, ...] = tuple(entry.name for entry in _builtin_entries())
"""The games that ship with the platform (tests with per-game tables cover these)."""
