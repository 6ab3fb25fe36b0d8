"""Finding games from the page: three browsers seek kee-3p-hex5 and land in one started room; a
challenge sent from the page and accepted by a program starts the room, a declined one is shown
to the challenger, one received is shown live and after a reload, and declined from the page; the rated game's rating change on a profile, the pool's leaderboard with its
downloads, and an arena's standings from a game two programs played there."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from polygo.protocol import PROTOCOL_VERSION

ROOM = re.compile(r"#/room/(\w+)$")


class Program:
    """A registered client program: `request` returns the reply, `notice` waits for a message sent
    unasked (`matched`, `challenge`)."""

    def __init__(self, url: str, name: str) -> None:
        self.connection = connect(url.replace("http://", "ws://"), subprotocols=["polygo.json"]).__enter__()
        self.ids = itertools.count(1)
        self.seq = itertools.count(1)
        self.notices: list[dict[str, Any]] = []
        self.request("hello", protocol=PROTOCOL_VERSION, name=name)
        self.request("register", user=name, password=name + " secret")

    def close(self) -> None:
        self.connection.close()

    def _next(self) -> dict[str, Any]:
        message = json.loads(self.connection.recv(timeout=10))
        if "id" not in message and message["type"] in ("matched", "challenge"):
            self.notices.append(message)
        return message

    def request(self, type: str, **fields: Any) -> dict[str, Any]:
        ident = next(self.ids)
        self.connection.send(json.dumps({"type": type, "id": ident, **fields}))
        while True:
            reply = self._next()
            if reply.get("id") == ident:
                assert reply["type"] != "error", reply
                return reply

    def notice(self, type: str, **match: Any) -> dict[str, Any]:
        while True:
            for message in self.notices:
                if message["type"] == type and all(message.get(k) == v or message.get("challenge", {}).get(k) == v
                                                   for k, v in match.items()):
                    self.notices.remove(message)
                    return message
            self._next()

    def move(self, room: str, move: str) -> None:
        self.request("move", room=room, move=move, seq=next(self.seq))


def register(page: Page, name: str) -> None:
    page.click(".account summary")
    page.fill("#user", name)
    page.fill("#password", name + " secret")
    page.click("#register")
    expect(page.locator(".account summary")).to_have_text(f"registered as {name}")


def page_move(page: Page, room: str, move: str, seq: int) -> None:
    page.evaluate("([room, move, seq]) => polygo.conn.request('move', {room, move, seq})", [room, move, seq])


def test_three_pages_seek_the_kee_pool_and_land_in_one_room(open_page, shot):
    pages = [open_page(name) for name in ("ann", "bob", "cy")]
    seek = pages[0].locator('button.seek[data-pool="kee-3p-hex5"]')
    expect(seek).to_be_disabled()                       # a guest: rated pools need an account
    expect(pages[0].locator("#guest-note")).to_contain_text("Rated pools need an account")
    for page, name in zip(pages, ("ann", "bob", "cy")):
        register(page, name)
    for page in pages[:2]:
        page.click('button.seek[data-pool="kee-3p-hex5"]')
        expect(page.locator('tr[data-pool="kee-3p-hex5"] .waiting')).to_contain_text("waiting for 2 opponents")
    shot(pages[1], "seeking")
    pages[1].click("button.unseek")                     # cancelled, then sought again
    expect(pages[1].locator('button.seek[data-pool="kee-3p-hex5"]')).to_be_enabled()
    pages[1].click('button.seek[data-pool="kee-3p-hex5"]')
    pages[2].click('button.seek[data-pool="kee-3p-hex5"]')
    rooms = set()
    for page in pages:
        expect(page).to_have_url(ROOM)
        rooms.add(ROOM.search(page.url)[1])
        expect(page.locator(".seat-row .player-link")).to_have_count(3)
    assert len(rooms) == 1


def test_challenges_profiles_leaderboard_and_arena_standings(open_page, web_server, shot):
    ann = open_page("ann")
    register(ann, "ann")
    bob = Program(web_server.url, "bob")
    cy = Program(web_server.url, "cy")
    try:
        arena = ann.locator('button.arena[data-pool="arena-9x9"]')
        arena.click()
        expect(arena).to_have_text("Leave arena")
        expect(ann.locator('tr[data-pool="arena-9x9"] .seeking')).to_contain_text("1 in the arena")
        arena.click()
        expect(arena).to_have_text("Join arena")
        bob.request("challenges")
        ann.fill("#challenge-players", "bob")
        ann.select_option("#challenge-pool", "chinese-9x9")
        ann.click("#challenge-form button[type=submit]")
        expect(ann.locator("li.challenge")).to_contain_text("You challenge bob: chinese-9x9 (rated)")
        offer = bob.notice("challenge", status="open")["challenge"]
        bob.request("challenge_reply", challenge=offer["id"], accept=True)
        matched = bob.notice("matched")
        expect(ann).to_have_url(ROOM)
        room = matched["room"]
        bob.request("sit", room=room, seat=matched["seat"])
        assert ROOM.search(ann.url)[1] == room
        # a short rated game: one stone each, then the second player resigns
        if matched["seat"] == 0:
            bob.move(room, "E5")
            page_move(ann, room, "C3", 1)
            bob.move(room, "resign")
        else:
            page_move(ann, room, "E5", 1)
            bob.move(room, "C3")
            page_move(ann, room, "resign", 2)
        expect(ann.locator(".result")).to_contain_text("game over (resignation)")

        ann.goto(web_server.url + "#/")                  # a second challenge, declined
        ann.fill("#challenge-players", "bob")
        ann.select_option("#challenge-pool", "")
        ann.click("#challenge-form button[type=submit]")
        second = bob.notice("challenge", status="open")["challenge"]
        assert second["rated"] is False
        bob.request("challenge_reply", challenge=second["id"], accept=False)
        expect(ann.locator(f'li.challenge[data-challenge="{second["id"]}"]')).to_contain_text("declined")
        shot(ann, "challenges")

        cy.request("challenges")                          # one to the page: standing at a reload, declined there
        offered = cy.request("challenge", players=["ann"], settings={"rules": "chinese", "board": "9"})["challenge"]
        incoming = ann.locator(f'li.challenge[data-challenge="{offered["id"]}"]')
        expect(incoming).to_contain_text("cy challenges you: Chinese 9, unrated")
        ann.reload()
        incoming.locator("button.decline").click()
        expect(incoming).to_contain_text("declined")
        assert cy.notice("challenge", id=offered["id"])["challenge"]["status"] == "declined"

        ann.goto(web_server.url + f"#/room/{room}")      # a name in the room opens its profile
        ann.click('.seat-row .player-link:text("bob")')
        expect(ann).to_have_url(re.compile("#/player/bob$"))
        rating = ann.locator('table.ratings tr[data-pool="chinese-9x9"]')
        expect(rating.locator(".rating")).to_have_text(re.compile(r"^\d+\?$"))
        expect(ann.locator(f'table.history tr[data-room="{room}"] .change')).to_have_text(re.compile(r"^1000 → \d+ \([+-]\d+\)$"))
        expect(ann.locator(f'table.recent tr[data-room="{room}"] .result')).to_contain_text("of 2 (resignation)")
        shot(ann, "profile")

        ann.click('a.pool-link:text("chinese-9x9")')
        rows = ann.locator("table.standings tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.locator(".games")).to_have_text(["1", "1"])
        sgf = ann.locator(f'table.pool-games tr[data-room="{room}"] a.dl-sgf')
        assert ann.request.get(web_server.url.rstrip("/") + sgf.get_attribute("href")).text().startswith("(;")
        zipped = ann.request.get(web_server.url.rstrip("/") + ann.locator("a.dl-archive").get_attribute("href"))
        assert zipped.headers["content-type"] == "application/zip"

        for program in (bob, cy):                         # two programs in the arena play a game
            program.request("arena", pool="arena-9x9")
        seats = {name: p.notice("matched") for name, p in (("bob", bob), ("cy", cy))}
        arena_room = seats["bob"]["room"]
        first, second_player = (bob, cy) if seats["bob"]["seat"] == 0 else (cy, bob)
        for name, program in (("bob", bob), ("cy", cy)):
            program.request("sit", room=arena_room, seat=seats[name]["seat"])
        first.move(arena_room, "E5")
        second_player.move(arena_room, "C3")
        first.move(arena_room, "resign")
        ann.goto(web_server.url + "#/pool/arena-9x9")
        expect(ann.locator("h3").first).to_have_text("Arena standings")
        arena_rows = ann.locator("table.standings tbody tr")
        expect(arena_rows).to_have_count(2)
        expect(arena_rows.locator(".wins")).to_have_text(["1", "0"])
        expect(arena_rows.first.locator(".in-arena")).to_have_text(re.compile("in the arena|^$"))
        shot(ann, "arena")
    finally:
        bob.close()
        cy.close()
