"""What a game registers: its entry in the catalogue, its example bots, its viewer.

Each game package's ``__init__`` holds one :class:`GameEntry` as ``ENTRY`` (the
built-in games under ``referee/games/``; an installed game names its package in the
``bluff_arena.games`` entry point group). The catalogue
(:mod:`referee.core.catalogue`) finds and registers them. Only strings here: listing
the games imports no engine.
"""

from __future__ import annotations

from dataclasses import dataclass


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

    ``renderer`` names a function of ``window.ArenaGames``; ``None`` draws the
    observation's fields generically. ``script`` (``"package:file"``, a package
    resource, usually the game folder's ``viewer.js``) is the game's own JavaScript
    that adds its renderer to ``window.ArenaGames``, drawing with the shared kit
    (``window.ArenaKit``, ``referee/records/viewer/games.js``); the page inlines it
    after the kit. ``count_keys`` are
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
    a rule: which dice count, and every number it draws (scores, totals, counts, the
    bid to beat); None when the renderer needs nothing."""
    public: str | None = None
    """``"module:function"``: one seat's observation with everything only that seat
    knows removed (its cup or hand, the true kind of a card it passed), told as seat
    0's: the same whichever seat's observation it came from. A spectator's table is
    drawn from it; None: the game has no public table (spectators read text only)."""
    hidden: str | None = None
    """``"module:function"``: every die and card the full engine state hides from some
    seat (each seat's cup or hand, cards set aside, ...), from the state after a step
    (``step.hidden`` in the page), JSON-ready; the renderer draws it face up in the
    omniscient view only, so that view shows every seat's hidden holdings at once. None
    when the game hides nothing (the omniscient view draws the public table)."""


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
    leak_rules: str | None = None
    """``"module:ATTRIBUTE"`` of ``(owners, knowledge[, public])``: what each seat may
    see, written from the rules, which the leak suite (tests/games/test_leak_generic.py)
    checks the engine against; ``None``: not checked."""
    baseline: str | None = None
    """``"module:ATTRIBUTE"`` of the game's luck baseline, an instance of a
    :class:`referee.gamekit.luck_baseline.Baseline` subclass (the built-in games':
    ``baseline.py``'s ``BASELINE``, its fitted data in ``baseline.json`` beside it), under
    which :mod:`referee.analysis.luck` measures the luck of the game's chance events;
    ``None``: a constant baseline (no correction)."""
    order: int = 1000
    """Where the game comes in listings (then by name): the built-in games are
    1..5, in the order of their rule texts."""
