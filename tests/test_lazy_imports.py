"""Structural start-up guards: what importing a bot or the CLI loads (not timings).

Each check runs a fresh interpreter and inspects ``sys.modules``, so one test's
imports cannot hide another's.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee.core.catalogue import entries, game_names, get_codec, get_game
from referee.gamekit.base import RulesError

LAZY_IMPORTS: dict[str, str] = {
    # "path module": why the import waits until the function runs. Start-up speed is
    # the only accepted reason (tests/test_code_shape.py checks the list is exact);
    # an import that would close a cycle is a layering bug, not an entry here.
    # league/ (helper "league"): what `arena --help` and friends must not load
    "league/cli/demo.py league.execution.demo": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/__init__.py importlib.metadata": (
        "importlib.metadata (~25 ms, the email package): `arena --version` only"
    ),
    "league/cli/demo.py league.store.db": (
        "SQLAlchemy, SQLModel, Alembic: only commands that open the database"
    ),
    "league/cli/authors.py league.store.authors": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/authors.py secrets": "secrets, hmac and random (~8 ms): `arena submit` only",
    "league/cli/authors.py tarfile": "tarfile and its compressors: `arena submit` only",
    "league/cli/authors.py urllib.error": "urllib.request (~20 ms: http, ssl, email): `submit`",
    "league/cli/authors.py urllib.request": "urllib.request (~20 ms: http, ssl, email): `submit`",
    "league/cli/authors.py league.execution.submissions": (
        "the server's upload limits, with the run stack (trio, gRPC, SQLModel):"
        " `submit --dry-run` only"
    ),
    "league/cli/authors.py league.store.uploads": (
        "the server's unpacking (and the sandbox's tree marker): `submit --dry-run` only"
    ),
    "league/cli/authors.py league.store.registry": (
        "SQLModel and the referee stack: `submit --dry-run` only (its errors' class)"
    ),
    "league/cli/authors.py referee.core.catalogue": (
        "the games' registrations (~7 ms): `submit --dry-run` only (is the game known)"
    ),
    "league/cli/common.py referee.runtime": (
        "the sandbox machinery (cgroups, seccomp, the /proc view; ~15 ms): commands that play"
    ),
    "league/cli/common.py referee.runtime.sandbox": (
        "the sandbox machinery (cgroups, seccomp, the /proc view; ~15 ms): commands that play"
    ),
    "league/cli/exploit.py referee.analysis.best_response": (
        "the game-tree solver and numpy's linear algebra paths (~8 ms): `arena exploit` only"
    ),
    "league/domain/bot_files.py detect_secrets.plugins": (
        "detect-secrets and requests (~90 ms: http, ssl): only scanning a bot's files"
        " (`arena submit`, the server's uploads)"
    ),
    "league/cli/leagues.py league.domain.ratings": (
        "the rating fits (statistics, random; ~10 ms): standings and crosstable only"
    ),
    "league/cli/games.py sdk": (
        "the SDK and every game's engine: `arena games --describe/--write-docs` only"
    ),
    "league/cli/bots.py league.execution.botcheck": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/bots.py league.store.registry": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/bots.py league.store.rolling_ladders": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/bots.py referee.runtime.process": "trio and gRPC: only commands that start bots",
    "league/cli/common.py league.store.db": (
        "SQLAlchemy, SQLModel, Alembic: only commands that open the database"
    ),
    "league/cli/common.py league.store.registry": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py league.execution.adaptive": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/leagues.py league.execution.ray_executor": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/leagues.py league.execution.league_run": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/leagues.py league.store.bluff": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py league.store.leagues": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py league.store.mixed_moves": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py referee.records.mixed_answers": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/leagues.py league.store.registry": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py league.web.report": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py league.store.standings": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py league.store.luck_standings": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/leagues.py referee.records.analytics": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/leagues.py trio": "trio: only commands that run an event loop",
    "league/cli/leagues.py referee.core.chance": (
        "hashlib, hmac and secrets (~6 ms of every `arena` start): `arena league verify` only"
    ),
    "league/cli/leagues.py referee.core.faults": "gRPC's status codes: `arena league matches`",
    "league/cli/games.py referee.core.catalogue": (
        "the games' registrations and their dataclasses (~7 ms of every `arena` start):"
        " `arena games` only"
    ),
    "league/cli/exploit.py referee.core.catalogue": (
        "the games' registrations (~7 ms of every `arena` start): `arena exploit` only"
    ),
    "league/cli/match.py referee.records.files": (
        "tempfile and random (~3 ms of every `arena` start): only `--record` writes a file"
    ),
    "league/cli/replay.py referee.records.files": (
        "tempfile and random (~3 ms of every `arena` start): only `--html` writes a file"
    ),
    "league/cli/match.py referee.core.catalogue": (
        "the games' registrations (~7 ms of every `arena` start): `arena match` only"
    ),
    "league/cli/scaffold.py referee.core.catalogue": (
        "the games' registrations and their dataclasses (~7 ms of every `arena` start):"
        " `arena bot new` only"
    ),
    "league/cli/serve.py logging": "logging (~3 ms of every `arena` start): `arena serve` only",
    "league/cli/serve.py league.server.auth": "the server's key checks: `arena serve` only",
    "league/cli/serve.py league.server.throttle": "the server's throttle: `arena serve` only",
    "league/cli/match.py referee.runtime.match": "trio and gRPC: only commands that start bots",
    "league/cli/exploit.py trio": "trio: only `arena exploit` on a bot process",
    "league/cli/exploit.py league.execution.policy_probe": (
        "trio, gRPC and the launcher: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit.py league.execution.probe_matches": (
        "trio, gRPC and the warm pool: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit.py referee.runtime.match": (
        "trio and gRPC: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit.py league.cli.exploit_lbr": (
        "lower-bound: trio, gRPC and the launcher: only `arena exploit --lower-bound`"
    ),
    "league/cli/exploit.py referee.core.faults": "gRPC's status codes: only `arena exploit`",
    "league/cli/exploit.py referee.runtime.process": "trio and gRPC: only commands that start bots",
    "league/cli/exploit.py league.execution.exploit": (
        "SQLModel (the stored measurement): only `arena exploit`"
    ),
    "league/cli/exploit.py league.store.registry": "SQLModel: only a registered BOT",
    "league/cli/exploit.py league.cli.exploit_adaptive": (
        "the adaptive rounds' driver (trio, gRPC on first use): only `arena exploit` on a bot"
    ),
    "league/cli/exploit_adaptive.py league.execution.adaptive_exploit": (
        "numpy's bracket arithmetic: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit_adaptive.py league.execution.probe_matches": (
        "trio, gRPC and the warm pool: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit_adaptive.py trio": "trio: only `arena exploit` on a bot process",
    "league/cli/exploit_exact.py league.execution.probe_matches": (
        "trio, gRPC and the warm pool: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit_exact.py league.execution.probe_mixed": (
        "trio, gRPC, the warm pool and multiprocessing: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit_exact.py referee.core.faults": "gRPC's status codes: only `arena exploit`",
    "league/cli/exploit_exact.py referee.runtime.match": (
        "trio and gRPC: only `arena exploit` on a bot process"
    ),
    "league/cli/exploit_exact.py league.execution.exploit": (
        "SQLModel (the stored measurement): only `arena exploit`"
    ),
    "league/cli/exploit_exact.py league.execution.exploit_bounds": (
        "the bounded best responses: only `arena exploit` when the budget ran out"
    ),
    "league/cli/exploit_exact.py referee.analysis.best_response": (
        "the game-tree solver: only `arena exploit`"
    ),
    "league/cli/leagues.py league.store.rolling_ladders": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/exploit.py league.store.exploits": "SQLModel: only a registered BOT",
    "league/cli/exploit.py league.store.models": "SQLModel: only a registered BOT",
    "league/cli/exploit.py sdk.strategy_table": "the SDK package (gRPC server): only `--save`",
    "league/cli/match.py referee.runtime.process": "trio and gRPC: only commands that start bots",
    "league/cli/match.py referee.records.transcript": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/replay.py google.protobuf": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/replay.py league.store.leagues": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/replay.py referee.records.html_replay": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/replay.py referee.records.record": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/replay.py referee.records.replay": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/replay.py referee.records.transcript": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/play.py league.cli.match": "the referee stack: only commands that play",
    "league/cli/play.py league.execution.human_play": (
        "SQLModel, gRPC and the referee stack: only commands that play"
    ),
    "league/cli/play.py referee.core.catalogue": "the game engines: only commands that play",
    "league/cli/play.py referee.records.transcript": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/play.py sdk.human": "the game engines: only commands that play",
    "league/cli/play.py league.store.human_games": (
        "SQLModel and the humans league's store: only a game that is played"
    ),
    "league/cli/play.py referee.records.files": (
        "the record files' writer: only a game that keeps its record (--record)"
    ),
    "league/cli/play.py trio": "trio: only commands that play",
    "league/cli/rerun.py referee.core.chance": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rerun.py league.store.leagues": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rerun.py league.store.mixed_moves": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rerun.py referee.records.mixed_answers": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/rerun.py league.store.models": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rerun.py league.store.registry": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rerun.py sqlmodel": "SQLModel: only commands that read the database",
    "league/cli/rerun.py referee.records.record": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/rerun.py referee.records.replay": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/rerun.py referee.records.transcript": (
        "protobuf: only commands that read or print match records"
    ),
    "league/cli/rerun.py referee.runtime.match": "trio and gRPC: only commands that start bots",
    "league/cli/rerun.py referee.runtime.process": "trio and gRPC: only commands that start bots",
    "league/cli/rolling.py league.execution.rolling_runs": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/rolling.py league.store.leagues": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rolling.py league.store.registry": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rolling.py league.store.rolling_ladders": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/rolling.py trio": "trio: only commands that run an event loop",
    "league/cli/sprt.py league.execution.sprt_runs": (
        "the run stack (trio, gRPC, SQLModel): only commands that play"
    ),
    "league/cli/sprt.py league.store.leagues": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/sprt.py league.store.registry": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/sprt.py league.store.runlock": (
        "SQLAlchemy and the league's tables: only commands that read the database"
    ),
    "league/cli/sprt.py league.store.sprt_tests": (
        "SQLModel and the referee stack: only commands that read the database"
    ),
    "league/cli/sprt.py trio": "trio: only commands that run an event loop",
    "league/cli/scaffold.py sdk": (
        "protobuf and gRPC: `arena bot new` only (reads the game's SDK module)"
    ),
    "league/cli/serve.py league.server.ladders": (
        "Starlette, Jinja2, Hypercorn, SQLModel: `arena serve` only"
    ),
    "league/cli/serve.py league.server.human_games": (
        "Starlette and the referee stack: `arena serve` only"
    ),
    "league/cli/serve.py league.server.human_tables": (
        "Starlette and the referee stack: `arena serve` only"
    ),
    "league/cli/serve.py league.server.serving": (
        "Starlette, Jinja2, Hypercorn, SQLModel: `arena serve` only"
    ),
    "league/cli/serve.py league.server.state": (
        "Starlette, Jinja2, Hypercorn, SQLModel: `arena serve` only"
    ),
    "league/cli/serve.py league.execution.submissions": (
        "Starlette, Jinja2, Hypercorn, SQLModel: `arena serve` only"
    ),
    "league/cli/serve.py league.store.db": (
        "SQLAlchemy, SQLModel, Alembic: only commands that open the database"
    ),
    "league/cli/serve.py trio": "trio: only commands that run an event loop",
    "league/store/db.py alembic": (
        "Alembic (~140 ms, a sixth of a database command's start-up): only a database"
        " that is not at HEAD_REVISION yet migrates"
    ),
    "league/store/db.py alembic.config": "Alembic's configuration: only when migrating",
    "league/execution/ray_executor.py ray": (
        "Ray is an optional extra (pip install '.[ray]') and slow to import: --executor ray only"
    ),
    "referee/core/catalogue.py importlib.metadata": (
        "~20 ms: only looking up an installed game, or listing every game, reads the"
        " entry points; a bot of a built-in game (and every bot start) never does"
    ),
    "sdk/serve.py argparse": (
        "argparse and gettext (~1.7 ms of every bot's start): a bot the referee starts has no"
        " arguments and reads its options from the environment"
    ),
    "sdk/serve.py referee.wire.deltas": (
        "the codec layer: a bot answers Health first and builds it after (see BotServicer.codec)"
    ),
    "referee/gamekit/dice.py fractions": (
        "fractions, decimal and numbers (~2 ms of every dice bot's start): only the exact"
        " odds helpers build Fractions; the engines import this module for its faces"
    ),
    "sdk/serve.py hmac": (
        "hmac and hashlib (~3 ms of every bot's start): only a bot served with a token"
    ),
    "referee/wire/base.py google.protobuf": (
        "protobuf's JSON mapping (json_format, ~2 ms): only match records use it, and every"
        " bot's start loads the codec base"
    ),
    "referee/runtime/sandbox.py importlib.metadata": (
        "~20 ms: only building a sandbox reads where installed games live; the CLI's"
        " other commands never do"
    ),
    "referee/runtime/seccomp_notify.py pyseccomp": (
        "libseccomp through ctypes (~20 ms): only naming a call the sandbox refused a bot"
        " needs it, which honest bots never make"
    ),
    "referee/runtime/seccomp.py pyseccomp": (
        "loads libseccomp through ctypes (~20 ms) and fails on a host without it: only a"
        " sandboxed match compiles the filter (the CLI, the server and --no-sandbox runs"
        " never do), and the failure becomes SeccompUnavailable there"
    ),
    "bench/__main__.py ray": "Ray (an optional extra) takes seconds to import; only the"
    " ray section probes for it",
    "bench/exploit_exact.py pyspiel": (
        "OpenSpiel (optional, ~1 s to import): only its reference value, when installed"
    ),
    "bench/exploit_exact.py open_spiel.python": (
        "OpenSpiel (optional, ~1 s to import): only its reference value, when installed"
    ),
    "bench/exploit_exact.py open_spiel.python.algorithms": (
        "OpenSpiel (optional, ~1 s to import): only its reference value, when installed"
    ),
    "bench/engine.py pyspiel": "OpenSpiel (optional) takes ~1 s to import; only the"
    " side-by-side row needs it",
    "bench/league.py league.execution.ray_executor": (
        "imports Ray (seconds); only the Ray rows use it"
    ),
    "bench/server_load.py league.store.db": "the database stack (SQLAlchemy) loads only for the"
    " server section, not for `python -m bench --only wire`",
    "bench/server_load.py league.store.models": "SQLModel tables: only the server section",
    "bench/server_load.py league.store.registry": "the database stack: only the server section",
    "bench/server_load.py league.store.rolling_ladders": (
        "the database stack: only the server section"
    ),
    "bench/server_load.py sqlmodel": "SQLModel/SQLAlchemy: only the server section",
}


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(package.rstrip(".") + "."))


def test_the_catalogue_names_each_engine_and_codec_by_its_own_name() -> None:
    for entry in entries():
        assert get_game(entry.name).name == entry.name
        assert get_game(entry.name).title == entry.title
        assert get_codec(entry.name).game == entry.name


def test_unknown_names_are_rules_errors() -> None:
    assert "chess" not in game_names()
    with pytest.raises(RulesError, match="unknown game 'chess'"):
        get_game("chess")
    with pytest.raises(RulesError, match="no wire codec"):
        get_codec("chess")


def test_a_liars_dice_bot_loads_no_other_game() -> None:
    modules = _modules_after("import sdk, sdk.liars_dice")
    assert "referee.gamekit.poker_hands" not in modules
    for other in ("liars_poker", "liars_poker_dice", "dice_poker", "cockroach_poker"):
        assert f"referee.games.{other}.engine" not in modules
        assert f"referee.games.{other}.codec" not in modules


def test_a_bot_loads_from_referee_only_the_games_the_codecs_and_the_play_core() -> None:
    modules = _modules_after("import sdk, sdk.liars_dice, sdk.local")
    layers = ("referee.gamekit", "referee.games", "referee.wire", "referee.core")
    rest = [
        m
        for m in _loaded(modules, "referee")
        if m != "referee" and not any(m == layer or m.startswith(layer + ".") for layer in layers)
    ]
    assert rest == []
    assert _loaded(modules, "trio") == []


def test_a_bot_loads_neither_token_checks_nor_the_json_mapping_to_start() -> None:
    modules = _modules_after("import sdk, sdk.liars_dice; import sdk.serve")
    for module in ("hmac", "hashlib", "argparse", "fractions", "google.protobuf.json_format"):
        assert module not in modules, module


def test_a_bot_without_arguments_gets_the_options_its_parser_would_give(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sdk import serve

    monkeypatch.setenv("ARENA_LISTEN", "unix:/tmp/x.sock")
    monkeypatch.setenv("ARENA_TLS_CERT", "cert.pem")
    monkeypatch.delenv("ARENA_TLS_KEY", raising=False)
    monkeypatch.setenv("ARENA_BOT_TOKEN_FILE", "token.txt")
    parsed = vars(serve._parser().parse_known_args([])[0])
    assert vars(serve._from_environment()) == parsed


def c_names() -> tuple[str, ...]:
    from referee.core.catalogue import BUILTIN_GAMES

    return BUILTIN_GAMES


def test_listing_games_imports_no_engine() -> None:
    """Only each game's registration (its package ``__init__``), never its engine."""
    modules = _modules_after("import referee.core.catalogue as c; sorted(c.game_names())")
    loaded = _loaded(modules, "referee.games")
    registrations = {f"referee.games.{name}" for name in c_names()}
    assert [m for m in loaded if m != "referee.games" and m not in registrations] == []
    assert _loaded(modules, "referee.gamekit.") == [
        "referee.gamekit.base",
        "referee.gamekit.entry",
        "referee.gamekit.errors",
    ]
    assert _loaded(modules, "referee.wire") == []
    assert _loaded(modules, "google.protobuf") == []


