"""The web server (``league.server``) running in this test process, on a free
loopback port, so a test can count what it does (scrypt calls, check starts) while
real clients — other processes — talk HTTP to it.

Clients may connect from different loopback addresses (``127.0.0.2``,
``127.0.0.3``...): Linux routes all of 127.0.0.0/8 to ``lo``, so the server sees
each as a distinct client address.
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import trio

from league.server.serving import Background, make_server, serve
from league.server.state import Server, Settings
from tests.server.harness import Reply


@dataclass
class LiveServer:
    url: str
    server: Server

    def request(
        self,
        path: str,
        *,
        method: str = "GET",
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        source: str = "127.0.0.1",
        timeout: float = 60,
    ) -> Reply:
        """One request from the loopback address ``source``."""
        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(
            parts.hostname or "", parts.port, timeout=timeout, source_address=(source, 0)
        )
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return Reply(
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            connection.close()


@contextmanager
def live_server(
    engine: Any, store: Path, *, settings: Settings | None = None,
    background: Sequence[Background] = (),
) -> Iterator[LiveServer]:  # fmt: skip
    """``league.server.serving.serve`` on ``127.0.0.1:<free port>`` in a thread."""
    server = make_server(engine, settings or Settings(store=store, watch_interval_s=0.2))
    ready = threading.Event()
    binds: list[str] = []
    handles: dict[str, Any] = {}
    failure: list[BaseException] = []

    async def main() -> None:
        handles["token"] = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            handles["scope"] = scope

            def on_ready(found: list[str]) -> None:
                binds.extend(found)
                ready.set()

            await serve(
                server, port=0, on_ready=on_ready, handle_signals=False, background=background
            )

    def run() -> None:
        try:
            trio.run(main)
        except BaseException as error:  # reported to the test below
            failure.append(error)
        finally:
            ready.set()

    thread = threading.Thread(target=run, name="live-server", daemon=True)
    thread.start()
    ready.wait(60)
    if failure or not binds:
        raise AssertionError(f"the server did not start: {failure}")
    try:
        yield LiveServer(binds[0], server)
    finally:
        trio.from_thread.run_sync(handles["scope"].cancel, trio_token=handles["token"])
        thread.join(30)
        assert not thread.is_alive(), "the server thread did not stop"
