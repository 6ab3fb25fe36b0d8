"""What OGS and lichess players look for around a game: the lobby's rooms filtered by ruleset,
free seat and name, and a rematch offered at the end with the colours swapped."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_play import black_and_white, create_room, moves, play


def test_the_lobby_filters_rooms_and_a_rematch_swaps_the_colours(open_page):
    black, white, room = black_and_white(open_page, {"rules": "chinese", "board": "9", "title": "first game"})
    other = open_page("cy")
    waiting = create_room(other, {"rules": "kee", "board": "5", "players": 3, "title": "kee evening"})
    zoe = open_page("zoe")
    rows = zoe.locator(".open-rooms table.list tbody tr")
    expect(rows).to_have_count(2)
    zoe.select_option("#filter-rules", "kee")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-room", waiting)
    zoe.select_option("#filter-rules", "")
    zoe.check("#filter-free")
    expect(rows).to_have_count(1)                       # the game in progress has no free seat
    zoe.uncheck("#filter-free")
    zoe.fill("#filter-words", "WHITE")                  # a player's name, in any case
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-room", room)
    zoe.fill("#filter-words", "nobody")
    expect(zoe.locator(".rooms")).to_contain_text("None of the 2 rooms listed fits these filters.")

    play([black, white], black, "E5", 1)
    black.click("button.resign")
    black.click("button.resign-yes")
    expect(white.locator(".result")).to_contain_text("game over (resignation)")
    # white asks for a rematch: a new room, white now at black's seat, its link in the old chat
    white.click("button.rematch")
    expect(white.locator(".seat-row[data-seat='0'] .name")).to_contain_text("white (you)")
    expect(white.locator(".room-head .title")).to_have_text("first game")
    black.click("a.rematch-link")
    black.click("button.sit")
    both = [black, white]
    for page in both:
        expect(page.locator(".room-head .status")).to_have_attribute("data-status", "playing")
    expect(black.locator(".seat-row[data-seat='1'] .name")).to_contain_text("black (you)")
    play(both, white, "D4", 1)
    expect(moves(black)).to_have_count(1)
