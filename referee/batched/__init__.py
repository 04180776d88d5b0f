"""Batched engines: N games stepped at once in numpy, for training (the ``rl`` extra).

``referee.batched.liars_dice`` is Liar's Dice with a pgx-like API (``reset(seeds)``,
``step(state, actions)``), the same rules as the scalar engine in
``referee.games.liars_dice`` (parity tests: ``tests/batched/``), the same action ids as
its action universe. Nothing in the referee or the CLI imports this package: numpy is
loaded only by whoever trains on it. ``docs/training.md`` describes the API.
"""
