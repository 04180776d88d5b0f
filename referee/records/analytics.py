"""Bluff analytics: who lies, who calls, and who calls right, judged from the record.

A record holds every chance outcome, so re-simulating it with the engine gives the
full state at every decision, hidden dice and cards included. That is enough to
say, for every claim, whether it was true when it was made, and for every
challenge, whether it hit a lie. The definitions (also in ``docs/bots.md``,
"Bluff analytics"):

* A **claim** asserts something about hidden information: a Liar's Dice bid (face
  or sum), a Liar's Poker Dice declaration, a Cockroach Poker announcement, a
  Liar's Poker announcement. It is **true when made** if the game's own challenge
  rule, applied to the full state right then, would find it true: wilds (as they
  stand once the bid is placed: an opening bid on the wild face cancels them), the
  sum endgame, poker-hand containment with jokers, the passed card's true kind.
  The engine judges it (:meth:`~referee.gamekit.base.Game.claim_truth`), so the rule
  is written once, next to the challenge that applies it.
* A **challenge** disputes the last claim: ``Challenge`` in the dice games and in
  Liar's Poker, ``Disbelieve`` in Cockroach Poker (turning the card up is calling
  the claim false). Accepting or believing is not a challenge. An **opportunity**
  is a decision at which the engine would have accepted a challenge from that seat.
* Per seat: **bluff rate** = false claims / claims; **challenge rate** =
  challenges / opportunities; **challenge accuracy** = challenges whose target
  claim was false / challenges; **wrongly challenged** = the seat's true claims
  that an opponent challenged / the seat's true claims.

A forfeited record counts every decision made before the fault (the faulty answer
is not in the record); aborted matches are for the caller to skip. Dice Poker has
no claims (its engine has no ``challenge_action``): :func:`claim_rules` returns
``None`` for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from referee.core.catalogue import get_game
from referee.core.driver import MatchDriver
from referee.core.events import ActionEvent, Event
from referee.gamekit.base import GameError, IllegalActionError
from referee.records.record import MatchRecord


class AnalyticsError(Exception):
    """A record whose events the engine cannot replay, so nothing can be judged."""


@dataclass(frozen=True, slots=True)
class BluffStats:
    """One seat's (or one bot's, summed) claim and challenge counts.

    Counts rather than rates, so that matches add up exactly; the rates are
    derived and are ``None`` when their denominator is zero.
    """

    claims: int = 0
    false_claims: int = 0
    """Claims that were false when made (bluffs)."""
    opportunities: int = 0
    """Decisions at which a challenge was legal."""
    challenges: int = 0
    correct_challenges: int = 0
    """Challenges whose target claim was false."""
    true_claims_challenged: int = 0
    """This seat's true claims that an opponent challenged (wrongly)."""

    def __add__(self, other: BluffStats) -> BluffStats:
        return BluffStats(
            *(getattr(self, f.name) + getattr(other, f.name) for f in fields(BluffStats))
        )

    @property
    def true_claims(self) -> int:
        return self.claims - self.false_claims

    @property
    def bluff_rate(self) -> float | None:
        return _rate(self.false_claims, self.claims)

    @property
    def challenge_rate(self) -> float | None:
        return _rate(self.challenges, self.opportunities)

    @property
    def challenge_accuracy(self) -> float | None:
        return _rate(self.correct_challenges, self.challenges)

    @property
    def wrongly_challenged(self) -> float | None:
        return _rate(self.true_claims_challenged, self.true_claims)

    def ratios(self) -> dict[str, tuple[int, int]]:
        """The four numbers as (numerator, denominator), by their JSON names."""
        return {
            "bluff_rate": (self.false_claims, self.claims),
            "challenge_rate": (self.challenges, self.opportunities),
            "challenge_accuracy": (self.correct_challenges, self.challenges),
            "wrongly_challenged": (self.true_claims_challenged, self.true_claims),
        }

    def as_json(self) -> dict[str, object]:
        """Counts and rates (rounded to 4 places; ``None`` for 0/0)."""
        counts: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(BluffStats)}
        counts["true_claims"] = self.true_claims
        for name, (part, whole) in self.ratios().items():
            rate = _rate(part, whole)
            counts[name] = None if rate is None else round(rate, 4)
        return counts


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def format_ratio(part: int, whole: int) -> str:
    """``23% (41/178)``; ``-`` when nothing was counted."""
    if not whole:
        return "-"
    return f"{part / whole:.0%} ({part}/{whole})"


