"""A player's attention: a page in the background says whose turn it is in its title (and by a
notification and a tone when asked for), and a move can be played with the keyboard alone, the
board described and the moves announced for a screen reader."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .test_play import black_and_white, moves, play, stone

# Headless Chromium never puts a page in the background: the page is told it is hidden as a
# browser tells it (document.hidden, visibilitychange), and Notification and AudioContext are
# stand-ins that record what the page asked of them.
BACKGROUND = """() => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
    window.told = [];
    window.Notification = class {
        static permission = "granted";
        constructor(title, options) { window.told.push(["notification", title, options.body]); }
    };
    window.AudioContext = class {
        constructor() { window.told.push(["tone"]); this.currentTime = 0; this.destination = {}; }
        createOscillator() { return { frequency: {}, connect: (x) => x, start() {}, stop() {} }; }
        createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (x) => x }; }
    };
}"""


def test_a_background_tab_shows_the_turn_in_its_title_and_notifies(open_page):
    black, white, _ = black_and_white(open_page, {"rules": "chinese", "board": "9x9", "title": "evening"})
    both = [black, white]
    # white asks for a tone and a notification in the room's settings
    white.locator("details.prefs summary").click()
    white.check("#pref-sound")
    white.context.grant_permissions(["notifications"])
    white.check("#pref-notify")
    expect(black).to_have_title(re.compile(r"^▶ Your turn · evening · polygo$"))
    expect(white).to_have_title("evening · polygo")
    white.evaluate(BACKGROUND)
    play(both, black, "E5", 1)
    expect(white).to_have_title("▶ Your turn · evening · polygo")
    expect(black).to_have_title("evening · polygo")
    assert white.evaluate("window.told") == [["tone"], ["notification", "Your turn", "evening"]]
    play(both, white, "C3", 2)
    expect(white).to_have_title("evening · polygo")


def tab_to_board(page: Page) -> None:
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == "board":
            return
    raise AssertionError("the board is not in the Tab order")


def test_a_move_by_keyboard_alone_described_and_announced(open_page):
    black, white, _ = black_and_white(open_page, {"rules": "chinese", "board": "9x9"})
    both = [black, white]
    play(both, black, "E5", 1)
    # white reaches the board with Tab; it says what is on it, the last move and whose turn it is
    tab_to_board(white)
    board = white.locator("svg#board")
    expect(board).to_have_attribute("aria-label", re.compile(r"Stones: black: E5; white: none\. Last move: black \(black\) played E5 \(stone at E5\)\. your turn\."))
    cursor = white.locator("svg#board g.pt:has(rect.cursor)")
    expect(cursor).to_have_count(1)
    expect(white.locator("#announce")).to_have_text(re.compile(r"^E5: black stone$"))
    white.keyboard.press("ArrowLeft")
    white.keyboard.press("ArrowLeft")
    expect(white.locator("#announce")).to_have_text("C5: empty")
    white.keyboard.press("Enter")
    for page in both:
        expect(moves(page)).to_have_count(2)
        expect(stone(page, "C5", 1)).to_be_visible()
    # the board keeps the focus across the redraw, and the move is announced on both pages
    assert white.evaluate("document.activeElement.id") == "board"
    expect(white.locator("#announce")).to_have_text("white (white) played C5")
    expect(black.locator("#announce")).to_have_text("white (white) played C5. Your turn.")
    # `p` asks before passing: Escape keeps the turn, `p` then Enter (on "Yes, pass") passes
    black.keyboard.press("p")
    expect(black.locator(".confirm-bar")).to_contain_text("Pass this turn?")
    black.keyboard.press("Escape")
    expect(black.locator(".confirm-bar")).to_have_count(0)
    expect(moves(black)).to_have_count(2)
    black.keyboard.press("p")
    expect(black.locator("button.pass-yes")).to_be_focused()
    black.keyboard.press("Enter")
    for page in both:
        expect(moves(page)).to_have_count(3)
    expect(white.locator("#announce")).to_have_text("black (black) passed. Your turn.")


def test_a_chat_line_being_typed_keeps_the_focus_when_a_move_arrives(open_page):
    black, white, _ = black_and_white(open_page, {"rules": "chinese", "board": "9x9"})
    white.locator("form.chat input").click()
    white.keyboard.type("good ")
    play([black, white], black, "E5", 1)          # the page is redrawn under white's typing
    white.keyboard.type("move")
    white.keyboard.press("Enter")
    for page in (black, white):
        expect(page.locator(".chat-log")).to_have_text("white: good move")
