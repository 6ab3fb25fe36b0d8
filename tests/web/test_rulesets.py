"""The page offers, explains and counts the rulesets the server describes in `welcome.rulesets`:
a preset added to the server's `PRESETS` and nowhere else (tests/new_preset.py) is in the lobby's
lists with its title and help, and its game is counted by its scoring family, on a phone too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.new_preset import DESCRIBED, NAME, SERVER

from .conftest import WebServer
from .test_phone import PHONE, fits
from .test_play import create_room, moves


@pytest.fixture
def web_server(tmp_path):
    """The server with the preset added (this module's `open_page` opens it)."""
    server = WebServer(tmp_path / "polygo.db", ("-c", SERVER)).start()
    yield server
    server.stop()


def test_a_preset_added_on_the_server_is_offered_explained_and_counted(open_page):
    ann = open_page("ann")
    assert NAME in ann.evaluate("window.polygo.welcome.rulesets.map((r) => r.name)")
    expect(ann.locator(f"#rules option[value='{NAME}']")).to_have_text(DESCRIBED["title"])
    expect(ann.locator(f"#filter-rules option[value='{NAME}']")).to_have_text(DESCRIBED["title"])
    expect(ann.locator("#rules option").first).to_have_attribute("value", "kee")     # the server's order
    ann.select_option("#rules", NAME)
    expect(ann.locator("#rules-help")).to_have_text(DESCRIBED["help"])
    room = create_room(ann, {"rules": NAME, "board": "5", "title": "new rules"})
    head = ann.locator(".room-head .meta")
    expect(head).to_contain_text(f"{DESCRIBED['title']} · 5x5 · 2 players · komi 7")
    expect(head).to_have_attribute("title", DESCRIBED["help"])

    bob = open_page("bob", viewport=PHONE, touch=True)
    row = bob.locator(f"tr[data-room='{room}']")
    expect(row).to_contain_text(DESCRIBED["title"])
    fits(bob)
    row.locator("a.open-room").tap()
    bob.locator("button.sit").tap()
    ann.locator('svg#board g.pt[data-point="C3"]').click()
    for p in (ann, bob):
        expect(moves(p)).to_have_count(1)
    bob.locator("button.pass").tap()
    for p in (ann, bob):
        expect(moves(p)).to_have_count(2)
    ann.click("button.pass")
    ann.click("button.pass-yes")        # the pass that ends play asks first
    # an area count (the family the server says, not a name the page knows): the stone and the 24
    # points it alone touches for Black, the komi for White
    for p in (ann, bob):
        expect(p.locator(".room-head .status")).to_have_attribute("data-phase", "scoring")
        expect(p.locator(".count")).to_have_text("count now: B 25, W 7")
    fits(bob)
