"""Remote bots over TLS with a token: the right bot plays, anyone else fails startup.

Certificates are self-signed, made with the ``openssl`` command line; each one
is its own CA, as an operator would pin a bot's certificate.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.core.faults import FaultKind
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from tests.e2e.conftest import EXAMPLE, module_bot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command"),
]

TOKEN = "s3cret-token-for-the-test"
LIMITS = Limits(decision_s=5.0, startup_s=20.0)
SHORT = Limits(decision_s=5.0, startup_s=3.0)


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1/localhost and its key."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"bot service on port {port} did not start")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    directory = tmp_path_factory.mktemp("certs")
    return {name: self_signed(directory, name) for name in ("bot", "impostor")}


def start_service(*args: str, token: str | None) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    if token is not None:
        env["ARENA_BOT_TOKEN"] = token
    process = subprocess.Popen(
        [sys.executable, "-m", EXAMPLE["random"], "--listen", f"127.0.0.1:{port}", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_listening(port, process)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture(scope="module")
def tls_bot(certs: dict[str, tuple[Path, Path]]) -> Iterator[str]:
    """The real bot: TLS with its own certificate, and the token."""
    cert, key = certs["bot"]
    yield from start_service("--tls-cert", str(cert), "--tls-key", str(key), token=TOKEN)


@pytest.fixture(scope="module")
def impostor(certs: dict[str, tuple[Path, Path]]) -> Iterator[str]:
    """Someone else's service: TLS, but not with the bot's key; takes any caller."""
    cert, key = certs["impostor"]
    yield from start_service(
        "--tls-cert", str(cert), "--tls-key", str(key), "--no-token", token=None
    )


@pytest.fixture(scope="module")
def plaintext_impostor() -> Iterator[str]:
    yield from start_service("--no-token", token=None)


def remote(address: str, ca: Path, *, token_env: str = "", token_file: str = "") -> BotSpec:
    return BotSpec(
        "remote", address=address, tls_ca=str(ca), token_env=token_env, token_file=token_file
    )


async def test_a_tls_bot_with_its_token_plays_a_match(
    tls_bot: str, certs: dict[str, tuple[Path, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMOTE_BOT_TOKEN", TOKEN)
    bots = (
        module_bot(EXAMPLE["probability"]),
        remote(tls_bot, certs["bot"][0], token_env="REMOTE_BOT_TOKEN"),
    )
    record = await run_match(MatchSpec("liars_dice", bots, seed=2), LIMITS)
    assert record.reason == "completed", record.faults
    assert TOKEN not in record.to_json()


async def test_the_token_can_come_from_a_file(
    tls_bot: str, certs: dict[str, tuple[Path, Path]], tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    bots = (
        module_bot(EXAMPLE["random"]),
        remote(tls_bot, certs["bot"][0], token_file=str(token_file)),
    )
    record = await run_match(MatchSpec("liars_dice", bots, seed=3), LIMITS)
    assert record.reason == "completed", record.faults


@pytest.mark.parametrize("token", ["wrong-token", None])
async def test_a_wrong_or_missing_token_is_refused_at_once(
    tls_bot: str,
    certs: dict[str, tuple[Path, Path]],
    monkeypatch: pytest.MonkeyPatch,
    token: str | None,
) -> None:
    if token is None:
        spec = remote(tls_bot, certs["bot"][0])
    else:
        monkeypatch.setenv("REMOTE_BOT_TOKEN", token)
        spec = remote(tls_bot, certs["bot"][0], token_env="REMOTE_BOT_TOKEN")
    started = time.monotonic()
    record = await run_match(
        MatchSpec("liars_dice", (module_bot(EXAMPLE["random"]), spec), seed=1), LIMITS
    )
    assert time.monotonic() - started < 10  # not the 20 s startup budget
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.STARTUP)]
    assert "UNAUTHENTICATED" in record.faults[0].message
    assert record.places == (1, 2)


async def test_an_unset_token_variable_is_a_startup_fault_naming_it(
    tls_bot: str, certs: dict[str, tuple[Path, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN_VAR", raising=False)
    spec = remote(tls_bot, certs["bot"][0], token_env="NO_SUCH_TOKEN_VAR")
    record = await run_match(
        MatchSpec("liars_dice", (module_bot(EXAMPLE["random"]), spec), seed=1), LIMITS
    )
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.STARTUP)]
    assert "'NO_SUCH_TOKEN_VAR'" in record.faults[0].message


@pytest.mark.parametrize("server", ["impostor", "plaintext_impostor"])
async def test_an_impostor_without_the_bots_key_fails_the_handshake(
    server: str,
    certs: dict[str, tuple[Path, Path]],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """Someone else answers at the bot's address (own certificate, or no TLS):
    the referee pins the bot's CA, so the TLS handshake fails and the token is
    never sent."""
    address = request.getfixturevalue(server)
    monkeypatch.setenv("REMOTE_BOT_TOKEN", TOKEN)
    spec = remote(address, certs["bot"][0], token_env="REMOTE_BOT_TOKEN")
    record = await run_match(
        MatchSpec("liars_dice", (module_bot(EXAMPLE["random"]), spec), seed=1), SHORT
    )
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.STARTUP)]
    message = record.faults[0].message
    assert "not ready" in message and "handshake failed" in message.lower(), message
    assert record.seats[1].start_sent is False


def test_the_sdk_refuses_a_network_address_without_a_token() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    result = subprocess.run(
        [sys.executable, "-m", EXAMPLE["random"], "--listen", f"127.0.0.1:{free_port()}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "needs a token" in result.stderr


def test_arena_bot_add_stores_where_the_token_is_not_the_token(
    tls_bot: str,
    certs: dict[str, tuple[Path, Path]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    import json

    from typer.testing import CliRunner

    from league.cli import app

    def arena(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, ["--db", f"sqlite:///{tmp_path / 'a.db'}", *args])
        return result.exit_code, result.output

    ca = str(certs["bot"][0])
    add = ("bot", "add", "remote", "--address", tls_bot, "--tls-ca", ca)
    monkeypatch.setenv("REMOTE_BOT_TOKEN", "not-the-token")
    code, out = arena(*add, "--token-env", "REMOTE_BOT_TOKEN")
    assert code != 0 and "UNAUTHENTICATED" in out, out
    monkeypatch.setenv("REMOTE_BOT_TOKEN", TOKEN)
    code, out = arena(*add, "--token-env", "REMOTE_BOT_TOKEN")
    assert code == 0 and "plays liars_dice" in out, out
    code, out = arena("bot", "show", "remote", "--json")
    shown = json.loads(out)
    assert (shown["token_env"], shown["tls_ca"]) == ("REMOTE_BOT_TOKEN", str(Path(ca).resolve()))
    assert TOKEN not in (tmp_path / "a.db").read_bytes().decode("latin-1")
    code, out = arena("bot", "add", "x", "--cmd", "python -m bot", "--token-env", "T")
    assert code != 0 and "for a bot reached by --address" in out
