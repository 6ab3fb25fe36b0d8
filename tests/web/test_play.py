"""The web client in a real browser: three friends play a Kee game to its end on a graph board,
a spectator follows, a reload rejoins the seat; a Lasker-Maas game reaches phase 2."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

# Two components, no coordinates (the page lays the graph out): the pair a-b gives the capture
# cycle of Kee example-like play, the triangle c-d-e room for the end and a dead stone.
GRAPH = {"points": ["a", "b", "c", "d", "e"], "edges": [["a", "b"], ["c", "d"], ["d", "e"], ["c", "e"]]}


def point(page: Page, name: str):
    return page.locator(f'svg#board g.pt[data-point="{name}"]')


def stone(page: Page, name: str, seat: int):
    return page.locator(f'svg#board g.pt.stone.seat-{seat}[data-point="{name}"]')


def moves(page: Page):
    return page.locator("ol.moves li")


def play(pages: list[Page], page: Page, move: str, count: int) -> None:
    """`page` plays `move` (a point, or a button's class) and every page sees the history reach
    `count` entries."""
    expect(page.locator(".turn.mine")).to_have_text("your turn")
    if move == "pass":
        page.click("button.pass")
        if page.locator("button.pass-yes").count():     # a pass that ends play asks first
            page.click("button.pass-yes")
    else:
        point(page, move).click()
    for p in pages:
        expect(moves(p)).to_have_count(count)


def create_room(page: Page, settings: dict) -> str:
    page.select_option("#rules", settings["rules"])
    board = settings["board"]
    if isinstance(board, dict):
        page.select_option("#board-kind", "json")
        page.fill("#board-json", json.dumps(board))
    elif board.startswith("torus:"):
        page.select_option("#board-kind", "torus")
        page.fill("#wxh", board[6:])
    elif "x" in board:
        page.select_option("#board-kind", "wxh")
        page.fill("#wxh", board)
    elif board.isdigit():
        page.select_option("#size", board)
    else:
        page.select_option("#board-kind", "graph")
        page.select_option("#graph", board)
    page.fill("#players", str(settings.get("players", 2)))
    if "clock" in settings:
        page.select_option("#clock-preset", "custom")
        page.fill("#clock", settings["clock"])
    if "title" in settings:
        page.fill("#title", settings["title"])
    if settings.get("private"):
        page.check("#private")
    page.click("#create")
    page.wait_for_url(re.compile(r"#/room/"))
    page.wait_for_selector("svg#board")
    return page.url.split("#/room/")[1].split("?")[0]


def black_and_white(open_page, settings: dict) -> tuple[Page, Page, str]:
    """Black's page creates a room with ``settings``; White's opens it by its address and sits."""
    black = open_page("black")
    room = create_room(black, settings)
    white = open_page("white")
    white.goto(black.url.split("#")[0] + f"#/room/{room}")
    white.click("button.sit")
    return black, white, room


def test_three_players_play_kee_on_a_graph_board_to_the_end(open_page, shot):
    ann = open_page("ann")
    room = create_room(ann, {"rules": "kee", "board": GRAPH, "players": 3, "title": "three friends"})
    expect(ann.locator(".seat-row[data-seat='0'] .name")).to_contain_text("ann (you)")
    # the others find the room in the lobby's live list and sit
    bob = open_page("bob")
    expect(bob.locator(f"tr[data-room='{room}']")).to_contain_text("three friends")
    shot(bob, "lobby")
    bob.click(f"tr[data-room='{room}'] a.open-room")
    bob.click("button.sit >> nth=0")
    expect(bob.locator(".seat-row[data-seat='1'] .name")).to_contain_text("bob (you)")
    cy = open_page("cy")
    cy.goto(ann.url.split("#")[0] + f"#/room/{room}")
    cy.click("button.sit")
    # a spectator on a phone-sized screen, by the room's link
    sam = open_page("sam", viewport=(390, 844))
    sam.goto(ann.url.split("#")[0] + f"#/room/{room}")
    sam.wait_for_selector("svg#board")
    players = [ann, bob, cy]
    everyone = players + [sam]
    for p in everyone:
        expect(p.locator(".room-head .status")).to_have_attribute("data-status", "playing")
    expect(ann.locator(".turn.mine")).to_have_text("your turn")
    expect(bob.locator("button.pass")).to_be_disabled()

    play(everyone, ann, "a", 1)
    play(everyone, bob, "b", 2)           # white captures a
    for p in everyone:
        expect(stone(p, "b", 1)).to_be_visible()
        expect(p.locator("svg#board g.pt.stone[data-point='a']")).to_have_count(0)
        expect(p.locator(".seat-row[data-seat='0'] .caps")).to_have_text("lost 1")
    # a reload mid-game: bob's token is in localStorage, the page rejoins his seat
    bob.reload()
    bob.wait_for_selector("#conn[data-state=connected]")
    expect(bob.locator(".seat-row[data-seat='1'] .name")).to_contain_text("bob (you)")
    expect(moves(bob)).to_have_count(2)
    play(everyone, cy, "a", 3)            # red takes back: b is captured
    play(everyone, ann, "b", 4)
    play(everyone, bob, "a", 5)
    play(everyone, cy, "b", 6)
    # ann's recapture at a would repeat a position: shown as prohibited, with the reason on hover
    forbidden = ann.locator("svg#board g.pt.prohibited[data-point='a']")
    expect(forbidden).to_have_attribute("data-reason", "cycle")
    expect(forbidden.locator("title")).to_contain_text("prohibited: cycle")
    forbidden.hover()
    expect(ann.locator(".hover")).to_contain_text("a: prohibited, cycle")
    expect(sam.locator("svg#board g.pt.prohibited[data-point='a']")).to_have_count(1)
    shot(ann, "prohibited")
    # a click on it offers the appeal (Kee rule 12)
    forbidden.click()
    expect(ann.locator(".ask")).to_contain_text("prohibited by the cycle rule")
    ann.click(".ask button.appeal")
    for p in everyone:
        expect(moves(p)).to_have_count(7)
        expect(moves(p).nth(6)).to_contain_text("appeals for a")
    # the appeal's consequences, in words, on every page (Kee rules 12-13)
    expect(bob.locator(".appeal-explain")).to_contain_text("if cy passes without appeal before anyone plays a stone, it is rescinded (rule 13)")
    expect(cy.locator(".appeal-explain")).to_contain_text("Your stone at b is the last stone play: if you pass without appeal, it is rescinded")
    expect(sam.locator(".appeal-explain")).to_contain_text("Appeal (Kee rule 12) by ann (black) for a")
    play(everyone, bob, "pass", 8)
    # red's Pass says what it will do, and asks first
    expect(cy.locator("button.pass")).to_have_text("Pass (rescinds your stone)")
    cy.click("button.pass")
    expect(cy.locator(".pass-warning")).to_contain_text("Passing now rescinds your stone at b (Kee rule 13")
    cy.click("button.pass-no")
    expect(moves(cy)).to_have_count(8)
    cy.click("button.pass")
    cy.click("button.pass-yes")
    # red passed without appeal: her b is rescinded with the passes after it (rule 13), and said so
    for p in everyone:
        expect(moves(p)).to_have_count(9)
        expect(p.locator(".rescission")).to_contain_text("the stone at b is rescinded (Kee rule 13)")
        expect(p.locator("ol.moves li.rescinded")).to_have_count(4)
        expect(p.locator("ol.moves li.rescinded s")).to_have_count(4)
        expect(stone(p, "a", 1)).to_be_visible()
    expect(cy.locator("svg#board g.pt.prohibited[data-point='b']")).to_have_attribute("data-reason", "rescinded")
    expect(cy.locator(".turn.mine")).to_be_visible()
    shot(cy, "rescinded")
    play(everyone, cy, "c", 10)
    play(everyone, ann, "d", 11)
    chat = bob.locator("form.chat input")
    chat.fill("nice cycle")
    chat.press("Enter")
    for p in everyone:
        expect(p.locator(".chat-log")).to_contain_text("bob: nice cycle")
    play(everyone, bob, "pass", 12)
    play(everyone, cy, "pass", 13)
    play(everyone, ann, "pass", 14)
    for p in everyone:
        expect(p.locator(".room-head .status")).to_have_attribute("data-phase", "scoring")
    # marking: ann marks her own stone at d dead; the count and territory follow
    point(ann, "d").click()
    for p in everyone:
        expect(p.locator("svg#board g.pt.dead[data-point='d']")).to_have_count(1)
    expect(ann.locator(".count")).to_have_text("count now: B 0, W 2, R 3")
    shot(ann, "marking")
    for p in players:
        p.click("button.done")
    for p in everyone:
        expect(p.locator(".room-head .status")).to_have_attribute("data-status", "ended")
        expect(p.locator(".result")).to_contain_text("1. cy (red) 3")
        expect(p.locator(".result")).to_contain_text("2. bob (white) 2")
        expect(p.locator(".result")).to_contain_text("3. ann (black) 0")
        expect(p.locator(".seat-row[data-seat='2'] .place")).to_have_text("#1 · 3")
    shot(ann, "result")
    shot(sam, "phone-spectator")

    # the finished game: listed, replayed move by move (the rescinded ones too), downloadable
    ann.goto(ann.url.split("#")[0] + "#/games")
    ann.click("a.replay-link")
    ann.wait_for_selector(".replay svg")
    expect(ann.locator(".replay ol.moves li")).to_have_count(18)
    expect(ann.locator(".replay ol.moves li.rescinded")).to_have_count(4)
    ann.click("button.first")
    expect(ann.locator(".at")).to_have_text("move 0 of 18")
    ann.click("button.next")
    ann.click("button.next")
    expect(ann.locator(".at")).to_contain_text("move 2 of 18: bob b")
    expect(ann.locator(".replay svg g.pt.stone.seat-1[data-point='b']")).to_have_count(1)
    expect(ann.locator(".replay svg g.pt.stone[data-point='a']")).to_have_count(0)
    ann.locator(".replay ol.moves li").nth(8).click()     # the rescinding pass: b is gone again
    expect(ann.locator(".at")).to_contain_text("(rescinded)")
    expect(ann.locator(".replay svg g.pt.stone.seat-1[data-point='a']")).to_have_count(1)
    expect(ann.locator(".replay svg g.pt.stone[data-point='b']")).to_have_count(0)
    expect(ann.locator("button.dl-sgf")).to_be_disabled()     # SGF holds two-player grid games only
    with ann.expect_download() as download:
        ann.click("button.dl-json")
    record = json.loads(open(download.value.path()).read())
    assert record["result"]["ranking"] == [3, 2, 1]
    assert [m[2] for m in record["history"]].count(True) == 4
    shot(ann, "replay")


def test_lasker_maas_reaches_phase_two_with_a_ticking_clock(open_page):
    black, white, room = black_and_white(open_page, {"rules": "lasker-maas", "board": "5x5", "clock": "byoyomi:600+5x30"})
    both = [black, white]
    expect(black.locator(".room-head .status")).to_contain_text("phase 1")
    # grids are drawn with their coordinates
    expect(black.locator("svg#board .coords text", has_text="E")).to_have_count(2)
    play(both, black, "C3", 1)
    clock = white.locator(".seat-row[data-seat='1'] .clock")
    first = clock.text_content()
    assert re.fullmatch(r"\d+:\d\d \+5×30s", first), first
    expect(clock).not_to_have_text(first, timeout=3000)     # it ticks between the server's reports
    play(both, white, "D3", 2)
    play(both, black, "pass", 3)
    play(both, white, "pass", 4)
    for p in both:
        expect(p.locator(".room-head .status")).to_have_attribute("data-phase", "phase-2")
        expect(p.locator(".room-head .status")).to_contain_text("phase 2")
        expect(p.locator(".seat-row[data-seat='0'] .caps")).to_contain_text("supply")
    play(both, black, "B2", 5)
    expect(white.locator(".seat-row[data-seat='0'] .caps")).to_have_text("supply 1")
