"""``arena demo``: the example bots of every game register, play a small league per
game and are ranked (``make demo``)."""

from __future__ import annotations

from typing import Annotated

import typer

from league.cli.common import context_of
from league.cli.leagues import ProgressPrinter, standings_command


def demo_command(
    ctx: typer.Context,
    rounds: Annotated[int, typer.Option(min=1, help="Round-robin repetitions per game.")] = 5,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches at a time.")] = 2,
) -> None:
    """Register the example bots, run a small league per game, print the standings."""
    from league.execution.demo import run_demo
    from league.store.db import redact, resolve_url

    engine = context_of(ctx).engine()
    typer.echo(f"database: {redact(resolve_url(context_of(ctx).db_url))}")
    for league, summary in run_demo(
        engine,
        rounds=rounds,
        concurrency=concurrency,
        on_progress=lambda _name: ProgressPrinter(),
    ):
        typer.echo(
            f"\n== {league}: {summary.played} matches played now,"
            f" {summary.remaining} remaining ({summary.elapsed_s:.1f} s)"
        )
        standings_command(ctx, league, samples=500, los=True, as_json=False)
