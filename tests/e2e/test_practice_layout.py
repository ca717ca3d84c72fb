"""The practice loop in a real browser (Debian chromium): after an answer, the newest exchange
and the next question are on screen without scrolling, on a desktop and on a phone.

With REHEARSE_SCREENS=<folder>, it also saves screenshots of every page it passes through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, launch_local, send_answer

pytestmark = pytest.mark.e2e

SIZES = {"desktop": (1400, 1000), "phone": (390, 844)}
FIRST = "On the TPU pod I profiled the training step and rewrote the jit boundaries to remove dynamic shapes."
SECOND = "TPU utilization went from 40% to 83% after the change."
FOLLOW_UPS = ["What was the result, in numbers?", "How did you measure the improvement",
              "How did you work with your team", "What was your part"]


def _shot(page, name: str) -> None:
    folder = os.environ.get("REHEARSE_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(600)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def _settled(page) -> None:
    """Streamlit streams a rerun: wait until the app has stopped running."""
    page.wait_for_timeout(400)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    page.wait_for_timeout(300)


def _in_view(page, text: str) -> dict:
    return page.evaluate(
        """(text) => {
            const nodes = [...document.querySelectorAll('[data-testid="stChatMessage"] p, [data-testid="stMarkdownContainer"] p')]
                .filter(n => n.innerText.includes(text));
            if (!nodes.length) return {found: false};
            const r = nodes[nodes.length - 1].getBoundingClientRect();
            return {found: true, top: r.top, bottom: r.bottom, height: window.innerHeight};
        }""",
        text,
    )


def _comes_into_view(page, text: str) -> dict:
    """Where `text` ends up once the page has scrolled to the newest exchange (the scroll runs
    after the rerun's last element renders; a late element can still shift the page)."""
    try:
        page.wait_for_function(
            """(text) => {
                const nodes = [...document.querySelectorAll('[data-testid="stChatMessage"] p, [data-testid="stMarkdownContainer"] p')]
                    .filter(n => n.innerText.includes(text));
                if (!nodes.length) return false;
                const r = nodes[nodes.length - 1].getBoundingClientRect();
                return r.top >= 0 && r.bottom <= window.innerHeight;
            }""",
            arg=text, timeout=15_000,
        )
    except Exception:  # noqa: BLE001 - Playwright's timeout: report where it is instead
        pass
    return _in_view(page, text)


def _send(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Your answer")
    box.fill(text)
    box.press("Tab")
    _settled(page)
    send_answer(page)
    _settled(page)


@pytest.mark.parametrize("size", list(SIZES))
def test_next_question_is_in_view_after_an_answer(app_url, size):
    from playwright.sync_api import expect, sync_playwright

    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    width, height = SIZES[size]
    with sync_playwright() as playwright:
        browser = launch_local(playwright, args=["--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page(viewport={"width": width, "height": height})
        page.set_default_timeout(60_000)
        page.goto(app_url)
        expect(page.get_by_role("button", name="Start the mock interview")).to_be_visible()
        _settled(page)
        _shot(page, f"start-{size}")
        page.get_by_role("button", name="Start the mock interview").click()
        expect(page.get_by_text("Dr. Seo-yeon Han:").first).to_be_visible()
        _settled(page)
        _shot(page, f"interview-question-{size}")

        _send(page, FIRST)
        page.wait_for_function("(qs) => qs.some(q => document.body.innerText.includes(q))", arg=FOLLOW_UPS)
        _settled(page)
        _shot(page, f"interview-after-answer-{size}")
        question = next(q for q in FOLLOW_UPS if _in_view(page, q)["found"])
        box = _comes_into_view(page, question)
        assert 0 <= box["top"] and box["bottom"] <= box["height"], (size, box)
        added = _in_view(page, "so far")
        assert added["found"] and 0 <= added["top"] and added["bottom"] <= added["height"], (size, added)

        _send(page, SECOND)
        _settled(page)
        _shot(page, f"interview-second-answer-{size}")
        box = _comes_into_view(page, "so far")
        assert box["found"] and 0 <= box["top"] and box["bottom"] <= box["height"], (size, box)
        browser.close()


def _newest_question_box(page) -> dict:
    """Where the persona's newest line (the question to answer now) is, once the page has
    scrolled to the newest exchange."""
    script = """() => {
        const lines = [...document.querySelectorAll('.st-key-newest-exchange [data-testid="stChatMessage"]')];
        if (!lines.length) return null;
        const r = lines[lines.length - 1].getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: window.innerHeight};
    }"""
    try:
        page.wait_for_function(f"() => {{ const b = ({script})(); return b && b.top >= 0 && b.top < b.height - 40; }}",
                               timeout=15_000)
    except Exception:  # noqa: BLE001 - Playwright's timeout: report where it is instead
        pass
    return page.evaluate(script)


def _content(summary):
    """An expander's content, given its title: `inert` while the expander is closed."""
    return summary.locator("xpath=..").locator('[data-testid="stExpanderDetails"]').first


def test_opening_one_scorecard_leaves_later_ones_closed(app_url):
    """Issue 17, item 6: "Full scorecard and tips" opened for one answer stays that answer's;
    the next answer's scorecard comes closed and the next question stays on screen."""
    from playwright.sync_api import expect, sync_playwright

    width, height = SIZES["desktop"]
    with sync_playwright() as playwright:
        browser = launch_local(playwright, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": width, "height": height})
        page.set_default_timeout(60_000)
        page.goto(f"{app_url}/interview?card=gpu-cluster-optimization")
        page.get_by_role("button", name="Start").click()
        expect(page.get_by_text("Dr. Seo-yeon Han:").first).to_be_visible()
        _settled(page)
        _send(page, FIRST)
        page.wait_for_function("(qs) => qs.some(q => document.body.innerText.includes(q))", arg=FOLLOW_UPS)
        _settled(page)
        scorecards = page.locator("summary", has_text="Full scorecard and tips")
        expect(scorecards).to_have_count(1)
        scorecards.first.click()
        expect(_content(scorecards.first)).not_to_have_attribute("inert", "")
        _settled(page)
        _send(page, SECOND)
        expect(page.get_by_text("The conversation so far (2 questions)")).to_be_visible()
        _settled(page)
        expect(scorecards).to_have_count(2)
        newest = page.locator(".st-key-newest-exchange summary", has_text="Full scorecard and tips")
        expect(newest).to_have_count(1)
        expect(_content(newest.first)).to_have_attribute("inert", "")  # the new answer's scorecard is closed
        box = _newest_question_box(page)
        _shot(page, "scorecard-opened-then-next-answer-desktop")
        browser.close()
    assert box and 0 <= box["top"] and box["top"] < box["height"] - 40, box  # the next question is on screen
