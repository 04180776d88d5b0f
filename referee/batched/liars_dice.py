"""Liar's Dice, N games at once in numpy: the scalar engine's rules, vectorised.

    env = LiarsDiceBatch({"dice_per_player": "2"}, num_seats=2)
    state = env.reset(np.arange(1024))            # one seed per game
    while training:
        actions = policy(env.observe(state), state.legal_action_mask)
        state = env.step(state, actions)          # finished games restart by themselves
        learn(state.rewards, state.terminated)

Rules are the scalar engine's (:class:`referee.games.liars_dice.engine.Rules`, or the
option text ``LIARS_DICE.parse_rules`` takes); every option is supported, and any
option this module does not know is refused with :class:`UnsupportedRulesError` (so
a rule added to the scalar engine cannot be silently ignored here). Seats: 2..10.

Action ids are the indices of
:func:`referee.games.liars_dice.universe.action_universe` (``rules``, ``num_seats``):
0 is ``Challenge``, ``1 + 6 * (q - 1) + (f - 1)`` is ``Bid(q, f)`` for ``q`` up to
``dice_per_player * num_seats``, then ``SumBid(2..12)``.

**Decisions only.** ``step`` takes one action per game (the seat in
``current_player`` acts) and draws every chance event that follows inside the same
call: the round's dice after a challenge, the roll-off and the first roll of a new
game. A state is always at a decision.

**Auto-reset.** When ``step`` ends game ``i`` (its last challenge), the returned state
has ``terminated[i] = True`` and ``rewards[i]`` the final rewards (seat ``s`` gets
``1 - 2 * (place - 1) / (num_seats - 1)``, as ``sdk.pettingzoo_env``), and everything
else of game ``i`` (the dice, ``current_player``, the mask, the observations) already
belongs to its next game. ``rewards`` and ``terminated`` are zero/false for every
game that did not end in that step. ``episode[i]`` counts the games slot ``i`` started.

**Chance.** Dice come from a counter-based hash (splitmix64) of (seed of the slot,
episode, chance event, die), so game ``i`` deals the same whatever else is in the
batch and however it is split; refereed matches keep their keyed HMAC stream, this
is for training only. ``hands[i, s, :dice_counts[i, s]]`` are seat ``s``'s dice in
the order the scalar engine's ``apply_chance`` takes them (seats in order, each
seat's dice in order); ``roll_offs`` lists the roll-off throws of the games that
started in the last call (for replaying them elsewhere).

**Observations** (:meth:`LiarsDiceBatch.observe`): float32, seats relative to the
observer (``r`` means seat ``(observer + r) % num_seats``); with ``S`` seats and
``A`` actions the layout of :class:`ObsLayout` is

=============== ====== ==================================================
slice           width  meaning
=============== ====== ==================================================
``own``         6      how many of the observer's dice show face 1..6
``counts``      S      dice each seat holds (relative order)
``to_act``      S      one-hot: the seat to act
``opener``      S      one-hot: the seat that opened this round
``bidder``      S      one-hot: the seat that made the last bid (zeros: none)
``last_bid``    A      one-hot over the action ids: the bid to beat (zeros: none)
``made``        A      every bid made this round (the round's bid set)
``flags``       3      wilds active, sum round, round number
=============== ====== ==================================================

Past rounds (their reveals) are not encoded, as in ``sdk.pettingzoo_env``.
"""

# long module: one game's whole rules vectorised (chance, the state, the legal-set
# tables, the step with its challenge and restarts, observations and their decoding),
# kept together so the parity tests read it against the scalar engine in one place

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from referee.gamekit.base import IllegalActionError, RulesError
from referee.gamekit.dice import FACES, SIDES
from referee.games.liars_dice.engine import (
    LIARS_DICE,
    MAX_DICE_PER_PLAYER,
    MAX_SEATS,
    RAISE_RULES,
    ROLL_OFF_DICE,
    WILD_FACES,
    WILD_OPENINGS,
    Bid,
    Challenge,
    Rules,
    SumBid,
)
from referee.games.liars_dice.universe import action_universe

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float32]

