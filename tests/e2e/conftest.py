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


LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


def local_only(context) -> list[str]:
    """Every request of a browser context that does not go to this machine is aborted (the
    oidc-provider-mock sign-in page asks a CDN for a stylesheet): no browser test depends on the
    network. Returns the list the blocked URLs are added to."""
    from urllib.parse import urlsplit

    blocked: list[str] = []

    def route(route):
        url = route.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).hostname in LOOPBACK_HOSTS:
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", route)
    return blocked
