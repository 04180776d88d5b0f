"""Browser tests: a real headless Chromium driven by Playwright (skipped without one)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives a real headless Chromium (Playwright); skipped without one"
    )


CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("browser tests skipped: Playwright is not installed (pip install playwright)")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"browser tests skipped: no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=ARGS, timeout=30_000
            )
        except Error as error:
            pytest.skip(f"browser tests skipped: Chromium at {CHROMIUM} did not start: {error}")
        yield launched
        launched.close()


@dataclass
class Watched:
    page: Page
    problems: list[str] = field(default_factory=list)


@contextmanager
def watched_page(
    browser: Browser, allowed: Callable[[str], bool], timeout_ms: int = 10_000
) -> Iterator[Watched]:
    """A fresh page that records console errors, page errors, dialogs and requests
    to URLs ``allowed`` refuses."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    watched = Watched(page)

    def console(message: Any) -> None:
        if message.type in ("error", "assert"):
            watched.problems.append(f"console {message.type}: {message.text}")

    def dialog(d: Any) -> None:
        watched.problems.append(f"dialog: {d.message}")
        d.dismiss()

    def request(r: Any) -> None:
        if not allowed(r.url):
            watched.problems.append(f"request: {r.url}")

    page.on("console", console)
    page.on("pageerror", lambda error: watched.problems.append(f"page error: {error}"))
    page.on("dialog", dialog)
    page.on("request", request)
    try:
        yield watched
    finally:
        context.close()


@pytest.fixture
def tab(browser: Browser) -> Iterator[Watched]:
    """A self-contained page: any request beyond its own file is a problem."""
    with watched_page(browser, lambda url: url.startswith("file://")) as watched:
        yield watched