SUPPORTED: Final[Mapping[str, tuple[object, ...]]] = {
    "dice_per_player": tuple(range(1, MAX_DICE_PER_PLAYER + 1)),
    "raise_rule": RAISE_RULES,
    "wild_face": WILD_FACES,
    "wild_opening": WILD_OPENINGS,
    "sum_endgame": (True, False),
    "one_round": (True, False),
    "roll_off": (True, False),
    "spelled_defaults": (),  # how the rules were written, not a rule
}
"""Every rule option the batched engine plays, with the values it plays."""
SEATS: Final = range(2, MAX_SEATS + 1)
"""Seat counts the batched engine plays."""
LEGAL_TABLE_LIMIT: Final = 1 << 23
"""Largest (last bid, dice on the table) × action table kept for the mask, in bytes."""


class UnsupportedRulesError(RulesError):
    """A rule option (or seat count) the batched engine does not play: the message
    names the option and its value."""


def check_supported(rules: Any, num_seats: int) -> None:
    """Raise :class:`UnsupportedRulesError` unless every option of ``rules`` and
    ``num_seats`` is one the batched engine plays."""
    if num_seats not in SEATS:
        raise UnsupportedRulesError(
            f"num_seats={num_seats!r}: the batched engine plays {SEATS.start}..{SEATS.stop - 1}"
        )
    for option in fields(rules):
        value = getattr(rules, option.name)
        if option.name not in SUPPORTED:
            raise UnsupportedRulesError(
                f"{option.name}={value!r}: the batched engine does not know this rule option"
            )
        allowed = SUPPORTED[option.name]
        if allowed and (
            value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool)
        ):
            raise UnsupportedRulesError(
                f"{option.name}={value!r}: the batched engine plays {', '.join(map(repr, allowed))}"
            )


# ---------------------------------------------------------------------------
# Chance: a counter-based hash, so a game's dice do not depend on its batch

_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_M1: Final = np.uint64(0xBF58476D1CE4E5B9)
_M2: Final = np.uint64(0x94D049BB133111EB)


