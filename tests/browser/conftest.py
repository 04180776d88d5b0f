"""Browser tests: a real headless Chromium driven by Playwright (skipped without one)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives a real headless Chromium (Playwright); skipped without one"
    )
