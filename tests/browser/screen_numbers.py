"""What every screen must draw as numbers, read from the engine's state itself.

The renderers draw each number (a score, a total, a count, the bid to beat) as an
element marked ``data-num=KEY`` (and ``data-seat``; a category's or a rank's name in
``data-value``), the value taken from the engine's facts sent with the view. These
functions say, for a state and a view, which numbers must be drawn and what each is,
straight from the engine's state and rule functions (never from the facts the page
got): the browser tests compare the two as multisets, so a number the page computed
itself (Dice Poker's total without its upper bonus), left out or drawn twice fails.

``view``: a seat number (that seat's own view: a replay's seat view, a browser game),
``"all"`` (a replay's omniscient view) or ``"public"`` (a spectator: no seat).
"""

from __future__ import annotations

from typing import Any

from referee.core.catalogue import get_game
from referee.gamekit.cards import KINDS
from referee.gamekit.poker_dice import NUM_DICE

Number = tuple[str, int | None, str]
"""``(key, seat, value)`` as the page marks it (``data-num``, ``data-seat``, text)."""
Raw = tuple[str, int | None, Any]
"""A number as the engine gives it, before it is compared as text."""

COLLECT_NUMBERS = """(root) => [...(root || document).querySelectorAll("[data-num]")].map(n => [
  n.dataset.num,
  n.dataset.seat === undefined ? null : Number(n.dataset.seat),
  n.dataset.value !== undefined ? n.dataset.value : n.textContent])"""
"""Playwright: every number drawn under ``root`` (an element handle; the page if none)."""

_KIND_LABELS = [kind.name.lower() for kind in KINDS]


def _order(number: Number) -> tuple[str, int, str]:
    key, seat, value = number
    return key, -1 if seat is None else seat, value


def drawn(raw: list[list[Any]]) -> list[Number]:
    """What :data:`COLLECT_NUMBERS` returned, sorted for comparing."""
    return sorted(((str(k), None if s is None else int(s), str(v)) for k, s, v in raw), key=_order)


def expected_numbers(game: str, state: Any, view: int | str) -> list[Number]:
    """Every number a screen of ``game`` must draw at ``state`` in ``view``, sorted."""
    out = _EXPECTED[game](state, view)
    return sorted(((key, seat, str(value)) for key, seat, value in out), key=_order)


def _dice_poker(state: Any, view: int | str) -> list[Raw]:
    from referee.games.dice_poker.engine import (
        EXTRA_POKER_BONUS,
        MAX_ROLLS,
        NUM_TURNS,
        Line,
        Phase,
        Score,
        score_options,
    )

    engine = get_game("dice_poker")
    inclusive = state.rules.upper_bonus_inclusive
    out: list[Raw] = [("turn", None, state.turn), ("turns", None, NUM_TURNS)]
    if state.current is not None:
        out += [("rolls", None, state.rolls), ("max_rolls", None, MAX_ROLLS)]
    for seat, card in enumerate(state.cards):
        total = card.total(inclusive)
        out += [("total", seat, total), ("total", seat, total)]  # the seat's box, the card
        out += [
            ("line:" + line.name, seat, card.get(line)) for line in Line if not card.is_open(line)
        ]
        out += [
            ("upper", seat, sum(card.get(line) or 0 for line in Line if line.is_upper)),
            ("upper_bonus", seat, card.upper_bonus(inclusive)),
            ("extra_pokers", seat, card.extra_pokers),
            ("extra_bonus", seat, EXTRA_POKER_BONUS * card.extra_pokers),
        ]
    seat = state.current
    if state.phase is Phase.CHOOSE and seat is not None and state.dice:
        before = state.cards[seat].total(inclusive)
        for line, points in score_options(state.cards[seat], state.dice).items():
            after = engine.transition(state, seat, Score(line)).cards[seat].total(inclusive)
            out.append(("choice:" + line.name, seat, points))
            if after - before != points:
                out.append(("gain:" + line.name, seat, after - before))
    return out


