"""Hypothesis invariants of random legal play for liars_poker_dice and dice_poker."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.catalogue import get_codec
from referee.core.events import ActionEvent, replay
from referee.core.playout import random_playout
from referee.gamekit.base import Game, MalformedActionError
from referee.games.dice_poker.engine import DICE_POKER
from referee.games.liars_poker_dice.engine import LIARS_POKER_DICE
from referee.wire.base import Codec

PROPS = settings(max_examples=25, deadline=None)


def check_playout(game: Game[Any, Any, Any, Any], rules: Any, num_seats: int, seed: int) -> int:
    """Play randomly, check every invariant; return how many perturbations changed a state."""
    codec: Codec[Any, Any] = get_codec(game.name)
    playout = random_playout(game, rules, num_seats, random.Random(seed))
    assert game.is_terminal(playout.final)

    # replay reproduces every state and the outcome
    states = replay(game, rules, num_seats, playout.events)
    assert tuple(states) == playout.states
    assert game.outcome(states[-1]) == game.outcome(playout.final)

    # actions round-trip through the codec (protobuf and JSON)
    for event in playout.events:
        if isinstance(event, ActionEvent):
            assert codec.decode_action(codec.encode_action(event.action)) == event.action
            assert codec.action_from_json(codec.action_to_json(event.action)) == event.action

    perturb_rng = random.Random(seed + 1)
    changed = 0
    for state in playout.states:
        actor = game.to_act(state)
        for seat in range(num_seats):
            obs = game.observe(state, seat)
            # observations round-trip exactly
            assert codec.decode_observation(codec.encode_observation(obs)) == obs
            # no leak: what the seat cannot know does not change its view
            other = game.perturb_hidden(state, seat, perturb_rng)
            changed += other != state
            assert game.observe(other, seat) == obs
            assert codec.observation_bytes(game.observe(other, seat)) == codec.observation_bytes(
                obs
            )
            # legality from the observation alone, and only for the seat to act
            legal = game.legal_actions(obs)
            if seat != actor:
                assert not legal
            for action in legal:
                game.check_action(obs, action)
    return changed


@PROPS
@given(
    seed=st.integers(0, 2**32),
    chips=st.integers(1, 4),
    min_reroll=st.integers(0, 5),
)
def test_liars_poker_dice_random_play(seed: int, chips: int, min_reroll: int) -> None:
    rules = LIARS_POKER_DICE.parse_rules({"chips": chips, "min_reroll": min_reroll})
    changed = check_playout(LIARS_POKER_DICE, rules, 2, seed)
    # every round rolls hidden dice, so the leak check really moved something
    assert changed > 0
    final = LIARS_POKER_DICE.outcome(
        random_playout(LIARS_POKER_DICE, rules, 2, random.Random(seed)).final
    )
    assert sorted(final.places) == [1, 2] and 0.0 in final.scores


@PROPS
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(1, 3),
    inclusive=st.booleans(),
)
def test_dice_poker_random_play(seed: int, seats: int, inclusive: bool) -> None:
    rules = DICE_POKER.parse_rules({"upper_bonus_inclusive": inclusive})
    changed = check_playout(DICE_POKER, rules, seats, seed)
    assert changed == 0  # nothing is hidden in Dice Poker
    final = random_playout(DICE_POKER, rules, seats, random.Random(seed)).final
    assert all(not card.open_lines for card in final.cards)
    assert DICE_POKER.outcome(final).scores == tuple(
        float(card.total(inclusive)) for card in final.cards
    )


def test_codecs_reject_malformed_actions() -> None:
    from arena.v1 import bot_pb2, dice_poker_pb2, liars_poker_dice_pb2

    lpd = get_codec("liars_poker_dice")
    dp = get_codec("dice_poker")
    bad: list[tuple[Codec[Any, Any], bot_pb2.Action]] = [
        (lpd, bot_pb2.Action()),
        (lpd, bot_pb2.Action(dice_poker=dice_poker_pb2.DicePokerAction())),
        (lpd, bot_pb2.Action(liars_poker_dice=liars_poker_dice_pb2.LiarsPokerDiceAction())),
        (dp, bot_pb2.Action(dice_poker=dice_poker_pb2.DicePokerAction())),
        (dp, bot_pb2.Action(liars_poker_dice=liars_poker_dice_pb2.LiarsPokerDiceAction())),
    ]
    declare = liars_poker_dice_pb2.LiarsPokerDiceAction()
    declare.declare.hand.category = liars_poker_dice_pb2.POKER_DICE_CATEGORY_FULL_HOUSE
    declare.declare.hand.faces.extend([3, 3])
    bad.append((lpd, bot_pb2.Action(liars_poker_dice=declare)))
    unset = liars_poker_dice_pb2.LiarsPokerDiceAction()
    unset.declare.SetInParent()
    bad.append((lpd, bot_pb2.Action(liars_poker_dice=unset)))
    for positions in ([5], [1, 1], [2, 1]):
        reroll = liars_poker_dice_pb2.LiarsPokerDiceAction()
        reroll.reroll.positions.extend(positions)
        bad.append((lpd, bot_pb2.Action(liars_poker_dice=reroll)))
        dice_reroll = dice_poker_pb2.DicePokerAction()
        dice_reroll.reroll.positions.extend(positions)
        bad.append((dp, bot_pb2.Action(dice_poker=dice_reroll)))
    empty_reroll = dice_poker_pb2.DicePokerAction()
    empty_reroll.reroll.SetInParent()
    bad.append((dp, bot_pb2.Action(dice_poker=empty_reroll)))
    for line in (0, 16):
        score = dice_poker_pb2.DicePokerAction()
        score.score.line = line  # type: ignore[assignment]
        bad.append((dp, bot_pb2.Action(dice_poker=score)))
    for codec, message in bad:
        try:
            codec.decode_action(message)
        except MalformedActionError:
            continue
        raise AssertionError(f"{codec.game} accepted {message}")
