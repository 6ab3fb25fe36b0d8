"""A dropped network and a restarted server: the page says "reconnecting…", comes back as the
same session and resumes the room from the last version it had."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_play import black_and_white, moves, play, stone


def test_a_dropped_connection_resumes_from_the_last_version(open_page):
    black, white, _ = black_and_white(open_page, {"rules": "chinese", "board": "9x9"})
    both = [black, white]
    play(both, black, "E5", 1)
    # white's network goes: no reconnection can succeed while it is off
    white.context.set_offline(True)
    white.evaluate("window.polygo.conn.drop()")
    expect(white.locator(".banner")).to_contain_text("offline: reconnecting…")
    expect(white.locator("#conn")).to_have_attribute("data-state", "reconnecting")
    # the room goes on without white's page: black's chat is an event white misses
    chat = black.locator("form.chat input")
    chat.fill("still there?")
    chat.press("Enter")
    expect(black.locator(".chat-log")).to_contain_text("still there?")
    expect(white.locator(".chat-log")).not_to_contain_text("still there?")
    white.context.set_offline(False)
    expect(white.locator("#conn")).to_have_attribute("data-state", "connected", timeout=15_000)
    expect(white.locator(".banner")).to_have_count(0)
    expect(white.locator(".chat-log")).to_contain_text("still there?")   # the missed event, by `since`
    assert white.evaluate("window.polygo.room.resumed") == {"events": 1, "snapshots": 0}
    expect(white.locator(".seat-row[data-seat='1'] .name")).to_contain_text("white (you)")
    play(both, white, "C3", 2)


def test_a_server_restart_is_survived(open_page, web_server):
    black, white, _ = black_and_white(open_page, {"rules": "chinese", "board": "9x9"})
    both = [black, white]
    play(both, black, "E5", 1)
    web_server.stop()
    for page in both:
        expect(page.locator(".banner")).to_contain_text("offline: reconnecting…")
    web_server.start()
    for page in both:
        expect(page.locator("#conn")).to_have_attribute("data-state", "connected", timeout=15_000)
    play(both, white, "C3", 2)
    play(both, black, "D4", 3)
    for page in both:
        expect(stone(page, "E5", 0)).to_be_visible()
        expect(moves(page)).to_have_count(3)
