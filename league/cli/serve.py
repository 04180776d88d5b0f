"""``arena serve``: the web server (live leaderboard, replays, JSON API)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli.common import context_of, fail

if TYPE_CHECKING:
    from league.server.state import Server, Settings


# long: one typer option per parameter; the body is short
def serve_command(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port (0: any free port, printed).")
    ] = 8000,
    store: Annotated[
        Path,
        typer.Option(
            envvar="ARENA_STORE",
            help="Directory of the server's files: its session key, uploaded bots.",
        ),
    ] = Path("arena-store"),
    secure_cookies: Annotated[
        bool,
        typer.Option(
            "--secure-cookies",
            help="Mark session cookies Secure (set this behind an HTTPS reverse proxy).",
        ),
    ] = False,
    max_upload_mb: Annotated[
        float, typer.Option(min=0.001, help="Largest upload an author may send, MiB.")
    ] = 4.0,
    submissions_per_hour: Annotated[
        int, typer.Option(min=1, help="Submissions per author in any hour (accepted or not).")
    ] = 12,
    submission_interval: Annotated[
        float, typer.Option(min=0.0, help="Seconds an author waits between two submissions.")
    ] = 20.0,
    ladders: Annotated[
        bool,
        typer.Option(
            help="Play every rolling ladder in the background (--no-ladders: when"
            " `arena rolling run` plays them elsewhere; never both for one ladder)."
        ),
    ] = True,
    check_matches: Annotated[
        int, typer.Option(min=1, help="Matches the pre-submission check plays in the sandbox.")
    ] = 4,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help="Reverse proxies (comma-separated addresses or networks, '*': any peer)"
            " whose X-Forwarded-For names the client; none by default. Set it to the"
            " proxy's address behind a proxy, or every client has the proxy's address"
            " (one throttle count, one live-stream cap for all).",
        ),
    ] = "",
    min_protocol: Annotated[
        int,
        typer.Option(
            min=1,
            max=3,
            help="Lowest bot protocol version a submission may announce (3: answers must"
            " echo the request's nonce, so blind pre-answers cannot land).",
        ),
    ] = 3,
    max_streams_per_client: Annotated[
        int, typer.Option(min=1, help="Live-update streams one client may hold open.")
    ] = 16,
    max_streams_per_group: Annotated[
        int,
        typer.Option(
            min=1,
            help="Live-update streams visitors not logged in may hold open from one network"
            " (an address group: see the two prefix options).",
        ),
    ] = 32,
    max_streams: Annotated[int, typer.Option(min=1, help="Live-update streams open in all.")] = 200,
    stream_group_ipv4_prefix: Annotated[
        int,
        typer.Option(
            min=0, max=32, help="IPv4 addresses sharing this prefix are one network (/24)."
        ),
    ] = 24,
    stream_group_ipv6_prefix: Annotated[
        int,
        typer.Option(
            min=0, max=128, help="IPv6 addresses sharing this prefix are one network (/64)."
        ),
    ] = 64,
    think_time: Annotated[
        float,
        typer.Option(
            min=1.0, help="Seconds a person has per move in a browser game against a bot."
        ),
    ] = 300.0,
    max_human_games: Annotated[
        int,
        typer.Option(min=1, help="Browser games against bots running at once (one per author)."),
    ] = 8,
) -> None:
    """Serve the leagues on the web: live standings, match lists, replays, bots, JSON API,
    bot submissions by authors; and play the rolling ladders in the background.

    Standings pages update by themselves as matches finish, also matches played by
    another process (`arena league run`) on the same database.
    """
    import logging

    from league.server.auth import KeyError_
    from league.server.human_tables import HumanLimits
    from league.server.serving import make_server
    from league.server.throttle import parse_trusted
    from league.store.db import redact, resolve_url

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        trusted = parse_trusted(forwarded_allow_ips)
    except ValueError as error:
        raise fail(f"--forwarded-allow-ips: {error}") from None
    engine = context_of(ctx).engine()
    settings = _settings(
        store,
        secure_cookies=secure_cookies,
        max_upload_bytes=int(max_upload_mb * (1 << 20)),
        submissions_per_hour=submissions_per_hour,
        submission_interval=submission_interval,
        check_matches=check_matches,
    )
    settings.forwarded_allow_ips = trusted
    settings.min_protocol = min_protocol
    settings.max_streams_per_client = max_streams_per_client
    settings.max_streams_per_group = max_streams_per_group
    settings.max_streams = max_streams
    settings.stream_group_ipv4_prefix = stream_group_ipv4_prefix
    settings.stream_group_ipv6_prefix = stream_group_ipv6_prefix
    try:
        server = make_server(engine, settings)
    except (KeyError_, OSError) as error:
        raise fail(str(error)) from None
    server.human_tables.limits = HumanLimits(think_s=think_time, max_games=max_human_games)

    def ready(binds: list[str]) -> None:
        typer.echo(f"database: {redact(resolve_url(context_of(ctx).db_url))}")
        typer.echo(f"store: {settings.store}")
        for bind in binds:
            typer.echo(f"serving on {bind}", err=False)
        typer.echo("Ctrl-C stops the server", err=False)
        sys.stdout.flush()

    _serve(server, host, port, ready, ladders=ladders)
    typer.echo("server stopped")


def _settings(
    store: Path,
    *,
    secure_cookies: bool,
    max_upload_bytes: int,
    submissions_per_hour: int,
    submission_interval: float,
    check_matches: int,
) -> Settings:
    from league.execution.submissions import SubmissionLimits
    from league.server.state import Settings

    return Settings(
        store=store.resolve(),
        secure_cookies=secure_cookies,
        limits=SubmissionLimits(
            max_upload_bytes=max_upload_bytes,
            per_hour=submissions_per_hour,
            min_interval_s=submission_interval,
        ),
        check_matches=check_matches,
    )


def _serve(
    server: Server, host: str, port: int, ready: Callable[[list[str]], None], *, ladders: bool
) -> None:
    """Serve until Ctrl-C, playing the rolling ladders too when ``ladders``; a bind
    error (the port is taken) fails the command."""
    import trio

    from league.server.human_games import run_human_tables
    from league.server.ladders import run_ladders
    from league.server.serving import serve

    try:
        trio.run(
            lambda: serve(
                server,
                host=host,
                port=port,
                on_ready=ready,
                background=[run_human_tables, *([run_ladders] if ladders else [])],
            )
        )
    except* OSError as group:  # e.g. the port is taken (raised inside the server's nursery)
        first = _first_leaf(group)
        raise fail(f"cannot serve on {host}:{port}: {first}") from None


def _first_leaf(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group
