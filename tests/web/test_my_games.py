"""The games that wait for your move, in a real browser: the lobby's "Your turn" list (the most
pressing first), the count in the tab's title, and a notification when a game newly waits for you
while the page is in the background (the browser's Notification stubbed: headless Chromium shows
none)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

BACKGROUND = """
window.__notes = [];
window.__hidden = false;
Object.defineProperty(Document.prototype, "hidden", { get() { return window.__hidden; }, configurable: true });
window.Notification = class {
  constructor(title, options) { window.__notes.push([title, options.body]); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
localStorage.setItem("polygo.prefs", JSON.stringify({ notify: true }));
"""


def request(page: Page, kind: str, fields: dict):
    return page.evaluate("([kind, fields]) => polygo.conn.request(kind, fields)", [kind, fields])


def corr_game(creator: Page, black: Page, white: Page, clock: str) -> str:
    room = request(creator, "create", {"settings": {"rules": "chinese", "board": "9", "clock": clock}})["room"]
    request(black, "sit", {"room": room, "seat": 0})
    request(white, "sit", {"room": room, "seat": 1})
    return room


def test_the_lobby_lists_the_games_where_it_is_my_turn_and_tells_a_new_one(open_page):
    ann, bob = open_page("ann"), open_page("bob")
    later = corr_game(ann, ann, bob, "corr:2d")
    sooner = corr_game(ann, ann, bob, "corr:1d")
    corr_game(bob, bob, ann, "corr:1d")                 # bob's turn there
    ann.context.add_init_script(BACKGROUND)
    ann.reload()

    turns = ann.locator("#your-turn li")
    expect(turns).to_have_count(2)
    expect(turns.nth(0)).to_have_attribute("data-room", sooner)
    expect(turns.nth(1)).to_have_attribute("data-room", later)
    expect(turns.nth(0)).to_contain_text(re.compile(r"chinese against bob · 23h 5\dm left"))
    expect(ann).to_have_title("(2) Your turn · polygo")

    ann.evaluate("window.__hidden = true")              # the page in the background
    third = corr_game(bob, ann, bob, "corr:3d")
    ann.wait_for_function("() => window.__notes.length > 0")
    assert ann.evaluate("window.__notes") == [["Your turn", "chinese against bob"]]
    expect(turns).to_have_count(3)
    expect(ann).to_have_title("(3) Your turn · polygo")
    ann.click(f'#your-turn li[data-room="{third}"] a')
    expect(ann.locator(".turn.mine")).to_have_text("your turn")
