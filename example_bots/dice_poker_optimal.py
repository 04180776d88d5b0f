"""A Dice Poker bot that maximises its expected final score exactly.

    make dice-poker-table                                      # build the table once
    python -m example_bots.dice_poker_optimal --solve          # the same, without make
    python -m example_bots.dice_poker_optimal                  # serve (the referee runs this)
    python -m example_bots.dice_poker_optimal --simulate 20000 # check the table by play

It plays from the value table of :mod:`example_bots.dice_poker_solver` (every scorecard
state's optimal expected score still to come): each decision solves the current
turn for its own state (a few milliseconds) and picks the re-roll or the line
with the best expected final score. Needs numpy (the ``bots`` extra).

The table takes minutes to solve, longer than the referee's start-up budget, so
the bot never solves while serving: ``make dice-poker-table`` (``--solve``) writes
it into ``example_bots/tables/`` (visible to the bot inside the sandbox, which
binds the bot's package read-only; ``--tables DIR`` or ``ARENA_DICE_POKER_TABLES``
names another directory, and only ``--tables`` crosses into the sandbox).

Without a table the bot refuses to play rather than play something weaker under
the name "optimal": with no usable table at all it exits before it is ready (one
line on stderr, so the referee records a ``startup`` fault whose message is that
line), and a match whose rules have no table fails at ``MatchStart`` the same way.

It maximises the expected *score*, not the chance of placing first: in multi-seat
games it ignores the opponents' cards (see docs/bots.md for what that costs).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import OrderedDict
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from example_bots.dice_poker_heuristic import HeuristicDicePokerBot
from example_bots.dice_poker_solver import (
    KEEP_INDEX,
    THROW_INDEX,
    ScorecardSpec,
    Solver,
    Turn,
    cache_path,
    dice_poker_spec,
    load,
    solve_and_save,
)
from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.dice_poker import (
    ALL_REROLLS,
    EXTRA_POKER_BONUS,
    MAX_ROLLS,
    Action,
    Line,
    Observation,
    Reroll,
    Rules,
    Score,
    Scorecard,
    TurnPlanner,
    is_joker,
    score_options,
)
from sdk.local import play_local

TABLES_ENV = "ARENA_DICE_POKER_TABLES"
TURN_CACHE_SIZE = 4096
"""Solved turns kept per table (states repeat a lot across a match and across matches)."""

_tables_option: Path | None = None
"""``--tables DIR`` of this process (command-line arguments reach a sandboxed bot;
environment variables other than a few locale ones do not)."""


def table_dir() -> Path:
    """Where the value tables live: ``--tables``, ``$ARENA_DICE_POKER_TABLES`` or
    ``example_bots/tables``."""
    if _tables_option is not None:
        return _tables_option
    configured = os.environ.get(TABLES_ENV)
    return Path(configured) if configured else Path(__file__).resolve().parent / "tables"


def use_tables(directory: Path | None) -> None:
    """Look for the tables in ``directory`` (``None``: the default places)."""
    global _tables_option
    _tables_option = directory
    _POLICIES.clear()


def has_table(rules: Rules | None = None) -> bool:
    """Whether the value table of ``rules`` (default: the default rules) is built."""
    return cache_path(dice_poker_spec(rules or Rules()), table_dir()).exists()


def build_command(rules: Rules) -> str:
    """The command that builds the table of ``rules`` (what the refusal tells the user)."""
    if rules.upper_bonus_inclusive:
        return "make dice-poker-table (or: python -m example_bots.dice_poker_optimal --solve)"
    return "python -m example_bots.dice_poker_optimal --solve --exclusive"


class MissingTableError(RuntimeError):
    """No usable value table for the match's rules: the bot refuses to play.

    Playing the heuristic's moves instead would put heuristic results in a
    league under the name "optimal" (issue 21), so the refusal is the result.
    The message is one line: where the table was looked for, why it is not
    usable, and the command that builds it.
    """


def missing_table_message(rules: Rules, reason: str) -> str:
    """The refusal's one line; the referee puts it into the fault's message, so it is
    what a league's replay and ``arena bot check`` show."""
    spec = dice_poker_spec(rules)
    return (
        f"dice-poker-optimal: no usable value table for {spec.name} in {table_dir()}"
        f" ({reason}); build it with: {build_command(rules)}"
    )


