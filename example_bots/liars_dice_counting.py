"""The README's example bot: lowest legal bid on its most common face; challenges
when the standing bid looks unlikely given its own dice."""

from collections import Counter

from sdk import Bot, run
from sdk.liars_dice import Action, Bid, Challenge, Observation, SumBid, bid_probability, is_legal


class CountingBot(Bot[Observation, Action]):
    game = "liars_dice"

    def act(self, observation: Observation) -> Action:
        if observation.bids and bid_probability(observation, observation.bids[-1].bid) < 0.4:
            return Challenge()
        if observation.sum_round:  # two players with one die each bid on the total
            candidates: list[Action] = [SumBid(total) for total in range(2, 13)]
        else:
            face = Counter(observation.own_dice).most_common(1)[0][0]
            candidates = [Bid(n, face) for n in range(1, sum(observation.dice_counts) + 1)]
        return next((a for a in candidates if is_legal(observation, a)), Challenge())


if __name__ == "__main__":
    run(CountingBot)
