"""The rest of the play screen: grids with coordinates and star points, keyboard play, undo,
resignation with its question, a private room joined by its link, a torus, ranking proposals."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .test_play import black_and_white, create_room, moves, play, point, stone


def test_a_grid_game_by_keyboard_with_undo_and_resignation(open_page, web_server, shot):
    black = open_page("black")
    room = create_room(black, {"rules": "chinese", "board": "9", "clock": "fischer:300+10", "title": "evening game"})
    white = open_page("white")
    white.click(f"tr[data-room='{room}'] a.open-room")
    white.click("button.sit")
    both = [black, white]
    expect(black.locator("svg#board circle.star")).to_have_count(5)
    expect(black.locator("svg#board .coords text", has_text="J")).to_have_count(2)
    expect(black.locator("svg#board .coords text", has_text="I")).to_have_count(0)
    expect(black.locator(".seat-row[data-seat='0'] .clock")).to_have_text(re.compile(r"^\d+:\d\d \+10s$"))
    # keyboard: the arrows move a cursor along the board's lines, Enter plays there
    expect(black.locator(".turn.mine")).to_be_visible()
    black.keyboard.press("ArrowRight")
    black.keyboard.press("ArrowUp")
    cursor = black.locator("svg#board g.pt:has(rect.cursor)").get_attribute("data-point")
    black.keyboard.press("Enter")
    for page in both:
        expect(moves(page)).to_have_count(1)
        expect(stone(page, cursor, 0)).to_be_visible()
        expect(page.locator("g.pt.last-move")).to_have_attribute("data-point", cursor)
    play(both, white, "C3", 2)
    # white takes it back: black is asked, accepts, C3 goes
    white.click("button.undo")
    expect(black.locator("p.undo")).to_contain_text("white asks to take back the last move")
    black.click("button.undo-yes")
    for page in both:
        expect(moves(page)).to_have_count(1)
        expect(page.locator("svg#board g.pt.stone[data-point='C3']")).to_have_count(0)
    play(both, white, "G7", 2)
    shot(black, "grid")
    # resignation asks first
    black.click("button.resign")
    black.click(".ask button:text('No')")
    expect(black.locator(".room-head .status")).to_have_attribute("data-status", "playing")
    black.click("button.resign")
    black.click("button.resign-yes")
    for page in both:
        expect(page.locator(".result")).to_contain_text("game over (resignation)")
        expect(page.locator(".seat-row[data-seat='1'] .place")).to_contain_text("#1")
    # the SGF of the finished game
    white.goto(web_server.url + f"#/replay/{room}")
    expect(white.locator(".replay .at")).to_have_text("move 3 of 3: black resign")
    with white.expect_download() as download:
        white.click("button.dl-sgf")
    assert download.value.suggested_filename == f"polygo-{room}.sgf"
    sgf = open(download.value.path(), encoding="utf-8").read()
    assert sgf.startswith("(;") and "GN[evening game]" in sgf and "RE[W+R]" in sgf
    assert f";B[{cursor[0].lower()}" in sgf and ";W[gc]" in sgf       # G7 is gc in SGF's letters


def test_a_private_torus_game_ends_by_an_agreed_ranking(open_page, web_server, shot):
    black = open_page("black")
    room = create_room(black, {"rules": "kee", "board": "torus:5x5", "private": True})
    assert "?invite=" in black.url
    link = black.locator("input.link").input_value()
    assert "?invite=" in link
    # the room is not listed; its link (with the invitation code) lets white in
    white = open_page("white")
    expect(white.locator(".rooms")).not_to_contain_text(room)
    white.goto(link)
    white.click("button.sit")
    both = [black, white]
    # every edge is drawn: the wrap-around ones as stubs out of each side
    expect(black.locator("svg#board line.wrap")).to_have_count(20)
    expect(black.locator("svg#board .edges line")).to_have_count(2 * 5 * 5 + 10)
    play(both, black, "A1", 1)
    play(both, white, "E1", 2)     # next to A1 across the seam
    shot(white, "torus")
    black.click("details.propose summary")
    black.fill("input.rank[data-seat='0']", "1")
    black.fill("input.rank[data-seat='1']", "1")
    black.click("button.propose")
    expect(white.locator(".proposal")).to_have_text("ranking proposed: B 1, W 1")
    white.click("button.accept")
    for page in both:
        expect(page.locator(".result")).to_contain_text("game over (agreement)")


def test_a_nieminen_dispute_with_a_given_stone(open_page):
    black, white, _ = black_and_white(open_page, {"rules": "nieminen", "board": "5x5"})
    both = [black, white]
    play(both, black, "C3", 1)
    play(both, white, "pass", 2)
    play(both, black, "pass", 3)
    expect(white.locator(".room-head .status")).to_have_attribute("data-phase", "scoring")
    # white disputes black's lone stone: it is played out on the board (N14)
    white.click("button:text('Dispute a chain')")
    point(white, "C3").click()
    for page in both:
        expect(page.locator(".room-head .status")).to_have_attribute("data-phase", "dispute")
        expect(page.locator(".turn-panel")).to_contain_text("dispute play-out of C3")
    expect(white.locator("button.give")).to_have_count(0)      # only the owner gives
    play(both, black, "pass", 5)
    play(both, white, "C4", 6)
    expect(black.locator(".turn.mine")).to_be_visible()
    black.click("button.give")
    for page in both:
        expect(moves(page)).to_have_count(7)
        expect(moves(page).nth(6)).to_contain_text("give")
        expect(page.locator(".seat-row[data-seat='0'] .caps")).to_have_text("lost 1")


def test_a_flag_falls_on_the_page_and_a_house_bot_answers(open_page, web_server):
    black = open_page("black")
    black.fill("#bots", "1")
    room = create_room(black, {"rules": "chinese", "board": "9", "clock": "absolute:3"})
    expect(black.locator(".seat-row[data-seat='1'] .name")).not_to_have_text("(free)")
    expect(black.locator(".room-head .status")).to_have_attribute("data-status", "playing")
    play([black], black, "E5", 2)          # the house bot answers at once
    expect(black.locator(".turn.mine")).to_be_visible()
    clock = black.locator(".seat-row[data-seat='0'] .clock")
    expect(clock).to_have_text("0:01", timeout=5000)       # counting down between reports
    expect(black.locator(".result")).to_contain_text("game over (timeout)", timeout=5000)
    expect(moves(black).nth(2)).to_contain_text("timeout")
    expect(black.locator(".seat-row[data-seat='1'] .place")).to_contain_text("#1")


def test_shipped_graphs_draw_every_edge_against_house_bots(open_page, shot):
    from polygo.rules import Board

    page = open_page("ann")
    for name, players in [("hex5", 4), ("cube4", 3)]:
        page.goto(page.url.split("#")[0] + "#/")
        page.fill("#bots", str(players - 1))
        create_room(page, {"rules": "kee", "board": name, "players": players})
        board = Board.parse(name)
        expect(page.locator("svg#board .edges line")).to_have_count(len(board.edges))
        expect(page.locator("svg#board g.pt")).to_have_count(len(board.points))
        # four seats, four colours, each with its letter: a move, and the three bots answer
        for round_ in (1, 2) if name == "hex5" else ():
            expect(page.locator(".turn.mine")).to_be_visible()
            page.locator("svg#board g.pt.playable").nth(round_ * 7).click()
            expect(moves(page)).to_have_count(round_ * players)
        if name == "hex5":
            expect(page.locator("svg#board g.pt.stone .stone-letter", has_text="L")).to_have_count(2)
            shot(page, "hex5")


def test_a_registered_name_logs_in_from_another_browser_and_a_refused_room_says_why(open_page):
    zoe = open_page("zoe")
    zoe.click("details.account summary")
    zoe.fill("#user", "zoe")
    zoe.fill("#password", "correct horse")
    zoe.click("#register")
    expect(zoe.locator("details.account summary")).to_have_text("registered as zoe")
    elsewhere = open_page("guest")
    elsewhere.click("details.account summary")
    elsewhere.fill("#user", "zoe")
    elsewhere.fill("#password", "wrong")
    elsewhere.click("#login")
    expect(elsewhere.locator("#account-note")).not_to_be_empty()
    elsewhere.fill("#password", "correct horse")
    elsewhere.click("#login")
    expect(elsewhere.locator("#who")).to_have_text("zoe")
    # the server's refusal of a room's settings is shown with its sentence
    elsewhere.fill("#players", "3")
    elsewhere.click("details.advanced summary")
    elsewhere.fill("#handicap", "2")
    elsewhere.click("#create")
    expect(elsewhere.locator("#create-error")).to_contain_text("handicap is for two-player games")


def test_who_is_connected(open_page, web_server):
    """The seats' players' connections and the spectators, as the server's presence says, on every page."""
    ann = open_page("ann")
    room = create_room(ann, {"rules": "kee", "board": "9", "players": 2})
    link = web_server.url + f"#/room/{room}"
    online = lambda page, seat: page.locator(f".seat-row[data-seat='{seat}'] .online")   # noqa: E731
    expect(online(ann, 0)).to_have_attribute("data-online", "true")
    expect(online(ann, 1)).to_have_count(0)          # a free seat has no one to be connected
    bob = open_page("bob")
    bob.goto(link)
    bob.click("button.sit")
    sam = open_page("sam", viewport=(390, 844))
    sam.goto(link)
    for page in (ann, bob, sam):
        expect(online(page, 0)).to_have_attribute("data-online", "true")
        expect(online(page, 1)).to_have_attribute("data-online", "true")
        expect(page.locator(".watchers")).to_have_text("watching (1): sam")
    play([ann, bob, sam], ann, "E5", 1)
    # bob closes his tab: everyone sees him gone; the spectator goes back to the lobby, and is gone too
    context = bob.context
    bob.close()
    for page in (ann, sam):
        expect(online(page, 1)).to_have_attribute("data-online", "false")
        expect(online(page, 1)).to_have_attribute("title", "not connected")
        expect(page.locator(".turn")).to_have_text("bob (white) to move (not connected)")
    sam.click("a.back")
    expect(sam.locator(f"tr[data-room='{room}']")).to_be_visible()
    expect(ann.locator(".watchers")).to_have_text("no one else watching")
    # back in a new tab of the same browser: the same session, in his seat, connected again
    again = context.new_page()
    again.goto(link)
    expect(again.locator(".seat-row[data-seat='1'] .name")).to_contain_text("bob (you)")
    expect(online(ann, 1)).to_have_attribute("data-online", "true")
    expect(ann.locator(".turn")).to_have_text("bob (white) to move")
    expect(online(again, 0)).to_have_attribute("data-online", "true")
