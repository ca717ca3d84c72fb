"""Browser tests share one setting: Playwright's `expect` waits as long as the pages' own
timeouts (its default, 5 s, is shorter than a cold app start on a loaded 2-core machine)."""

from __future__ import annotations

import pytest

EXPECT_TIMEOUT_MS = 60_000


@pytest.fixture(autouse=True)
def _patient_expect():
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    yield