def _mix(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser, element-wise (uint64 arithmetic wraps)."""
    x = x + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


def slot_keys(seeds: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Each slot's chance key: its seed (an integer), mixed."""
    return _mix(np.asarray(seeds, dtype=np.int64).astype(np.uint64).reshape(-1))


def roll(
    keys: npt.NDArray[np.uint64], episodes: Ints, events: Ints, dice: int
) -> npt.NDArray[np.int8]:
    """``dice`` dice (1..6) per game: the chance event ``events[i]`` (< 2**32) of
    episode ``episodes[i]`` of the slot keyed ``keys[i]`` (:func:`slot_keys`); shape
    ``(len(keys), dice)``: splitmix64's finaliser of key + counter × golden ratio +
    die × another odd constant, the counter being (episode, event)."""
    counter = ((episodes << 32) + events).astype(np.uint64) * _GOLDEN + keys
    drawn = _mix(counter[:, None] + _DIE_STEPS[:dice][None, :])
    return ((drawn >> np.uint64(11)) % np.uint64(SIDES) + np.uint64(1)).astype(np.int8)


_DIE_STEPS: Final = np.arange(1, MAX_SEATS * MAX_DICE_PER_PLAYER + 1, dtype=np.uint64) * _M1


# ---------------------------------------------------------------------------
# The state


CUR, OPENER, ROUND, LAST, BIDDER, WILDS, SUM_ROUND, EPISODE, EVENTS, TOTAL = range(10)
"""Columns of :attr:`BatchState.ints` (one array, so a step copies and a new round
writes one array, not ten)."""


@dataclass(frozen=True, slots=True)
class BatchState:
    """N games at a decision. Arrays are indexed by game first; treat them as
    read-only (``step`` returns a new state and never changes its argument; arrays
    a step leaves alone are shared with the state before)."""

    ints: Ints
    """(N, 10) the per-game numbers; read them through the properties below."""
    legal_action_mask: Bools
    """(N, num_actions) the actions that seat may take (action ids of the universe)."""
    rewards: Floats
    """(N, seats) final rewards of the games the last ``step`` ended; else zeros."""
    terminated: Bools
    """(N,) whether the last ``step`` ended the game (the slot already holds the next)."""
    dice_counts: Ints
    """(N, seats) dice each seat holds."""
    hands: npt.NDArray[np.int8]
    """(N, seats, dice_per_player) each seat's dice this round, 0 past its count."""
    made: Bools
    """(N, num_actions) the bids made this round."""
    eliminated_at: Ints
    """(N, seats) when each seat went out (0 first), -1 while it has dice."""
    keys: npt.NDArray[np.uint64]
    """(N,) each slot's chance key (:func:`slot_keys` of its seed)."""
    legal_key: Ints | None = None
    """(N,) the row of the engine's table of legal sets, when it keeps one."""
    roll_offs: tuple[tuple[npt.NDArray[np.int8], Bools], ...] = ()
    """The roll-offs of the games that started in the call that made this state:
    ``(dice (N, seats, 2), rolled (N, seats))`` per throw, in order."""

    @property
    def num_games(self) -> int:
        return len(self.ints)

    @property
    def current_player(self) -> Ints:
        """(N,) the seat to act in each game."""
        return self.ints[:, CUR]

    @property
    def opener(self) -> Ints:
        """(N,) the seat that opened this round."""
        return self.ints[:, OPENER]

    @property
    def round_number(self) -> Ints:
        """(N,) 1-based."""
        return self.ints[:, ROUND]

    @property
    def last_bid(self) -> Ints:
        """(N,) action id of the bid to beat, -1 when none."""
        return self.ints[:, LAST]

    @property
    def last_bidder(self) -> Ints:
        """(N,) the seat that made it, -1 when none."""
        return self.ints[:, BIDDER]

    @property
    def wilds_active(self) -> Bools:
        """(N,) whether wild dice count in this round (so far)."""
        active: Bools = self.ints[:, WILDS] != 0
        return active

    @property
    def sum_round(self) -> Bools:
        """(N,) whether this round bids on the sum of two dice."""
        summing: Bools = self.ints[:, SUM_ROUND] != 0
        return summing

    @property
    def episode(self) -> Ints:
        """(N,) games this slot has started (1 after reset)."""
        return self.ints[:, EPISODE]

    @property
    def events(self) -> Ints:
        """(N,) chance events drawn in the current game."""
        return self.ints[:, EVENTS]

    @property
    def total_dice(self) -> Ints:
        """(N,) dice on the table."""
        return self.ints[:, TOTAL]


@dataclass(frozen=True, slots=True)
class ObsLayout:
    """Where each part of an observation vector sits (see the module doc)."""

    own: slice
    counts: slice
    to_act: slice
    opener: slice
    bidder: slice
    last_bid: slice
    made: slice
    flags: slice
    size: int


# ---------------------------------------------------------------------------
# The engine


class LiarsDiceBatch:
    """Liar's Dice for one rule set and seat count, N games at a time (module doc)."""

    def __init__(self, rules: Rules | Mapping[str, str | bool | int], num_seats: int = 2) -> None:
        if isinstance(rules, Mapping):
            rules = LIARS_DICE.parse_rules(dict(rules))
        check_supported(rules, num_seats)
        LIARS_DICE.validate_rules(rules)
        self.rules: Rules = rules
        self.num_seats = num_seats
        self.dice = rules.dice_per_player
        self.universe = action_universe(rules, num_seats)
        self.num_actions = len(self.universe)
        self.index = {action: i for i, action in enumerate(self.universe)}
        """Action id of each action of the universe."""
        self.max_total = rules.dice_per_player * num_seats
        self._tables()
        s, a = num_seats, self.num_actions
        widths = {
            "own": SIDES,
            "counts": s,
            "to_act": s,
            "opener": s,
            "bidder": s,
            "last_bid": a,
            "made": a,
            "flags": 3,
        }
        slices, at = {}, 0
        for name, width in widths.items():
            slices[name] = slice(at, at + width)
            at += width
        self.layout = ObsLayout(**slices, size=at)

    def _tables(self) -> None:
        """What the mask and the challenge read, per action id."""
        a = self.num_actions
        wild = self.rules.wild
        self.quantity = np.zeros(a, np.int64)
        """A face bid's quantity, a sum bid's total (what the reveal must reach)."""
        self.face = np.zeros(a, np.int64)
        self.is_sum = np.zeros(a, np.bool_)
        self.is_face_bid = np.zeros(a, np.bool_)
        for index, action in enumerate(self.universe):
            if isinstance(action, Bid):
                self.quantity[index], self.face[index] = action.quantity, action.face
                self.is_face_bid[index] = True
            elif isinstance(action, SumBid):
                self.quantity[index] = action.total
                self.is_sum[index] = True
            else:
                assert isinstance(action, Challenge) and index == 0
        self.cancels_wilds = (
            self.is_face_bid & (self.face == (wild or 0)) & (self.rules.wild_opening == "cancel")
        )
        # raise_after[row, action]: rows are the action ids of the last bid, then
        # "no bid yet" in a face round (row a) and in a sum round (row a + 1).
        raises = np.zeros((a + 2, a), np.bool_)
        raises[a] = self.is_face_bid
        raises[a + 1] = self.is_sum
        q0, f0 = self.quantity[:, None], self.face[:, None]  # the last bid, by row
        q, f = self.quantity[None, :], self.face[None, :]  # the new bid, by column
        rule = self.rules.raise_rule
        if rule == "same-face-or-same-quantity":
            face_raise = ((f == f0) & (q > q0)) | ((q == q0) & (f > f0))
        elif rule == "quantity-or-face":
            face_raise = (q > q0) | (f > f0)
        else:
            assert rule == "reset-face"
            face_raise = (q > q0) | ((q == q0) & (f > f0))
        both_face = self.is_face_bid[:, None] & self.is_face_bid[None, :]
        both_sum = self.is_sum[:, None] & self.is_sum[None, :]
        raises[:a] = (both_face & face_raise) | (both_sum & (q > q0))
        self.raise_after = raises
        # quantity_ok[total, action]: face bids up to the dice on the table; totals always
        self.quantity_ok = np.stack(
            [
                self.is_sum | (self.is_face_bid & (self.quantity <= t))
                for t in range(self.max_total + 1)
            ]
        )
        # Under same-face-or-same-quantity and reset-face a bid is never repeated by a
        # raise (both its quantity and face, or the pair in order, only go up); only
        # quantity-or-face can cycle, so only it needs the round's bids in the mask.
        self.check_made = self.rules.raise_rule == "quantity-or-face"
        # When it is small, one table of every legal set, by key = row * (T + 1) +
        # total (a row below a: a bid to challenge); without the round's bids to
        # leave out, the key alone gives the legal set, and a list of it to sample from.
        rows, totals = a + 2, self.max_total + 1
        self.legal_table: Bools | None = None
        self.legal_lists: npt.NDArray[np.int16] | None = None
        self.legal_counts: Ints | None = None
        if rows * totals * a <= LEGAL_TABLE_LIMIT:
            table = raises[:, None, :] & self.quantity_ok[None, :, :]
            table[:a, :, 0] = True
            self.legal_table = table.reshape(-1, a)
            if not self.check_made:
                self.legal_counts = self.legal_table.sum(axis=1)
                order = np.argsort(~self.legal_table, axis=1, kind="stable")
                self.legal_lists = order.astype(np.int16)
        self.face8 = self.face.astype(np.int8)
        self.cancels_any = bool(self.cancels_wilds.any())
        self._die_slots = np.arange(self.dice)
        fresh = np.zeros(10, np.int64)
        fresh[[LAST, BIDDER]] = -1
        fresh[TOTAL] = self.max_total
        self._fresh = fresh
        """A new game's row of ``ints`` before its first round."""
        self._offsets = np.arange(1, self.num_seats + 1)
        self._arange = np.arange(0)
        self._row_starts = np.arange(0)
        self._faces = np.array(FACES, np.int8)

    # -- chance ------------------------------------------------------------------

    def _roll_round(self, w: dict[str, Any], games: Ints, sub: Ints, full: bool) -> None:
        """Throw the round's dice of ``games`` (``sub``: their rows of ``ints``): every
        die slot is drawn, those past a seat's count are zeroed (so a die's value never
        depends on the counts); ``full``: every seat holds all its dice."""
        s, d = self.num_seats, self.dice
        drawn = roll(w["keys"][games], sub[:, EPISODE], sub[:, EVENTS], s * d)
        sub[:, EVENTS] += 1
        drawn = drawn.reshape(len(games), s, d)
        if not full:
            has = self._die_slots[None, None, :] < w["dice_counts"][games][:, :, None]
            drawn = np.where(has, drawn, np.int8(0))
        w["hands"][games] = drawn

    def _roll_off(self, w: dict[str, Any], games: Ints, sub: Ints) -> Ints:
        """The roll-off of ``games`` (the tied highest throw again): who opens each."""
        s, n = self.num_seats, len(w["ints"])
        opener = np.full(len(games), -1, np.int64)
        contenders = np.ones((len(games), s), np.bool_)
        active = np.arange(len(games))
        while active.size:
            g = games[active]
            dice = roll(w["keys"][g], sub[active, EPISODE], sub[active, EVENTS], s * 2)
            dice = dice.reshape(len(g), s, ROLL_OFF_DICE)
            sub[active, EVENTS] += 1
            rolling = contenders[active]
            thrown = np.zeros((n, s, ROLL_OFF_DICE), np.int8)
            thrown[g] = np.where(rolling[:, :, None], dice, 0)
            rolled = np.zeros((n, s), np.bool_)
            rolled[g] = rolling
            w["roll_offs"].append((thrown, rolled))
            sums = np.where(rolling, dice.sum(axis=2, dtype=np.int64), -1)
            best = sums == sums.max(axis=1, keepdims=True)
            tied = best.sum(axis=1) > 1
            opener[active[~tied]] = best[~tied].argmax(axis=1)
            contenders[active] = best
            active = active[tied]
        return opener

    # -- the state machine -------------------------------------------------------

    def reset(self, seeds: npt.ArrayLike) -> BatchState:
        """A new game in each slot, slot ``i`` seeded ``seeds[i]`` (integers)."""
        keys = slot_keys(seeds)
        n, s, a = len(keys), self.num_seats, self.num_actions
        w: dict[str, Any] = {
            "ints": np.zeros((n, 10), np.int64),
            "rewards": np.zeros((n, s), np.float32),
            "terminated": np.zeros(n, np.bool_),
            "dice_counts": np.full((n, s), self.dice, np.int64),
            "hands": np.zeros((n, s, self.dice), np.int8),
            "made": np.zeros((n, a), np.bool_),
            "eliminated_at": np.full((n, s), -1, np.int64),
            "keys": keys,
            "roll_offs": [],
        }
        self._new_games(w, np.arange(n))
        return self._finish(w)

    def step(self, state: BatchState, actions: npt.ArrayLike) -> BatchState:
        """Every game's ``current_player`` takes ``actions[i]``; chance follows; ended
        games restart (module doc). Raises :class:`IllegalActionError` (naming the
        first game) when an action is outside its game's mask."""
        actions = np.asarray(actions, dtype=np.int64)
        n = state.num_games
        if actions.shape != (n,):
            raise ValueError(f"expected {n} actions, got shape {actions.shape}")
        rows = self._rows(n)
        inside = n == 0 or (actions.min() >= 0 and actions.max() < self.num_actions)
        flat = self._row_starts + actions if inside else rows  # (n, action) in a flat (N, A)
        if not (inside and state.legal_action_mask.reshape(-1).take(flat).all()):
            clipped = np.clip(actions, 0, self.num_actions - 1)
            legal = (actions == clipped) & state.legal_action_mask[rows, clipped]
            bad = np.flatnonzero(~legal)
            raise IllegalActionError(
                f"action {int(actions[bad[0]])} is not legal in game {int(bad[0])}"
                f" ({len(bad)} game(s) with an illegal action; see legal_action_mask)"
            )
        before = state.ints
        ints = before.copy()
        seat, last = before[:, CUR], before[:, LAST]
        bid = actions != 0
        if self.cancels_any:
            cancel = bid & (last < 0) & self.cancels_wilds[actions]
            ints[:, WILDS] = np.where(cancel, 0, before[:, WILDS])
        made = state.made.copy()
        cells = made.reshape(-1)
        cells[flat] = cells[flat] | bid  # column 0 (challenge) stays false
        ints[:, LAST] = np.where(bid, actions, last)
        ints[:, BIDDER] = np.where(bid, seat, before[:, BIDDER])
        # two seats: the other one (a seat without dice has ended the game)
        following = 1 - seat if self.num_seats == 2 else self._next_active(state.dice_counts, seat)
        ints[:, CUR] = np.where(bid, following, seat)
        w: dict[str, Any] = {
            "ints": ints,
            "rewards": np.zeros_like(state.rewards),
            "terminated": np.zeros_like(state.terminated),
            "dice_counts": state.dice_counts,
            "hands": state.hands,
            "made": made,
            "eliminated_at": state.eliminated_at,
            "keys": state.keys,
            "roll_offs": [],
        }
        games = np.flatnonzero(~bid)
        if games.size:
            # one-round games end at their challenge and restart as they began
            changed = ("hands",) if self.rules.one_round else _CHANGED_BY_CHALLENGES
            for name in changed:
                w[name] = w[name].copy()
            self._challenge(w, games, seat[games], last[games])
        return self._finish(w)

    def _finish(self, w: dict[str, Any]) -> BatchState:
        ints = w["ints"]
        last = ints[:, LAST]
        bidding = last >= 0
        row = np.where(bidding, last, self.num_actions + ints[:, SUM_ROUND])
        total = ints[:, TOTAL]
        if self.legal_table is not None:
            key = row * (self.max_total + 1) + total
            mask = np.take(self.legal_table, key, axis=0)
            w["legal_key"] = key
        else:
            mask = np.take(self.raise_after, row, axis=0)
            mask &= np.take(self.quantity_ok, total, axis=0)
            mask[:, 0] = bidding
            w["legal_key"] = None
        if self.check_made:
            mask &= ~w["made"]
        w["legal_action_mask"] = mask
        w["roll_offs"] = tuple(w["roll_offs"])
        return BatchState(**w)

    def _challenge(self, w: dict[str, Any], games: Ints, challengers: Ints, last: Ints) -> None:
        hands = np.take(w["hands"], games, axis=0)  # (np.take: faster than [games])
        sub = np.take(w["ints"], games, axis=0)
        counting = hands == self.face8[last][:, None, None]
        wild = self.rules.wild
        if wild is not None:
            counting |= (hands == wild) & (sub[:, WILDS] != 0)[:, None, None]
        k = len(games)
        actual = counting.reshape(k, -1).sum(axis=1)
        if self.rules.sum_endgame:
            sums = hands.reshape(k, -1).sum(axis=1, dtype=np.int64)
            actual = np.where(self.is_sum[last], sums, actual)
        loser = np.where(actual >= self.quantity[last], challengers, sub[:, BIDDER])
        if self.rules.one_round:  # the loser places last, the others share first
            w["rewards"][games] = 1.0
            w["rewards"][games, loser] = -1.0
            w["terminated"][games] = True
            self._new_games(w, games)
            return
        counts = w["dice_counts"]
        counts[games, loser] -= 1
        out = counts[games, loser] == 0
        if out.any():
            gone = games[out]
            w["eliminated_at"][gone, loser[out]] = _across(w["eliminated_at"][gone] >= 0)
        sub[:, TOTAL] -= 1
        over = _across(counts[games] > 0) <= 1
        ended = games[over]
        if ended.size:
            if self.num_seats == 2:  # the loser has lost its last die
                w["rewards"][ended] = 1.0
                w["rewards"][ended, loser[over]] = -1.0
            else:
                w["rewards"][ended] = self.rewards_of(counts[ended], w["eliminated_at"][ended])
            w["terminated"][ended] = True
            self._new_games(w, ended)
        going = ~over
        if going.any():
            g, lost, rest = games[going], loser[going], sub[going]
            opener = np.where(out[going], self._next_active(counts[g], lost), lost)
            self._start_round(w, g, rest, opener, full=False)

    def _rows(self, n: int) -> Ints:
        """``arange(n)``, kept between calls."""
        if len(self._arange) != n:
            self._arange = np.arange(n)
            self._row_starts = self._arange * self.num_actions
        return self._arange

    def _next_active(self, counts: Ints, seat: Ints) -> Ints:
        """The next seat clockwise after each ``seat`` that still has dice."""
        candidates = (seat[:, None] + self._offsets[None, :]) % self.num_seats
        has = np.take_along_axis(counts, candidates, axis=1) > 0
        return candidates[np.arange(len(seat)), has.argmax(axis=1)]  # type: ignore[no-any-return]

    def rewards_of(self, counts: Ints, eliminated_at: Ints) -> Floats:
        """Final rewards: places as the scalar engine's standings (the later a seat went
        out the better; seats left rank by their dice), then ``1 - 2 (place - 1) / (S - 1)``."""
        key = np.where(eliminated_at >= 0, eliminated_at, self.num_seats + counts)
        if self.num_seats == 2:  # the better seat +1, the other -1 (no ties at the end)
            first = np.where(key[:, 0] > key[:, 1], 1.0, -1.0).astype(np.float32)
            return np.stack([first, -first], axis=1)
        place: Ints = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
        rewards: Floats = (1.0 - 2.0 * (place - 1) / (self.num_seats - 1)).astype(np.float32)
        return rewards

    def _new_games(self, w: dict[str, Any], games: Ints) -> None:
        sub = np.empty((len(games), 10), np.int64)
        sub[:] = self._fresh
        sub[:, EPISODE] = w["ints"][games, EPISODE] + 1
        if not self.rules.one_round:  # (one-round games never change them)
            w["dice_counts"][games] = self.dice
            w["eliminated_at"][games] = -1
        if self.rules.roll_off:
            opener = self._roll_off(w, games, sub)
        else:
            opener = np.zeros(len(games), np.int64)
        self._start_round(w, games, sub, opener, full=True)

    def _start_round(
        self, w: dict[str, Any], games: Ints, sub: Ints, opener: Ints, *, full: bool
    ) -> None:
        """Round ``+1`` of ``games`` (``sub``: their rows of ``ints``, written back)."""
        sub[:, CUR] = opener
        sub[:, OPENER] = opener
        sub[:, ROUND] += 1
        sub[:, LAST] = -1
        sub[:, BIDDER] = -1
        if self.rules.sum_endgame and not full:
            counts = w["dice_counts"][games]
            sum_round = (_across(counts > 0) == 2) & (sub[:, TOTAL] == 2)
            sub[:, SUM_ROUND] = sum_round
            sub[:, WILDS] = (self.rules.wild is not None) & ~sum_round
        else:  # a new game: a sum round only with two seats of one die each
            summing = self.rules.sum_endgame and full and self.max_total == 2
            sub[:, SUM_ROUND] = summing
            sub[:, WILDS] = self.rules.wild is not None and not summing
        w["made"][games] = False
        self._roll_round(w, games, sub, full)
        w["ints"][games] = sub

    def random_actions(self, state: BatchState, rng: np.random.Generator) -> Ints:
        """One uniformly random legal action per game: from the engine's lists of legal
        sets when it keeps them (a few operations on N numbers), else over the mask."""
        if self.legal_lists is not None and state.legal_key is not None:
            assert self.legal_counts is not None
            counts = self.legal_counts[state.legal_key]
            picks = (rng.random(len(counts)) * counts).astype(np.int64)
            return self.legal_lists[state.legal_key, picks].astype(np.int64)
        mask = state.legal_action_mask
        scores = rng.random(mask.shape, dtype=np.float32) * mask
        return scores.argmax(axis=1)  # type: ignore[no-any-return]

    # -- observations ----------------------------------------------------------------

    def observe(self, state: BatchState, seat: int | npt.ArrayLike | None = None) -> Floats:
        """(N, layout.size) float32: each game seen by ``seat`` (an int, one seat per
        game, or ``None`` for the seat to act); the layout is the module doc's."""
        n, s, lay = state.num_games, self.num_seats, self.layout
        rows = np.arange(n)
        if seat is None:
            seats = state.current_player
        else:
            seats = np.broadcast_to(np.asarray(seat, dtype=np.int64), (n,))
        out = np.zeros((n, lay.size), np.float32)
        hand = state.hands[rows, seats]
        out[:, lay.own] = (hand[:, :, None] == self._faces[None, None, :]).sum(axis=1)
        absolute = (seats[:, None] + np.arange(s)[None, :]) % s
        out[:, lay.counts] = np.take_along_axis(state.dice_counts, absolute, axis=1)
        for part, who in (
            (lay.to_act, state.current_player),
            (lay.opener, state.opener),
            (lay.bidder, state.last_bidder),
        ):
            has = who >= 0
            out[rows[has], part.start + (who[has] - seats[has]) % s] = 1.0
        has = state.last_bid >= 0
        out[rows[has], lay.last_bid.start + state.last_bid[has]] = 1.0
        out[:, lay.made] = state.made
        out[:, lay.flags.start] = state.wilds_active
        out[:, lay.flags.start + 1] = state.sum_round
        out[:, lay.flags.start + 2] = state.round_number
        return out

    def observe_all(self, state: BatchState) -> Floats:
        """(N, seats, layout.size): every seat's observation."""
        return np.stack([self.observe(state, seat) for seat in range(self.num_seats)], axis=1)

    def decode(self, vector: Floats, seat: int) -> dict[str, Any]:
        """One observation vector of ``seat`` back in the scalar Observation's terms
        (absolute seats, actions from the universe); -1/None where there is none."""
        lay, s = self.layout, self.num_seats

        def seat_of(part: slice) -> int | None:
            hot = np.flatnonzero(vector[part])
            return None if hot.size == 0 else (int(hot[0]) + seat) % s

        def action_of(index: int) -> Any:
            return self.universe[index]

        own = {face: int(vector[lay.own][face - 1]) for face in FACES}
        counts = [0] * s
        for r, count in enumerate(vector[lay.counts]):
            counts[(seat + r) % s] = int(count)
        last = np.flatnonzero(vector[lay.last_bid])
        return {
            "own_faces": {face: k for face, k in own.items() if k},
            "dice_counts": tuple(counts),
            "to_act": seat_of(lay.to_act),
            "opener": seat_of(lay.opener),
            "last_bidder": seat_of(lay.bidder),
            "last_bid": action_of(int(last[0])) if last.size else None,
            "made": frozenset(action_of(int(i)) for i in np.flatnonzero(vector[lay.made])),
            "wilds_active": bool(vector[lay.flags][0]),
            "sum_round": bool(vector[lay.flags][1]),
            "round_number": int(vector[lay.flags][2]),
        }


_CHANGED_BY_CHALLENGES: Final = ("dice_counts", "hands", "eliminated_at")
"""The arrays a challenge changes (``step`` copies them first)."""


def _across(values: npt.NDArray[Any]) -> Ints:
    """Each row's sum over the seats (axis 1): column by column, which numpy does
    several times faster than ``sum(axis=1)`` over a few seats."""
    total = values[:, 0].astype(np.int64)
    for seat in range(1, values.shape[1]):
        total += values[:, seat]
    return total


def make(
    rules: Rules | Mapping[str, str | bool | int] | None = None, num_seats: int = 2
) -> LiarsDiceBatch:
    """The batched engine for ``rules`` (default rules when ``None``)."""
    return LiarsDiceBatch(Rules() if rules is None else rules, num_seats)


__all__ = [
    "SUPPORTED",
    "BatchState",
    "LiarsDiceBatch",
    "ObsLayout",
    "UnsupportedRulesError",
    "check_supported",
    "make",
    "roll",
    "slot_keys",
]
