"""Finding games on the page, in real browsers against a real server: the seek buttons of the
pools, challenges sent, accepted and declined, a pool's leaderboard and a player's profile after a
rated game."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect


def registered(open_page, name: str) -> Page:
    page = open_page(name)
    page.click("details.account summary")
    page.fill("#user", name)
    page.fill("#password", "correct horse")
    page.click("#register")
    expect(page.locator("details.account summary")).to_have_text(f"registered as {name}")
    return page


def room_of(page: Page) -> str:
    expect(page).to_have_url(re.compile(r"#/room/\w+$"))
    return page.url.rsplit("/", 1)[1]


def test_three_seekers_of_a_pool_land_in_one_started_room(open_page):
    players = [registered(open_page, name) for name in ("ann", "bob", "cy")]
    for page in players:
        button = page.locator('#pools tr[data-pool="kee-3p-hex5"] button.seek')
        button.click()
        expect(button).to_have_text("Cancel seek")
    rooms = {room_of(page) for page in players}
    assert len(rooms) == 1
    for page in players:
        expect(page.locator(".turn").first).to_be_visible()


def test_a_guest_is_told_that_a_rated_pool_needs_a_registered_name(open_page):
    guest = open_page("gus")
    guest.click('#pools tr[data-pool="chinese-9x9"] button.seek')
    expect(guest.locator("#finding-note")).to_contain_text("register")
    expect(guest.locator('#pools tr[data-pool="chinese-9x9"] button.seek')).to_have_text("Seek")


def test_challenges_declined_and_accepted_then_the_leaderboard_and_profile_show_the_game(open_page):
    ann, bob = registered(open_page, "ann"), registered(open_page, "bob")
    ann.reload()
    bob.reload()

    ann.fill("#challenge-players", "bob")
    ann.select_option("#challenge-pool", "chinese-9x9")
    ann.click("#challenge-form button")
    declined = bob.locator("li.challenge").first
    expect(declined.locator("button.accept")).to_be_visible()
    declined.locator("button.decline").click()
    expect(ann.locator("li.challenge .challenge-status").first).to_have_text("declined")

    ann.fill("#challenge-players", "bob")
    ann.click("#challenge-form button")
    expect(bob.locator('li.challenge[data-status="open"] button.accept')).to_be_visible()
    bob.click('li.challenge[data-status="open"] button.accept')
    room = room_of(ann)
    assert room_of(bob) == room

    seats = {}
    for page in (ann, bob):
        snapshot = page.evaluate("(room) => polygo.conn.request('watch', {room})", room)
        seats[snapshot["you"]["seat"]] = page
    black, white = seats[0], seats[1]
    for page, move, seq in ((black, "E5", 1), (white, "C3", 1), (black, "resign", 2)):
        page.evaluate("([room, move, seq]) => polygo.conn.request('move', {room, move, seq})", [room, move, seq])

    ann.goto(ann.url.split("#")[0] + "#/pool/chinese-9x9")
    rows = ann.locator("table.standings tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("td.rating")).to_have_text(re.compile(r"^-?\d+\?$"))   # provisional
    winner = rows.nth(0).get_attribute("data-player")
    assert winner == ("ann" if white is ann else "bob")
    expect(ann.locator("#pool-archive")).to_have_attribute("href", "/api/pools/chinese-9x9/games.zip")

    rows.nth(0).locator("a.player-link").click()
    expect(ann.locator(".player-page h2")).to_have_text(winner)
    expect(ann.locator('table.ratings tr[data-pool="chinese-9x9"] td').nth(4)).to_have_text("1")
    expect(ann.locator(f'ul.history li[data-room="{room}"]')).to_contain_text("place 1")
    recent = ann.locator(f'ul.recent li[data-room="{room}"]')
    expect(recent).to_contain_text("resignation")
    recent.locator("a.replay").click()
    expect(ann).to_have_url(re.compile(rf"#/replay/{room}$"))
