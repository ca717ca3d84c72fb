"""A question of the learner's own in a real browser (Debian chromium), issue 20: typed on the
Start screen as "a story from experience", practised at once, and followed up on what the
answer missed in words that quote it; Markdown and HTML in a question show as typed. On the same
Start page (sharing this module's server), a library card's preview is made when it is opened.

With REHEARSE_SCREENS=<folder>, it also saves screenshots of the pages it passes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, launch_local
from tests.e2e.test_practice_layout import SIZES, _send, _settled, _shot

pytestmark = pytest.mark.e2e

QUESTION = "How did you cut inference serving cost at your last job?"
HOSTILE = ("Explain <b>bold</b> and **stars** <img src=x onerror=\"document.title='pwned'\"> "
           "[a link](http://example.com) in caching?")


def _browser(playwright, size: str):
    width, height = SIZES[size]
    browser = launch_local(playwright, args=["--no-sandbox", "--disable-gpu"])
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(60_000)
    return browser, page


def _own_question(page, url: str, question: str, kind: str = "A story from experience") -> None:
    from playwright.sync_api import expect

    page.goto(url)
    opener = page.get_by_text("Practise my own question").first
    expect(opener).to_be_visible()
    _settled(page)
    opener.click()
    box = page.get_by_role("textbox", name="Your question, or several, one per line")
    box.fill(question)
    box.press("Tab")
    _settled(page)
    page.locator('[data-testid="stRadio"]').get_by_text(kind).click()
    _settled(page)


@pytest.mark.parametrize("size", list(SIZES))
def test_own_story_question_is_practised_and_followed_up_on_what_was_missing(app_url, size):
    from playwright.sync_api import expect, sync_playwright

    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    question = QUESTION if size == "desktop" else QUESTION.replace("last job", "previous team")
    with sync_playwright() as playwright:
        browser, page = _browser(playwright, size)
        _own_question(page, app_url, question)
        _shot(page, f"own-question-form-{size}")
        page.get_by_role("button", name="Practise it now").click()
        expect(page.get_by_role("heading", name="Mock interview")).to_be_visible()
        persona = page.locator('[data-testid="stChatMessage"]').filter(has_text=question.rstrip("?")).first
        expect(persona).to_contain_text("Dr. Seo-yeon Han:")
        _settled(page)
        _shot(page, f"own-question-asked-{size}")

        _send(page, "I think it went well overall, and the team was happy with it.")
        quoted = f'"{question.rstrip("?")}"'
        page.wait_for_function("(q) => document.body.innerText.includes(q)", arg=quoted)
        _settled(page)
        _shot(page, f"own-question-follow-up-{size}")
        follow_up = page.locator('[data-testid="stChatMessage"]').filter(has_text=quoted).last
        expect(follow_up).to_contain_text("Dr. Seo-yeon Han:")
        expect(page.get_by_text("no criterion met yet").first).to_be_visible()
        expect(page.get_by_text("Still missing:").first).to_be_visible()
        browser.close()


def test_markdown_and_html_in_an_own_question_show_as_typed(app_url):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser, page = _browser(playwright, "desktop")
        _own_question(page, app_url, HOSTILE)
        page.get_by_role("button", name="Practise it now").click()
        expect(page.get_by_role("heading", name="Mock interview")).to_be_visible()
        line = page.locator('[data-testid="stChatMessage"]').filter(has_text="Explain").first
        expect(line).to_contain_text("<b>bold</b> and **stars**")
        _settled(page)
        shown = line.inner_text().replace("\u2060", "")  # the word joiner that keeps a URL from linking
        assert "[a link](http://example.com) in caching?" in shown, shown
        _shot(page, "own-question-markup")
        rendered = line.locator("b, strong:has-text('stars'), img, a")
        assert rendered.count() == 0, rendered.evaluate_all("nodes => nodes.map(n => n.outerHTML)")
        header = page.get_by_text("Explain <b>bold</b> and **stars**").first  # the card's title line too
        expect(header).to_be_visible()
        assert "pwned" not in page.title()
        browser.close()


def test_a_library_card_shows_its_preview_when_opened(app_url):
    """The Start page lists the library's cards closed; a card's preview is made when it is opened."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser, page = _browser(playwright, "desktop")
        page.goto(app_url)
        expect(page.get_by_text("Interview questions (")).to_be_visible()
        _settled(page)
        assert page.get_by_text("What a good answer shows").count() == 0  # no preview made before it is opened
        page.locator('[class*="st-key-library-gpu-cluster-optimization"] summary').click()
        card = page.locator('[class*="st-key-library-gpu-cluster-optimization"]')
        expect(card.get_by_text("What a good answer shows")).to_be_visible()
        expect(card.get_by_role("link", name="Practise this card")).to_be_visible()
        browser.close()
