"""Large graph boards without coordinates: laid out flat by stress majorization (crossings
counted on the drawn board), zoomed, panned (a drag plays nothing) and played; a 4,096-point
board is created from the page in one message and drawn."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tests.lattices import triangular_lattice

from .test_play import create_room, moves, stone

FORCE_LAYOUT_CROSSINGS = {289: 387, 900: 3703}
"""Crossing edges of these lattices under a Fruchterman-Reingold layout started on a circle (the
page's layout at commit 33afa5e), measured in Chromium: the figures to stay well below."""


def drawn_crossings(page: Page) -> int:
    """Pairs of crossing edges among the lines the page drew."""
    return page.evaluate("""async () => {
        const m = await import('/layout.js');
        const lines = [...document.querySelectorAll('svg#board .edges line')];
        return m.crossings(lines.map((l) => ['x1', 'y1', 'x2', 'y2'].map((k) => +l.getAttribute(k))));
    }""")


def test_the_layout_of_a_289_point_lattice_has_no_fold(open_page):
    page = open_page("", path="")
    got = page.evaluate("""async (board) => {
        const L = await import('/layout.js');
        const pos = L.stressLayout(board);
        return L.crossings(board.edges.map(([a, b]) => [...pos[a], ...pos[b]]));
    }""", triangular_lattice(17))
    assert got <= FORCE_LAYOUT_CROSSINGS[289] // 20, got


def test_a_900_point_graph_is_drawn_flat_zoomed_and_played(open_page, shot):
    board = triangular_lattice(30)
    black = open_page("black")
    room = create_room(black, {"rules": "chinese", "board": board, "players": 2})
    expect(black.locator("svg#board g.pt")).to_have_count(900)
    crossings = drawn_crossings(black)
    assert crossings <= FORCE_LAYOUT_CROSSINGS[900] // 100, crossings
    shot(black, "graph-900")
    white = open_page("white")
    white.goto(black.url.split("#")[0] + f"#/room/{room}")
    white.click("button.sit")
    both = [black, white]
    # zoomed in around the middle, the points there are big enough to click
    svg = black.locator("svg#board")
    for _ in range(3):
        black.click("button.zoom-in")
    expect(svg).to_have_attribute("data-zoom", re.compile(r"^4\.\d+$"))
    before = svg.bounding_box()
    middle = black.locator('svg#board g.pt[data-point="p15_15"] circle.hit').bounding_box()
    assert middle["width"] >= 24 and before["x"] <= middle["x"] <= before["x"] + before["width"]
    black.locator('svg#board g.pt[data-point="p15_15"]').click()
    for page in both:
        expect(moves(page)).to_have_count(1)
        expect(stone(page, "p15_15", 0)).to_be_visible()
    white.locator('svg#board g.pt[data-point="p0_0"]').click()
    for page in both:
        expect(moves(page)).to_have_count(2)
    # black's turn: a drag that starts on a point pans the view and plays nothing
    view = svg.get_attribute("viewBox")
    near = black.locator('svg#board g.pt[data-point="p16_15"] circle.hit').bounding_box()
    x, y = near["x"] + near["width"] / 2, near["y"] + near["height"] / 2
    black.mouse.move(x, y)
    black.mouse.down()
    black.mouse.move(x + 60, y + 40, steps=5)
    black.mouse.up()
    expect(svg).not_to_have_attribute("viewBox", view)
    black.click("button.zoom-fit")
    expect(svg).to_have_attribute("data-zoom", "1.00")
    black.locator('svg#board g.pt[data-point="p29_29"]').click()
    for page in both:
        expect(moves(page)).to_have_count(3)
        expect(moves(page).nth(2)).to_contain_text("p29_29")
        expect(stone(page, "p29_29", 0)).to_be_visible()
    expect(black.locator("svg#board g.pt.stone[data-point='p16_15']")).to_have_count(0)
    # over an unzoomed board the wheel scrolls the page; with Ctrl (a touchpad's pinch) it zooms
    box = svg.bounding_box()
    black.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    black.mouse.wheel(0, -200)
    expect(svg).to_have_attribute("data-zoom", "1.00")
    black.keyboard.down("Control")
    black.mouse.wheel(0, -200)
    black.keyboard.up("Control")
    expect(svg).to_have_attribute("data-zoom", "1.49")      # e^0.4: one step, the plain wheel's none


def test_a_4096_point_board_is_created_from_the_page(open_page):
    board = triangular_lattice(64)
    assert len(json.dumps(board)) > 4 * 65536       # over the limit of other messages, in one create
    host = open_page("host")
    create_room(host, {"rules": "chinese", "board": board, "players": 2})
    expect(host.locator("svg#board g.pt")).to_have_count(4096)
    expect(host.locator(".room-head .meta")).to_contain_text("Chinese · graph of 4096 points")
