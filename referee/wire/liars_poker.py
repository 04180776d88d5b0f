"""Codec between the Liar's Poker engine values and ``arena.v1.LiarsPoker*`` messages.

Cards travel as rank (0 for a joker) and suit (``UNSPECIFIED`` for a joker);
categories as ``LiarsPokerCategory`` (engine category + 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final

from arena.v1 import bot_pb2, liars_poker_pb2
from referee.games.base import GameError, MalformedActionError
from referee.games.cards import Card, Suit
from referee.games.liars_poker import (
    Accept,
    Action,
    Announce,
    Challenge,
    Claim,
    DealResult,
    Exchange,
    Observation,
    Phase,
    Rules,
    check_well_formed,
)
from referee.games.poker_hands import Announcement, Category, announcement_error
from referee.wire.base import Codec, MalformedObservationError

pb = liars_poker_pb2

_PHASES: dict[Phase, pb.LiarsPokerPhase.ValueType] = {
    "deal": pb.LIARS_POKER_PHASE_DEAL,
    "announce": pb.LIARS_POKER_PHASE_ANNOUNCE,
    "respond": pb.LIARS_POKER_PHASE_RESPOND,
    "exchange": pb.LIARS_POKER_PHASE_EXCHANGE,
    "draw": pb.LIARS_POKER_PHASE_DRAW,
    "over": pb.LIARS_POKER_PHASE_OVER,
}
_PHASE_NAMES = {value: name for name, value in _PHASES.items()}


def encode_card(card: Card) -> liars_poker_pb2.LiarsPokerCard:
    return pb.LiarsPokerCard(rank=card.rank, suit=pb.LiarsPokerSuit.ValueType(int(card.suit)))


def decode_card(message: liars_poker_pb2.LiarsPokerCard) -> Card:
    """Wire card → :class:`Card`; ``ValueError`` if it is not one of the 54 cards."""
    if not 0 <= message.suit < len(Suit):
        raise ValueError(f"unknown suit {message.suit}")
    card = Card(message.rank, Suit(message.suit))
    if not card.is_valid():
        raise ValueError(f"not a card: rank {message.rank}, suit {message.suit}")
    return card


def encode_announcement(
    announcement: Announcement,
) -> liars_poker_pb2.LiarsPokerAnnouncement:
    return pb.LiarsPokerAnnouncement(
        category=pb.LiarsPokerCategory.ValueType(int(announcement.category) + 1),
        ranks=announcement.ranks,
    )


def decode_announcement(message: liars_poker_pb2.LiarsPokerAnnouncement) -> Announcement:
    """Wire announcement → :class:`Announcement`; ``ValueError`` if malformed."""
    if not 1 <= message.category <= len(Category):
        raise ValueError(f"unknown category {message.category}")
    announcement = Announcement(Category(message.category - 1), tuple(message.ranks))
    error = announcement_error(announcement)
    if error is not None:
        raise ValueError(error)
    return announcement


def _encode_claim(claim: Claim) -> liars_poker_pb2.LiarsPokerClaim:
    message = pb.LiarsPokerClaim(
        seat=claim.seat, announcement=encode_announcement(claim.announcement)
    )
    if claim.exchanged is not None:
        message.exchanged = claim.exchanged
    return message


def _decode_claim(message: liars_poker_pb2.LiarsPokerClaim) -> Claim:
    return Claim(
        seat=message.seat,
        exchanged=message.exchanged if message.HasField("exchanged") else None,
        announcement=decode_announcement(message.announcement),
    )


def _cards(messages: Iterable[liars_poker_pb2.LiarsPokerCard]) -> tuple[Card, ...]:
    return tuple(decode_card(message) for message in messages)


class LiarsPokerCodec(Codec[Observation, Action]):
    """Exact round trip of Liar's Poker observations and actions."""

    game: ClassVar[str] = "liars_poker"
    log_fields: ClassVar[tuple[str, ...]] = ("claims", "results")

    # -- observations -------------------------------------------------------

    def encode_observation(self, observation: Observation) -> bot_pb2.Observation:
        rules = observation.rules
        message = pb.LiarsPokerObservation(
            rules=pb.LiarsPokerRules(
                penalty_limit=rules.penalty_limit,
                chips_variant=rules.chips_variant,
                starting_chips=rules.starting_chips,
            ),
            seat=observation.seat,
            num_seats=observation.num_seats,
            phase=_PHASES[observation.phase],
            deal=observation.deal,
            dealer=observation.dealer,
            starter=observation.starter,
            holder=observation.holder,
            has_hand=observation.hand is not None,
            hand=[encode_card(card) for card in observation.hand or ()],
            stock_size=observation.stock_size,
            claims=[_encode_claim(claim) for claim in observation.claims],
            penalties=observation.penalties,
            chips=observation.chips,
            results=[
                pb.LiarsPokerDealResult(
                    deal=result.deal,
                    dealer=result.dealer,
                    starter=result.starter,
                    claims=[_encode_claim(claim) for claim in result.claims],
                    challenger=result.challenger,
                    announcer=result.announcer,
                    cards=[encode_card(card) for card in result.cards],
                    truthful=result.truthful,
                    penalised=result.penalised,
                )
                for result in observation.results
            ],
        )
        if observation.to_act is not None:
            message.to_act = observation.to_act
        if observation.exchanged is not None:
            message.exchanged = observation.exchanged
        return bot_pb2.Observation(liars_poker=message)

    def decode_observation(self, message: bot_pb2.Observation) -> Observation:
        which = message.WhichOneof("game")
        if which != self.game:
            raise MalformedObservationError(
                f"expected a {self.game} observation, got {which or 'an empty observation'}"
            )
        obs = message.liars_poker
        if obs.phase not in _PHASE_NAMES:
            raise MalformedObservationError(f"unknown phase {obs.phase} in {obs}")
        try:
            return Observation(
                rules=Rules(
                    penalty_limit=obs.rules.penalty_limit,
                    chips_variant=obs.rules.chips_variant,
                    starting_chips=obs.rules.starting_chips,
                ),
                seat=obs.seat,
                num_seats=obs.num_seats,
                phase=_PHASE_NAMES[obs.phase],
                to_act=obs.to_act if obs.HasField("to_act") else None,
                deal=obs.deal,
                dealer=obs.dealer,
                starter=obs.starter,
                holder=obs.holder,
                hand=_cards(obs.hand) if obs.has_hand else None,
                exchanged=obs.exchanged if obs.HasField("exchanged") else None,
                stock_size=obs.stock_size,
                claims=tuple(_decode_claim(claim) for claim in obs.claims),
                penalties=tuple(obs.penalties),
                chips=tuple(obs.chips),
                results=tuple(
                    DealResult(
                        deal=result.deal,
                        dealer=result.dealer,
                        starter=result.starter,
                        claims=tuple(_decode_claim(claim) for claim in result.claims),
                        challenger=result.challenger,
                        announcer=result.announcer,
                        cards=_cards(result.cards),
                        truthful=result.truthful,
                        penalised=result.penalised,
                    )
                    for result in obs.results
                ),
            )
        except ValueError as error:
            raise MalformedObservationError(f"bad liars_poker observation: {error}") from None

    # -- actions --------------------------------------------------------------

    def encode_action(self, action: Action) -> bot_pb2.Action:
        action = check_well_formed(action)
        if isinstance(action, Announce):
            inner = pb.LiarsPokerAction(
                announce=pb.LiarsPokerAnnounce(
                    announcement=encode_announcement(action.announcement)
                )
            )
        elif isinstance(action, Accept):
            inner = pb.LiarsPokerAction(accept=pb.LiarsPokerAccept())
        elif isinstance(action, Challenge):
            inner = pb.LiarsPokerAction(challenge=pb.LiarsPokerChallenge())
        else:
            inner = pb.LiarsPokerAction(
                exchange=pb.LiarsPokerExchange(
                    discards=[encode_card(card) for card in action.discards]
                )
            )
        return bot_pb2.Action(liars_poker=inner)

    def decode_action(self, message: bot_pb2.Action) -> Action:
        self.require_game(message)
        inner = message.liars_poker
        which = inner.WhichOneof("action")
        action: Action
        try:
            if which == "announce":
                if not inner.announce.HasField("announcement"):
                    raise ValueError("announce without an announcement")
                action = Announce(decode_announcement(inner.announce.announcement))
            elif which == "accept":
                action = Accept()
            elif which == "challenge":
                action = Challenge()
            elif which == "exchange":
                action = Exchange(_cards(inner.exchange.discards))
            else:
                raise ValueError("empty liars_poker action")
            return check_well_formed(action)
        except (ValueError, GameError) as error:
            raise MalformedActionError(f"{error}: {message}") from None


CODEC: Final = LiarsPokerCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
