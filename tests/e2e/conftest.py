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

    def beyond(url: str) -> bool:  # only these are routed: the app's own requests go untouched
        parts = urlsplit(url)
        return parts.scheme not in ("data", "blob") and parts.hostname not in LOOPBACK_HOSTS

    def abort(route):
        blocked.append(route.request.url)
        route.abort()

    context.route(beyond, abort)
    return blocked
