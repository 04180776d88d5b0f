"""The game catalogue: one registration per game, and the lookups everything else uses.

A :class:`GameEntry` says everything the platform needs to know about a game beyond
its engine: where its engine and codec live, its SDK module, its example bots (the
demo league, the ladder and ``arena bot check`` read them), how reinforcement
learning enumerates its actions, and how the replay viewer draws it. The engine
itself carries the rules, the visibility of each action and the claim judge
(``Game.claim_truth`` / ``Game.challenge_action``), so analytics needs no table.

Engines, codecs and action universes are named as ``"module:ATTRIBUTE"`` strings
and imported on first use (:func:`load`): listing the games imports no engine, and a
Liar's Dice bot never loads the card games.

The five built-in games are registered below. A game shipped elsewhere (a plugin,
or the toy game in ``tests/game_plugins``) calls :func:`register` from its own
package; :func:`discover` imports the plugin modules named in the
``ARENA_GAME_PLUGINS`` environment variable, and :func:`load_plugin_package`
imports every sub-package of a package (how the test suites find every game).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee.games.base import Game, RulesError

if TYPE_CHECKING:  # the codec base imports protobuf; listing games must not
    from referee.wire.base import Codec

PLUGINS_ENV = "ARENA_GAME_PLUGINS"
"""Comma-separated module names that :func:`discover` imports (each registers games)."""


class CatalogueError(ValueError):
    """A registration that conflicts with the catalogue (a name taken by another entry)."""


@dataclass(frozen=True, slots=True)
class Roster:
    """A game's example bots, as module names under ``example_bots``.

    The check plays ``random`` and ``heuristic``; the demo league adds the
    ``counters`` (counter-strategies) between them; the ladder adds ``strong``
    last (weakest expected first). The demo and ladder leagues seat ``table_size``
    bots per match under ``rules`` (option text; empty: the game's defaults); the
    check always plays two seats, the checked bot against one example bot.
    """

    random: str
    heuristic: str
    strong: str | None = None
    counters: tuple[str, ...] = ()
    counter_set: tuple[str, ...] = ()
    """Simple counter-strategies (each one habit pushed to the extreme) that
    ``bench.counters`` plays the ``strong`` bot against, to find its worst case.
    A field apart from ``counters`` because the demo and the ladder play every
    pair of their bots: a dozen more bots would multiply ``make demo``'s matches."""
    table_size: int = 2
    rules: tuple[tuple[str, str], ...] = ()
    """``(option, value)`` pairs, a tuple so that a registration stays hashable."""
    ladder_table_size: int | None = None
    """Seats per ladder match when the ladder needs more than the demo's
    ``table_size`` (``None``: the same). Cockroach Poker's ladder plays three seats,
    because two seats are a forced win for seat 0 under its default rules, while
    its demo, with only the random and the heuristic bot, can seat just two."""
    exploit_rules: tuple[tuple[str, str], ...] | None = None
    """A two-seat variant small enough for the exact best response
    (``referee.analysis.best_response``), on which the ladder measures the strong bot's
    exploitability; ``None``: the game has none."""

    @property
    def check(self) -> tuple[str, str]:
        """The opponents of ``arena bot check``: the random and the heuristic bot."""
        return (self.random, self.heuristic)

    @property
    def demo(self) -> tuple[str, ...]:
        """The demo league's bots, in registration order."""
        return (self.random, *self.counters, self.heuristic)

    @property
    def ladder(self) -> tuple[str, ...]:
        """The ladder's bots, weakest expected first."""
        return self.demo + ((self.strong,) if self.strong else ())

    @property
    def ladder_seats(self) -> int:
        """Seats per ladder match: ``ladder_table_size``, else ``table_size``."""
        return self.table_size if self.ladder_table_size is None else self.ladder_table_size


@dataclass(frozen=True, slots=True)
class ViewerSpec:
    """How the HTML replay viewer draws a seat's observation of this game.

    ``renderer`` names a function of ``window.ArenaGames`` (``referee/records/viewer/games.js``
    for the built-in games); ``None`` draws the observation's fields generically.
    ``script`` (``"package:file"``, a package resource) is a plugin game's own
    JavaScript that adds its renderer to ``window.ArenaGames``; the page inlines it
    after ``games.js``. ``count_keys`` are
    observation fields whose lists are counts per kind, labelled by the sequence
    that ``count_labels`` (``"module:ATTRIBUTE"``) names: each item's ``label``
    attribute if it has one, else its text.
    """

    renderer: str | None = None
    script: str | None = None
    count_keys: frozenset[str] = frozenset()
    count_labels: str | None = None
    facts: str | None = None
    """``"module:function"``: what the renderer needs computed by the rules, from one
    seat's observation (``step.facts[seat]`` in the page), so the page never restates
    a rule; None when the renderer needs nothing."""


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One game's registration (see the module docstring)."""

    name: str
    """The game's name: the engine's ``name``, the codec's ``game``, records' ``game``."""
    title: str
    """The human title (the engine's ``title``), for listings that load no engine."""
    engine: str
    """``"module:ATTRIBUTE"`` of the engine instance."""
    codec: str
    """``"module:ATTRIBUTE"`` of the wire codec instance."""
    sdk: str
    """The SDK module a bot author imports (``sdk.liars_dice``)."""
    action_universe: str
    """``"module:FUNCTION"``: ``(rules, num_seats) -> list`` of every action key the
    game can take (:mod:`sdk.pettingzoo_env` builds its ``Discrete`` space from it)."""
    roster: Roster | None = None
    """The example bots, or ``None`` for a game that has none in ``example_bots``."""
    viewer: ViewerSpec = ViewerSpec()


def load(reference: str) -> Any:
    """The object a ``"module:ATTRIBUTE"`` reference names, importing its module."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


_ENTRIES: dict[str, GameEntry] = {}
_ENGINES: dict[str, Game[Any, Any, Any, Any]] = {}
_CODECS: dict[str, Codec[Any, Any]] = {}
_DISCOVERED = False


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
    """Import the plugin modules named in ``$ARENA_GAME_PLUGINS`` (once per process)."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    for module in filter(None, (m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(","))):
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise CatalogueError(f"${PLUGINS_ENV} names {module!r}: {error}") from error


def load_plugin_package(package: str) -> list[str]:
    """Import every sub-package of ``package`` (each registers its game); return their
    module names. A new game dropped into the package is found without any edit."""
    root = importlib.import_module(package)
    found = []
    for info in pkgutil.iter_modules(root.__path__, prefix=f"{package}."):
        if info.ispkg:
            importlib.import_module(info.name)
            found.append(info.name)
    return found


def entries() -> tuple[GameEntry, ...]:
    """Every registered game, built-in games first, in registration order."""
    discover()
    return tuple(_ENTRIES.values())


def game_names() -> tuple[str, ...]:
    """The registered games' names, in listing order (imports no engine)."""
    return tuple(entry.name for entry in entries())


def get_entry(name: str) -> GameEntry:
    """The registration of ``name``; :class:`RulesError` if there is none."""
    entry = _ENTRIES.get(name)
    if entry is None:
        discover()
        entry = _ENTRIES.get(name)
    if entry is None:
        known = ", ".join(sorted(_ENTRIES))
        raise RulesError(f"unknown game {name!r} (known: {known})")
    return entry


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
        if codec.game != game:
            raise CatalogueError(f"game {game!r} is registered with the codec of {codec.game!r}")
        _CODECS[game] = codec
    return codec


def action_universe(name: str) -> Callable[[Any, int], list[Hashable]]:
    """The game's action-universe function (see :attr:`GameEntry.action_universe`)."""
    function: Callable[[Any, int], list[Hashable]] = load(get_entry(name).action_universe)
    return function


def _builtin(name: str, title: str, roster: Roster, viewer: ViewerSpec) -> GameEntry:
    """A built-in game: engine, codec and SDK modules named after the game."""
    return register(
        GameEntry(
            name=name,
            title=title,
            engine=f"referee.games.{name}:{name.upper()}",
            codec=f"referee.wire.{name}:CODEC",
            sdk=f"sdk.{name}",
            action_universe=f"referee.core.action_universes:{name}",
            roster=roster,
            viewer=viewer,
        )
    )


LIARS_DICE = _builtin(
    "liars_dice",
    "Liar's Dice",
    Roster(
        random="liars_dice_random",
        heuristic="liars_dice_probability",
        strong="liars_dice_posterior",
        counters=("liars_dice_counting",),
        counter_set=(
            "liars_dice_truthful",
            "liars_dice_never_challenge",
            "liars_dice_always_challenge",
            "liars_dice_always_bluff",
            "liars_dice_probability_05",
            "liars_dice_probability_10",
            "liars_dice_probability_20",
            "liars_dice_probability_30",
        ),
        exploit_rules=(  # OpenSpiel's liars_dice(numdice=1): docs/exploitability.md
            ("dice_per_player", "1"),
            ("raise_rule", "reset-face"),
            ("wild_face", "6"),
            ("wild_opening", "keep"),
            ("sum_endgame", "false"),
            ("one_round", "true"),
            ("roll_off", "false"),
        ),
    ),
    ViewerSpec(renderer="liars_dice", facts="referee.games.liars_dice:viewer_facts"),
)
"""The CFR bot (``liars_dice_cfr``) is not in the roster: it plays only tiny configurations."""
LIARS_POKER_DICE = _builtin(
    "liars_poker_dice",
    "Liar's Poker Dice",
    Roster(
        "liars_poker_dice_random",
        "liars_poker_dice_heuristic",
        "liars_poker_dice_strong",
        counter_set=(
            "liars_poker_dice_truthful",
            "liars_poker_dice_never_challenge",
            "liars_poker_dice_always_challenge",
            "liars_poker_dice_always_bluff",
            "liars_poker_dice_rule_out",
        ),
    ),
    ViewerSpec(renderer="liars_poker_dice"),
)
DICE_POKER = _builtin(
    "dice_poker",
    "Dice Poker",
    Roster("dice_poker_random", "dice_poker_heuristic", "dice_poker_optimal"),
    ViewerSpec(renderer="dice_poker"),
)
COCKROACH_POKER = _builtin(
    "cockroach_poker",
    "Cockroach Poker",
    Roster(
        "cockroach_poker_random",
        "cockroach_poker_heuristic",
        "cockroach_poker_strong",
        counter_set=(
            "cockroach_poker_truthful",
            "cockroach_poker_never_challenge",
            "cockroach_poker_always_challenge",
            "cockroach_poker_always_bluff",
        ),
        ladder_table_size=3,
    ),
    ViewerSpec(
        renderer="cockroach_poker",
        count_keys=frozenset({"hand", "face_up"}),
        count_labels="referee.games.cards:KINDS",
    ),
)
LIARS_POKER = _builtin(
    "liars_poker",
    "Liar's Poker",
    Roster(
        "liars_poker_random",
        "liars_poker_heuristic",
        "liars_poker_strong",
        counter_set=(
            "liars_poker_truthful",
            "liars_poker_never_challenge",
            "liars_poker_always_challenge",
            "liars_poker_always_bluff",
            "liars_poker_rule_out",
        ),
    ),
    ViewerSpec(renderer="liars_poker"),
)

BUILTIN_GAMES: tuple[str, ...] = tuple(_ENTRIES)
"""The five games that ship with the platform (tests with per-game tables cover these)."""
