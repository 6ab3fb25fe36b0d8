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


def test_a_reload_and_a_late_spectator_read_the_chat_so_far(open_page, web_server):
    black, white, room = black_and_white(open_page, {"rules": "chinese", "board": "9x9"})
    for page, text in [(black, "good luck"), (white, "have fun")]:
        chat = page.locator("form.chat input")
        chat.fill(text)
        chat.press("Enter")
    expect(black.locator(".chat-log")).to_contain_text("white: have fun")
    black.reload()
    expect(black.locator(".chat-log p")).to_have_text(["black: good luck", "white: have fun"])
    late = open_page("late")
    late.goto(web_server.url + f"#/room/{room}")
    expect(late.locator(".chat-log p")).to_have_text(["black: good luck", "white: have fun"])


def test_a_stopped_server_shows_offline_disables_play_and_stops_the_clocks(open_page, web_server):
    black, white, _ = black_and_white(open_page, {"rules": "chinese", "board": "9x9", "clock": "fischer:300+10"})
    both = [black, white]
    play(both, black, "E5", 1)
    expect(white.locator(".seat-row[data-seat='0'] .online")).to_have_attribute("data-online", "true")
    web_server.stop()
    expect(white.locator(".banner")).to_contain_text("offline: reconnecting… Nothing can be played until the connection is back")
    # no "your turn", no Pass, no playable point; a click says nothing was sent
    expect(white.locator(".turn")).to_have_text("your turn, once the connection is back")
    expect(white.locator(".turn.mine")).to_have_count(0)
    expect(white.locator("button.pass")).to_be_disabled()
    expect(white.locator("button.resign")).to_be_disabled()
    expect(white.locator("svg#board g.pt.playable")).to_have_count(0)
    white.locator('svg#board g.pt[data-point="C3"]').click()
    expect(white.locator(".notice")).to_have_text("offline: nothing was sent; wait until the connection is back")
    # the running clock stands still on the page; who is connected is unknown
    expect(white.locator(".seat-row[data-seat='1'] .clock.stopped")).to_have_count(1)
    frozen = white.evaluate("""async () => {
        const room = window.polygo.room, before = room.elapsed();
        await new Promise((done) => setTimeout(done, 300));
        return before === room.elapsed();
    }""")
    assert frozen
    expect(white.locator(".seat-row[data-seat='0'] .online")).to_have_attribute("data-online", "unknown")
    web_server.start()
    for page in both:
        expect(page.locator("#conn")).to_have_attribute("data-state", "connected", timeout=15_000)
    expect(white.locator(".seat-row[data-seat='0'] .online")).to_have_attribute("data-online", "true")
    play(both, white, "C3", 2)
    expect(moves(black)).to_have_count(2)
