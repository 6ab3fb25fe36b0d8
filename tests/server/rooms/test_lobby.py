"""Issue 16, items 2 and 3: the lobby is paged and bounded, graph boards are listed by their size,
room creation is bounded per address and in total, and rooms whose game never starts expire."""

from __future__ import annotations

import json

POINTS = [f"p{i}" for i in range(2000)]
LARGE = {"points": POINTS, "edges": [[POINTS[i], POINTS[i + 1]] for i in range(1999)]}


async def test_list_comes_in_bounded_pages(server, players):
    (guest,) = await players(1)
    made = [(await guest.ok("create", settings={"rules": "chinese", "board": "9", "title": f"r{i}"}))["room"]
            for i in range(7)]
    first = await guest.ok("list", limit=3)
    assert [r["room"] for r in first["rooms"]] == made[:3] and first["total"] == 7 and first["next"] == 3
    last = await guest.ok("list", limit=3, offset=6)
    assert [r["room"] for r in last["rooms"]] == made[6:] and "next" not in last
    refused = await guest.request("list", limit=101)
    assert refused["code"] == "bad-field" and refused["field"] == "limit"
    assert (await guest.hello("again"))["limits"]["list"] == 100


async def test_graph_boards_are_listed_by_size_and_a_page_stays_small(make_server, players, tmp_path):
    srv = await make_server(db=str(tmp_path / "graphs.db"), points_per_address=20 * 2000)
    guests = await players(2, port=srv.port)
    for i in range(20):
        await guests[i % 2].ok("create", settings={"rules": "chinese", "board": LARGE})
    listing = await guests[0].ok("list")
    assert listing["total"] == 20 and {r["settings"]["board"] for r in listing["rooms"]} == {"graph:2000"}
    assert len(json.dumps(listing)) < 32 * 1024        # was 20 full graphs, over 1 MiB


async def test_the_listing_follows_changes(server, players, seat):
    black, white, third = await players(3)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    before = (await third.ok("list"))["rooms"][0]
    assert before["seats"] == ["p0", "p1"] and before["status"] == "playing" and before["registered"] == [False, False]
    await black.move(room, "E5", 1)
    after = (await third.ok("list"))["rooms"][0]
    assert after["version"] > before["version"]
    await black.ok("move", room=room, move="resign", seq=2)
    assert (await third.ok("list"))["total"] == 0


async def test_unstarted_rooms_are_bounded_per_address_whatever_the_session(make_server, players, seat, tmp_path):
    srv = await make_server(db=str(tmp_path / "lobby.db"), rooms_per_address=3)
    guests = await players(3, port=srv.port)
    rooms = [(await guests[i % 2].ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
             for i in range(3)]
    refused = await guests[2].request("create", settings={"rules": "chinese", "board": "9"})
    assert refused["code"] == "too-many-rooms" and "address" in refused["message"]
    await guests[0].ok("sit", room=rooms[0])
    await guests[1].ok("sit", room=rooms[0])             # started: it no longer counts
    await guests[2].ok("create", settings={"rules": "chinese", "board": "9"})


async def test_rooms_are_bounded_in_total(make_server, players, tmp_path):
    srv = await make_server(db=str(tmp_path / "total.db"), max_rooms=2)
    guests = await players(2, port=srv.port)
    await guests[0].ok("create", settings={"rules": "chinese", "board": "9"})
    await guests[1].ok("create", settings={"rules": "chinese", "board": "9"})
    refused = await guests[1].request("create", settings={"rules": "chinese", "board": "9"})
    assert refused["code"] == "too-many-rooms" and "server" in refused["message"]


async def test_a_room_whose_game_never_starts_expires_for_good(config, make_server, players, seat):
    first = await make_server(waiting_expiry=0.5)
    owner, black, white = await players(3, port=first.port)
    idle = (await owner.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await owner.ok("sit", room=idle)
    started = await seat([black, white], {"rules": "chinese", "board": "9"})
    closed = await owner.event("closed")
    assert closed["room"] == idle and closed["reason"] == "expired"
    listing = await owner.ok("list")
    assert [r["room"] for r in listing["rooms"]] == [started]
    assert (await owner.hello("owner"))["seats"] == []
    await first.close()
    second = await make_server(waiting_expiry=3600)
    (guest,) = await players(1, port=second.port)
    assert (await guest.request("sit", room=idle))["code"] == "no-such-room"
    assert (await guest.ok("watch", room=started))["status"] == "playing"


async def test_creates_from_one_address_are_rate_limited_refused_or_not(make_server, players, tmp_path):
    srv = await make_server(db=str(tmp_path / "rate.db"), create_rate=0.001, rooms_per_session=100)
    first, second = await players(2, port=srv.port)
    codes = [(await (first, second)[i % 2].request("create", settings={"rules": "no-such-rules"})).get("code")
             for i in range(22)]
    assert codes[:20] == ["bad-settings"] * 20 and codes[20:] == ["rate-limited"] * 2
