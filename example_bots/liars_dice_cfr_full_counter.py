"""A counter-strategy that runs the full-game CFR bot's own table to bid at its challenge threshold.

:mod:`example_bots.liars_dice_cfr_full` decides from its own dice and the public
facts of the round only (the dice each seat holds, who opened, the bid to beat and
who made it). This bot loads the same table and reads the CFR bot's strategy
exactly, for every hand it might hold:

* **its hand**: the posterior over the CFR bot's dice is the prior of each hand times
  the probability that the table, holding it, made each bid it made this round
  (exact Bayes: the table is the bot);
* **each raise**: the probability that the CFR bot challenges it, per hand, is the
  table's challenge probability at the key the raise creates; a raise loses when it
  is challenged and false (exact, from our dice and that hand) and costs
  ``RETURN_LOSS`` when raised instead (the round comes back to us);
* **a challenge** loses when the standing bid is true under that posterior.

It plays whichever of these loses least (ties: the cheapest bid): the highest raise
the CFR bot lets pass with the hand it probably holds, and a challenge exactly when
its bid is likelier false than that. Rules the table does not cover: the posterior
bot's play, as the CFR bot itself.

    python -m example_bots.liars_dice_cfr_full_counter
"""

from __future__ import annotations

import dataclasses
from functools import cache

from example_bots.liars_dice_cfr_full import FullCfrLiarsDiceBot, FullTable
from example_bots.liars_dice_cfr_full_solver import Array, Round, build_round, hands_of
from example_bots.liars_dice_posterior import RETURN_LOSS
from sdk import Mixed, run
from sdk.liars_dice import Action, Bid, Challenge, Observation, PlacedBid, SumBid, legal_actions


@cache
def _round(a: int, b: int) -> Round:
    return build_round(a, b)


def hand_posterior(table: FullTable, observation: Observation) -> Array:
    """The other seat's hand (in :func:`hands_of` order) given its bids this round,
    if it plays ``table``: prior times the table's probability of each bid it made."""
    opponent = 1 - observation.seat
    _, prior = hands_of(observation.dice_counts[opponent])
    posterior = prior.copy()
    for position, placed in enumerate(observation.bids):
        if placed.seat != opponent:
            continue
        before = dataclasses.replace(observation, bids=observation.bids[:position], to_act=opponent)
        round_table, rows = table.rows(before)
        posterior *= rows[:, round_table.bids[placed.bid]]
    total = posterior.sum()
    return posterior / total if total > 0 else prior


def counter_move(table: FullTable, observation: Observation) -> Action:
    """The least-losing action against the table's play (see the module docstring)."""
    seat = observation.seat
    opponent = 1 - seat
    opener = observation.opener
    assert opener is not None
    counts = observation.dice_counts
    game = _round(counts[opener], counts[1 - opener])
    posterior = hand_posterior(table, observation)
    mine = table.hand_index[counts[seat]][tuple(sorted(observation.own_dice))]

    def truth(bid: Bid | SumBid) -> Array:
        index = game.bids.index(bid)
        return game.true[index, mine, :] if seat == opener else game.true[index, :, mine]

    best: tuple[float, Action] | None = None
    for action in legal_actions(observation):
        if isinstance(action, Challenge):
            last = observation.bids[-1].bid
            loss = float(posterior @ truth(last))
        else:
            after = dataclasses.replace(
                observation,
                bids=(*observation.bids, PlacedBid(seat, action)),
                to_act=opponent,
            )
            _, rows = table.rows(after)
            challenged = rows[:, -1]
            false = 1.0 - truth(action)
            loss = float(posterior @ (challenged * false + (1 - challenged) * RETURN_LOSS))
        if best is None or loss < best[0] - 1e-12:
            best = (loss, action)
    assert best is not None
    return best[1]


class FullCfrCounterLiarsDiceBot(FullCfrLiarsDiceBot):
    """Plays at the full-game CFR bot's challenge threshold, read from its table."""

    name = "liars-dice-cfr-full-counter"

    def act(self, observation: Observation) -> Action | Mixed:  # type: ignore[override]
        # (the full CFR bot it falls back to answers mixed)
        if self.table is None:
            return super().act(observation)
        return counter_move(self.table, observation)


if __name__ == "__main__":
    run(FullCfrCounterLiarsDiceBot)