HEAVY_FOR_THE_CLI = (
    "referee.core.catalogue",
    "referee.core.chance",
    "referee.gamekit.base",
    "logging",
    "urllib.request",
    "http.client",
    "ssl",
    "referee.runtime.sandbox",
    "referee.runtime.cgroups",
    "referee.runtime.seccomp",
    "league.domain.ratings",
    "referee.analysis",
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "trio",
    "grpc",
    "google.protobuf",
    "starlette",
    "hypercorn",
    "jinja2",
)


def _run_cli(*args: str) -> str:
    return (
        "import contextlib, io, sys\n"
        f"sys.argv = ['arena', {', '.join(repr(a) for a in args)}]\n"
        "from league.cli import run\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    run()\n"
    )


@pytest.mark.parametrize(
    ("label", "code"),
    [
        ("import league.cli", "import league.cli"),
        ("arena --help", _run_cli("--help")),
        ("arena league --help", _run_cli("league", "--help")),
        ("arena serve --help", _run_cli("serve", "--help")),
        ("arena games", _run_cli("games")),
        *(
            (f"arena {command} --help", _run_cli(command, "--help"))
            for command in (
                "replay",
                "submit",
                "sprt",
                "match",
                "exploit",
                "demo",
                "bot",
                "author",
                "rolling",
            )
        ),
    ],
)
def test_the_cli_loads_no_database_async_or_grpc_stack_until_a_command_needs_it(
    label: str, code: str
) -> None:
    modules = _modules_after(code)
    for package in HEAVY_FOR_THE_CLI:
        if label == "arena games" and package.startswith(("referee.core.cat", "referee.gamekit")):
            continue  # listing the games is the catalogue's job
        assert _loaded(modules, package) == [], f"{label} imported {package}"
    if label != "arena games":  # listing games needs the engines, nothing else does
        assert _loaded(modules, "referee.gamekit.poker_hands") == []
        assert _loaded(modules, "referee.games.liars_dice.engine") == []
    else:  # the probe really ran the command
        assert "referee.games.liars_poker.engine" in modules
