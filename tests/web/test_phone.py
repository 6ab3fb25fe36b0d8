"""A player on a phone: the lobby fits a 375 px screen, a whole game is played by taps, each stone
chosen first and then confirmed (a mis-tap is cancelled, not played), the board zooms (by its
buttons and by a pinch)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .test_play import create_room, moves, stone

PHONE = (375, 740)


def fits(page: Page) -> None:
    """Nothing runs off the side of the phone's screen."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


def on_screen(page: Page, selector: str) -> dict:
    box = page.locator(selector).bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0], (selector, box)
    return box


def test_a_phone_player_plays_a_whole_game_by_taps_with_confirmation(open_page, shot):
    ann = open_page("ann")
    room = create_room(ann, {"rules": "chinese", "board": "5", "title": "a game on the train"})
    bob = open_page("bob", viewport=PHONE, touch=True)
    row = f"tr[data-room='{room}']"
    expect(bob.locator(row)).to_contain_text("a game on the train")
    expect(bob.locator(row)).to_contain_text("Chinese")       # the ruleset by its name
    fits(bob)
    shot(bob, "phone-lobby")
    join = on_screen(bob, f"{row} a.open-room")
    assert join["height"] >= 40                                # a target for a thumb
    bob.locator(f"{row} a.open-room").tap()
    bob.locator("button.sit").tap()
    expect(bob.locator(".seat-row[data-seat='1'] .name")).to_contain_text("bob (you)")
    fits(bob)
    both = [ann, bob]

    def ann_plays(point: str, count: int) -> None:
        ann.locator(f'svg#board g.pt[data-point="{point}"]').click()
        for p in both:
            expect(moves(p)).to_have_count(count)

    ann_plays("C3", 1)
    # a tap chooses the point: nothing is sent until it is confirmed
    expect(bob.locator(".turn.mine")).to_have_text("your turn")
    bob.locator('svg#board g.pt[data-point="B2"]').tap()
    expect(bob.locator("svg#board g.pt.pending")).to_have_attribute("data-point", "B2")
    expect(bob.locator("button.confirm-play")).to_have_text("Play B2")
    assert on_screen(bob, "button.confirm-play")["height"] >= 44
    shot(bob, "phone-confirm")
    # a mis-tap: cancelled, never played
    bob.locator("button.confirm-cancel").tap()
    expect(bob.locator("svg#board g.pt.pending")).to_have_count(0)
    expect(moves(ann)).to_have_count(1)
    # another point, confirmed with the button
    bob.locator('svg#board g.pt[data-point="C2"]').tap()
    bob.locator("button.confirm-play").tap()
    for p in both:
        expect(moves(p)).to_have_count(2)
        expect(stone(p, "C2", 1)).to_be_visible()
    ann_plays("D3", 3)
    # zoomed in, a point is a bigger target; a second tap on the chosen point confirms it
    bob.locator("button.zoom-in").tap()
    expect(bob.locator("svg#board")).to_have_attribute("data-zoom", re.compile(r"^1\.[1-9]"))
    bob.locator('svg#board g.pt[data-point="C3"]').tap()      # occupied: says why
    expect(bob.locator(".notice")).to_have_text("C3 is occupied: black's stone is there")
    bob.locator('svg#board g.pt[data-point="D2"]').tap()
    bob.locator('svg#board g.pt[data-point="D2"]').tap()
    for p in both:
        expect(moves(p)).to_have_count(4)
    ann.click("button.pass")
    for p in both:
        expect(moves(p)).to_have_count(5)
    # the second pass ends play: asked first
    bob.locator("button.pass").tap()
    expect(bob.locator(".pass-warning")).to_contain_text("your pass ends this part of play")
    bob.locator("button.pass-yes").tap()
    for p in both:
        expect(p.locator(".room-head .status")).to_have_attribute("data-phase", "scoring")
    ann.click("button.done")
    bob.locator("button.done").tap()
    expect(bob.locator(".result")).to_contain_text("game over (passes)")
    expect(bob.locator(".result li")).to_have_count(2)
    fits(bob)
    # back in the lobby, a room is created by taps too
    bob.locator("a.back").tap()
    fits(bob)
    on_screen(bob, "#create")
    bob.locator("#create").tap()
    bob.wait_for_url(re.compile(r"#/room/"))
    expect(bob.locator(".seat-row[data-seat='0'] .name")).to_contain_text("bob (you)")
    fits(bob)
    # two fingers spread on the board zoom the board, not the page
    pinch(bob, "svg#board", 30, 110)
    expect(bob.locator("svg#board")).to_have_attribute("data-zoom", re.compile(r"^[3-9]\."))
    assert bob.evaluate("window.visualViewport.scale") == 1


def pinch(page: Page, selector: str, start: float, end: float) -> None:
    """Two fingers on the middle of `selector`, spread from `start` to `end` px apart (each side),
    as the phone's touch screen reports them (Chrome's DevTools protocol)."""
    box = page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, d: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x - d, "y": y, "id": 1}, {"x": x + d, "y": y, "id": 2}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", start)
    for d in range(int(start), int(end) + 1, 10):
        touch("touchMove", d)
    touch("touchEnd", 0)