class Policy:
    """Optimal decisions for one scorecard spec, from its solved value table."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.spec: ScorecardSpec = solver.spec
        self._turns: OrderedDict[tuple[int, int, int], Turn] = OrderedDict()

    def state(self, card: Scorecard) -> tuple[int, int, int]:
        """(used-lines mask, capped upper total, Poker-holds-50 flag) of a card."""
        used = [line - 1 for line in Line if not card.is_open(line)]
        kind = card.lines[self.spec.kind_line] == self.spec.kind_points
        return self.solver.state(used, card.upper_total, kind)

    def turn(self, state: tuple[int, int, int]) -> Turn:
        """The turn of a state from :meth:`state`, solved (and remembered)."""
        turn = self._turns.get(state)
        if turn is None:
            mask, upper, flag = state
            turn = self.solver.turn(mask, np.array([upper]), np.array([flag]))
            self._turns[state] = turn
            if len(self._turns) > TURN_CACHE_SIZE:
                self._turns.popitem(last=False)
        else:
            self._turns.move_to_end(state)
        return turn

    def line_worth(
        self, state: tuple[int, int, int], joker: bool, line: Line, points: int
    ) -> float:
        """Points now (bonuses included) plus the expected rest after writing ``line``.

        ``joker``: the throw earns the extra-Poker bonus (:func:`is_joker`).
        """
        mask, upper, flag = state
        cap = self.solver.cap
        now = float(points)
        if joker:
            now += self.spec.extra_kind_bonus
        if line.is_upper:
            if upper < cap <= upper + points:
                now += self.spec.upper_bonus
            upper = min(cap, upper + points)
        elif line - 1 == self.spec.kind_line:
            flag = int(points == self.spec.kind_points)
        return now + float(self.solver.values[mask | 1 << (line - 1), upper, flag])

    def best_line(self, card: Scorecard, dice: tuple[int, ...]) -> tuple[Line, float]:
        """The line to write the dice into now and the expected final rest.

        Chosen among the engine's own options with the engine's points, so the
        bot only ever writes legal lines; the solver's turn values agree (tested).
        """
        state = self.state(card)
        joker = is_joker(card, dice)
        options = score_options(card, dice)
        worth = {ln: self.line_worth(state, joker, ln, pts) for ln, pts in options.items()}
        line = max(worth, key=lambda ln: (worth[ln], -int(ln)))
        return line, worth[line]

    def decide(self, card: Scorecard, dice: tuple[int, ...], rolls: int) -> Action:
        """The best action with ``dice`` after ``rolls`` rolls of this turn."""
        if rolls < MAX_ROLLS:
            turn = self.turn(self.state(card))
            best = float(turn.final[THROW_INDEX[tuple(sorted(dice))], 0])  # stop and score
            keep_values = turn.keep1 if rolls == 1 else turn.keep2
            reroll: Reroll | None = None
            for positions in ALL_REROLLS:
                kept = tuple(sorted(v for i, v in enumerate(dice) if i not in positions))
                value = float(keep_values[KEEP_INDEX[kept], 0])
                if value > best + 1e-9:
                    reroll, best = Reroll(positions), value
            if reroll is not None:
                return reroll
        return Score(self.best_line(card, dice)[0])


_POLICIES: dict[str, Policy] = {}
"""Loaded tables by spec digest (the SDK makes one bot instance per match)."""


def policy_for(rules: Rules) -> Policy:
    """The policy of these rules from the table directory.

    Raises :class:`MissingTableError` when the table is not there or cannot be read.
    """
    spec = dice_poker_spec(rules)
    key = spec.key()
    if key not in _POLICIES:
        try:
            solver = load(spec, table_dir())
        except (OSError, ValueError, KeyError) as error:  # unreadable or damaged file
            reason = f"cannot load {cache_path(spec, table_dir()).name}: {error}"
            raise MissingTableError(missing_table_message(rules, reason)) from None
        if solver is None:
            reason = f"{cache_path(spec, table_dir()).name} is not there"
            raise MissingTableError(missing_table_message(rules, reason))
        _POLICIES[key] = Policy(solver)
    return _POLICIES[key]


RULE_VARIANTS: tuple[Rules, ...] = (
    Rules(upper_bonus_inclusive=True),
    Rules(upper_bonus_inclusive=False),
)
"""Every rules setting of Dice Poker, default first (one boolean option)."""


def preload() -> None:
    """Load every table there is, before serving; exit with one line if there is none.

    A bot process is started before it learns a match's rules, so it can only
    refuse to start when no rules setting at all has a table. Loading here also
    moves the ~0.7 s load into the start-up budget, away from the first decision.
    """
    errors = []
    for rules in RULE_VARIANTS:
        try:
            policy_for(rules)
        except MissingTableError as error:
            errors.append(str(error))
    if len(errors) == len(RULE_VARIANTS):
        print(errors[0], file=sys.stderr, flush=True)
        raise SystemExit(2)


class OptimalDicePokerBot(Bot[Observation, Action]):
    """Maximises the expected final score from the solved table; refuses without one."""

    game = "dice_poker"
    name = "dice-poker-optimal"

    def __init__(self) -> None:
        super().__init__()
        self._policy: Policy | None = None

    def start(self, match: MatchInfo) -> None:
        """Find the table of the match's rules; :class:`MissingTableError` if there is none
        (the referee records it as a ``startup`` fault with this message)."""
        super().start(match)
        rules = match.rules if isinstance(match.rules, Rules) else Rules()
        try:
            self._policy = policy_for(rules)
        except MissingTableError as error:
            print(error, file=sys.stderr, flush=True)
            raise

    def act(self, observation: Observation) -> Action:
        if self._policy is None:  # act() without start(): the observation's rules
            self._policy = policy_for(Rules(observation.upper_bonus_inclusive))
        return self._policy.decide(observation.my_card, observation.dice, observation.rolls)


class LastTurnWinDicePokerBot(OptimalDicePokerBot):
    """The optimal bot, except on its last turn when every opponent has finished.

    Then the score to beat is known, and the bot maximises the probability of
    placing first (ties share the place) exactly instead of the expected score.
    That situation arises for the last seat of a multi-seat game, which is where
    the two goals differ the most (see docs/bots.md). Earlier turns still
    maximise the expected score.
    """

    name = "dice-poker-last-turn-win"

    def act(self, observation: Observation) -> Action:
        card = observation.my_card
        others = [c for seat, c in enumerate(observation.cards) if seat != observation.seat]
        if len(card.open_lines) != 1 or not others or any(c.open_lines for c in others):
            return super().act(observation)
        inclusive = observation.upper_bonus_inclusive
        target = max(c.total(inclusive) for c in others)

        def places_first(throw: tuple[int, ...]) -> float:
            line, points = next(iter(score_options(card, throw).items()))
            final = card.filled(line, points)
            extra = EXTRA_POKER_BONUS if is_joker(card, throw) else 0
            return float(final.total(inclusive) + extra >= target)

        planner = TurnPlanner(places_first)
        positions, _ = planner.best_reroll(observation.dice, MAX_ROLLS - observation.rolls)
        if positions:
            return Reroll(positions)
        return Score(card.open_lines[0])


# ---------------------------------------------------------------------------
# Command line: --solve and --simulate


def _solve(rules: Rules) -> Policy:
    spec = dice_poker_spec(rules)
    solver = load(spec, table_dir())
    if solver is None:
        solver = solve_and_save(spec, table_dir(), log=lambda text: print(text, flush=True))
        print(f"table written to {table_dir()}", flush=True)
    policy = Policy(solver)
    _POLICIES[spec.key()] = policy
    return policy


def _simulate_chunk(args: tuple[int, int, bool]) -> list[float]:
    first, count, inclusive = args
    rules = {"upper_bonus_inclusive": "true" if inclusive else "false"}
    return [
        play_local("dice_poker", [OptimalDicePokerBot], seed=seed, rules=rules).outcome.scores[0]
        for seed in range(first, first + count)
    ]


def simulate(games: int, *, first_seed: int, inclusive: bool, jobs: int) -> None:
    """Play ``games`` single-seat matches with seeds from ``first_seed``; print the check."""
    policy = _solve(Rules(upper_bonus_inclusive=inclusive))
    exact = policy.solver.expected_score()
    began = time.perf_counter()
    chunk = math.ceil(games / (jobs * 8))
    pieces = [
        (s, min(chunk, first_seed + games - s), inclusive)
        for s in range(first_seed, first_seed + games, chunk)
    ]
    if jobs > 1:
        with Pool(jobs) as pool:
            scores = [x for part in pool.map(_simulate_chunk, pieces) for x in part]
    else:
        scores = [x for piece in pieces for x in _simulate_chunk(piece)]
    seconds = time.perf_counter() - began
    data = np.array(scores)
    mean = float(data.mean())
    sd = float(data.std(ddof=1))
    se = sd / math.sqrt(len(data))
    z = 2.5758293035489004  # two-sided 99% normal quantile
    low, high = mean - z * se, mean + z * se
    print(f"games {len(data)} (seeds {first_seed}..{first_seed + len(data) - 1}), {seconds:.0f} s")
    print(f"mean {mean:.4f}  sd {sd:.4f}  s.e. {se:.4f}  99% CI [{low:.4f}, {high:.4f}]")
    print(f"median {float(np.median(data)):.1f}  min {data.min():.0f}  max {data.max():.0f}")
    verdict = "inside" if low <= exact <= high else "OUTSIDE"
    print(f"exact optimum {exact:.6f}: {verdict} the 99% interval")


def _duel_chunk(args: tuple[int, int]) -> list[tuple[float, float]]:
    first, count = args
    pairs = []
    for seed in range(first, first + count):
        bots: list[type[Bot[Observation, Action]]] = [OptimalDicePokerBot, HeuristicDicePokerBot]
        if seed % 2:
            bots.reverse()
        scores = play_local("dice_poker", bots, seed=seed).outcome.scores
        mine = 1 if seed % 2 else 0
        pairs.append((scores[mine], scores[1 - mine]))
    return pairs


def duel(games: int, *, first_seed: int, jobs: int) -> None:
    """Head-to-head: this bot against the heuristic bot, seats alternating by seed."""
    _solve(Rules())
    chunk = math.ceil(games / (jobs * 8))
    last = first_seed + games
    pieces = [(s, min(chunk, last - s)) for s in range(first_seed, last, chunk)]
    if jobs > 1:
        with Pool(jobs) as pool:
            pairs = [x for part in pool.map(_duel_chunk, pieces) for x in part]
    else:
        pairs = [x for piece in pieces for x in _duel_chunk(piece)]
    data = np.array(pairs)
    wins = float(np.mean(data[:, 0] > data[:, 1]))
    ties = float(np.mean(data[:, 0] == data[:, 1]))
    se = math.sqrt(wins * (1 - wins) / len(data))
    print(f"{len(data)} matches, optimal vs heuristic (seeds {first_seed}..{last - 1})")
    print(f"mean scores {data[:, 0].mean():.2f} vs {data[:, 1].mean():.2f}")
    print(f"optimal wins {wins:.4f} (s.e. {se:.4f}), ties {ties:.4f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m example_bots.dice_poker_optimal")
    parser.add_argument("--solve", action="store_true", help="build the value table if missing")
    parser.add_argument("--simulate", type=int, metavar="GAMES", help="play GAMES solo matches")
    parser.add_argument("--duel", type=int, metavar="GAMES", help="play GAMES vs the heuristic")
    parser.add_argument("--seed", type=int, default=1, help="first seed of --simulate/--duel")
    parser.add_argument("--jobs", type=int, default=1, help="processes for --simulate")
    parser.add_argument("--exclusive", action="store_true", help="rule upper_bonus_inclusive=false")
    parser.add_argument(
        "--tables", type=Path, metavar="DIR", help=f"table directory (default {table_dir()})"
    )
    args, rest = parser.parse_known_args(argv)
    use_tables(args.tables)
    rules = Rules(upper_bonus_inclusive=not args.exclusive)
    if args.duel:
        duel(args.duel, first_seed=args.seed, jobs=args.jobs)
    elif args.simulate:
        simulate(args.simulate, first_seed=args.seed, inclusive=not args.exclusive, jobs=args.jobs)
    elif args.solve:
        policy = _solve(rules)
        print(f"{policy.spec.name}: expected score {policy.solver.expected_score():.6f}")
    else:
        preload()
        run(OptimalDicePokerBot, rest)


if __name__ == "__main__":
    main()