@dataclass(frozen=True, slots=True)
class ClaimRules:
    """How one game's claims and challenges are recognised and judged: the engine's
    own :attr:`~referee.gamekit.base.Game.challenge_action` and
    :meth:`~referee.gamekit.base.Game.claim_truth`."""

    challenge: object
    """The action that challenges the last claim."""
    judge: Callable[[Any, Any], bool | None]
    """``judge(before, action)``: for a claim, whether it is true in the full state
    ``before`` it; ``None`` for an action that is not a claim."""


def claim_rules(game: str) -> ClaimRules | None:
    """The claim rules of ``game``, or ``None`` for a game without claims.

    An unknown name raises :class:`~referee.gamekit.base.RulesError`, not "no claims".
    """
    engine = get_game(game)
    if engine.challenge_action is None:
        return None
    return ClaimRules(engine.challenge_action, engine.claim_truth)


def analyse_events(
    game_name: str,
    rules: Mapping[str, str],
    num_seats: int,
    events: Sequence[Event],
) -> tuple[BluffStats, ...] | None:
    """Per-seat counts for a match given as engine events; ``None`` without claims.

    Every event is applied with full validation (a tampered record is refused, not
    judged), so each judgement sees exactly the state the live match had.
    """
    claims = claim_rules(game_name)
    if claims is None:
        return None
    game = get_game(game_name)
    try:
        driver = MatchDriver(game, game.parse_rules(dict(rules)), num_seats)
    except GameError as error:
        raise AnalyticsError(
            f"cannot set up {game_name} with rules {dict(rules)}: {error}"
        ) from None
    counts = [[0] * len(fields(BluffStats)) for _ in range(num_seats)]
    claims_i, false_i, opp_i, chal_i, correct_i, wronged_i = range(6)
    last_claim: tuple[int, bool] | None = None
    """The seat that made the last claim and whether it was true."""
    for index, event in enumerate(events, start=1):
        try:
            if not isinstance(event, ActionEvent):
                driver.apply_chance(event.outcome)
                continue
            decision = driver.decision_for(event)
            before = driver.state
            try:
                game.check_action(decision.view, claims.challenge)
                legal = True
            except IllegalActionError:
                legal = False
            driver.act(decision, event.action)
        except GameError as error:
            raise AnalyticsError(f"event {index} ({event!r}) cannot be replayed: {error}") from None
        seat = event.seat
        if legal:
            counts[seat][opp_i] += 1
        if event.action == claims.challenge:
            if last_claim is None:  # pragma: no cover - the engine refuses it first
                raise AnalyticsError(f"event {index}: a challenge with no claim before it")
            claimer, true = last_claim
            counts[seat][chal_i] += 1
            if true:
                counts[claimer][wronged_i] += 1
            else:
                counts[seat][correct_i] += 1
            continue
        verdict = claims.judge(before, event.action)
        if verdict is not None:
            counts[seat][claims_i] += 1
            if not verdict:
                counts[seat][false_i] += 1
            last_claim = (seat, verdict)
    return tuple(BluffStats(*row) for row in counts)


def analyse_record(record: MatchRecord) -> tuple[BluffStats, ...] | None:
    """Per-seat counts for a stored match record; ``None`` for a game without claims.

    The caller decides which records count (a league skips aborted matches: their
    last action never took effect, and nobody is rated for them).
    """
    if claim_rules(record.game) is None:
        return None
    try:
        events = record.engine_events()
    except (GameError, ValueError, KeyError, TypeError) as error:
        raise AnalyticsError(f"record {record.match_id}: undecodable action: {error}") from None
    try:
        return analyse_events(record.game, record.rules, record.num_seats, events)
    except AnalyticsError as error:
        raise AnalyticsError(f"record {record.match_id}: {error}") from None