def _liars_dice(state: Any, view: int | str) -> list[Raw]:
    from referee.games.liars_dice.engine import Bid

    out: list[Raw] = [("total_dice", None, sum(state.dice_counts))]
    if state.round_number:
        out.append(("round", None, state.round_number))
    out += [("dice", seat, count) for seat, count in enumerate(state.dice_counts)]
    if state.bids:
        bid = state.bids[-1].bid
        if isinstance(bid, Bid):
            out += [("bid_quantity", None, bid.quantity), ("bid_face", None, bid.face)]
        else:
            out.append(("bid_total", None, bid.total))
    if state.history:
        last = state.history[-1]
        out += [("reveal_actual", None, last.actual), ("reveal_loser", None, last.loser)]
    return out


def _liars_poker_dice(state: Any, view: int | str) -> list[Raw]:
    from referee.games.liars_poker_dice.engine import StepKind

    out: list[Raw] = [
        ("pot", None, state.pot),
        ("round", None, len(state.rounds) + 1),
    ]
    out += [("chips", seat, chips) for seat, chips in enumerate(state.chips)]
    declared = [step.hand for step in state.steps if step.kind is StepKind.DECLARE]
    if declared:
        hand = declared[-1]
        out.append(("declaration_category", None, hand.category.name))
        out += [("declaration_face", None, face) for face in hand.faces]
    if state.rounds:
        out.append(("reveal_loser", None, state.rounds[-1].loser))
    assert NUM_DICE == 5
    return out


def _cockroach_poker(state: Any, view: int | str) -> list[Raw]:
    engine = get_game("cockroach_poker")
    out: list[Raw] = [("set_aside", None, len(state.set_aside))]
    seats = range(state.num_seats)
    for seat in seats:
        hand = state.hands[seat] if state.dealt else (0,) * len(KINDS)
        face_up = state.face_up[seat] if state.dealt else (0,) * len(KINDS)
        face_down = len(state.face_down[seat]) if state.dealt else 0
        out.append(("hand_size", seat, sum(hand)))
        out += [
            ("face_up:" + label, seat, count)
            for label, count in zip(_KIND_LABELS, face_up, strict=True)
            if count
        ]
        if face_down and view != "all":  # the omniscient view draws their kinds instead
            out.append(("face_down", seat, face_down))
        out.append(("in_front", seat, sum(face_up) + face_down))
        sees_hand = (view == "all" and state.dealt) or view == seat
        if sees_hand:
            own = engine.observe(state, seat).hand if view == seat else hand
            out += [
                ("hand:" + label, seat, count)
                for label, count in zip(_KIND_LABELS, own, strict=True)
                if count
            ]
    return out


def _liars_poker(state: Any, view: int | str) -> list[Raw]:
    engine = get_game("liars_poker")
    rules = state.rules
    out: list[Raw] = [("deal", None, state.deal), ("stock", None, len(state.stock))]
    if not rules.chips_variant:
        out.append(("penalty_limit", None, rules.penalty_limit))
    for seat in range(state.num_seats):
        out.append(("penalties", seat, state.penalties[seat]))
        if not rules.chips_variant:
            out.append(("penalty_limit", seat, rules.penalty_limit))
        else:
            out.append(("chips", seat, state.chips[seat]))
    if state.phase in ("announce", "respond", "exchange", "draw"):
        if view == "all":
            face_up = bool(state.hand)
        else:
            face_up = view == state.holder and engine.observe(state, state.holder).hand is not None
        if not face_up:
            out.append(("held", state.holder, 5))
    if state.claims:
        announcement = state.claims[-1].announcement
        out.append(("announcement_category", None, announcement.category.name))
        out += [("announcement_rank", None, rank) for rank in announcement.ranks]
    if state.results:
        out.append(("reveal_penalised", None, state.results[-1].penalised))
    return out


_EXPECTED = {
    "dice_poker": _dice_poker,
    "liars_dice": _liars_dice,
    "liars_poker_dice": _liars_poker_dice,
    "cockroach_poker": _cockroach_poker,
    "liars_poker": _liars_poker,
}
