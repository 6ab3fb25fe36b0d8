"""The /api/ routes on a live server: pools, standings, a player's profile, a game's record."""

from __future__ import annotations

import asyncio
import io
import json
import urllib.error
import urllib.request
import zipfile

from polygo.server.finding.matching import Window
from tests.server.finding.test_seeks import matched, registered


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


async def fetch(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(get, port, path)


async def test_pools_standings_players_and_games_over_http(server, players):
    ann, bob = await registered(players, ["ann", "bob"])
    for client in (ann, bob):
        await client.ok("seek", pool="chinese-9x9")
    told = {c: await matched(c) for c in (ann, bob)}
    found = {m["seat"]: c for c, m in told.items()}
    room = told[ann]["room"]
    for client in (ann, bob):
        await client.ok("sit", room=room)
    await found[0].ok("move", room=room, move="E5", seq=1)
    await found[1].ok("move", room=room, move="C3", seq=1)
    await found[0].ok("move", room=room, move="resign", seq=2)

    status, headers, body = await fetch(server.port, "/api/pools")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert {"kee-3p-hex5", "chinese-9x9"} <= {p["name"] for p in json.loads(body)["pools"]}

    for _ in range(100):
        status, _, body = await fetch(server.port, "/api/pools/chinese-9x9/standings")
        standings = json.loads(body)["standings"]
        if len(standings) == 2:
            break
        await asyncio.sleep(0.02)
    assert [row["rank"] for row in standings] == [1, 2]
    assert standings[0]["wins"] == 1 and standings[0]["provisional"] is True
    white = standings[0]["player"]

    status, _, body = await fetch(server.port, f"/api/players/{white}")
    profile = json.loads(body)
    assert status == 200 and profile["ratings"]["chinese-9x9"]["games"] == 1
    assert profile["history"][0]["room"] == room
    [recent] = profile["recent"]
    assert (recent["room"], recent["pool"], recent["place"]) == (room, "chinese-9x9", 1)
    assert recent["reason"] == "resignation"
    assert set(recent["seats"]) == {"ann", "bob"} and recent["record"] == f"/api/games/{room}.json"

    status, headers, body = await fetch(server.port, f"/api/games/{room}.json")
    assert status == 200 and json.loads(body)["result"]["reason"] == "resignation"
    assert "max-age" in headers["Cache-Control"]
    status, headers, body = await fetch(server.port, f"/api/games/{room}.sgf")
    assert status == 200 and body.startswith(b"(;") and b"RE[W+R]" in body

    for path in ("/api/pools/nope/standings", "/api/players/nobody", "/api/games/nope.json", "/api/else"):
        status, _, body = await fetch(server.port, path)
        assert status == 404 and json.loads(body)["error"] == "not-found", path


async def test_odd_player_names_answer_404(server):
    for path in ("/api/players/%00", "/api/players/" + "x" * 40, "/api/players/a%0Ab"):
        status, _, body = await fetch(server.port, path)
        assert status == 404 and json.loads(body)["error"] == "not-found", path


async def test_a_pool_s_rated_games_come_in_one_archive_and_a_list(server, players):
    server.hub.seeks.window = Window(start=10_000)      # the players' ratings part after their first game
    ann, bob = await registered(players, ["ann", "bob"])
    rooms = []
    for _ in range(2):
        for client in (ann, bob):
            await client.ok("seek", pool="chinese-9x9")
        told = {c: await matched(c) for c in (ann, bob)}
        by_seat = {m["seat"]: c for c, m in told.items()}
        room = told[ann]["room"]
        rooms.append(room)
        for client in (ann, bob):
            await client.ok("sit", room=room)
        await by_seat[0].ok("move", room=room, move="E5", seq=1)
        await by_seat[1].ok("move", room=room, move="C3", seq=1)
        await by_seat[1].ok("move", room=room, move="resign", seq=2)
    for _ in range(100):
        status, headers, body = await fetch(server.port, "/api/pools/chinese-9x9/games.zip")
        names = sorted(zipfile.ZipFile(io.BytesIO(body)).namelist())
        if len(names) == 4:
            break
        await asyncio.sleep(0.02)
    assert status == 200 and headers["Content-Type"] == "application/zip"
    assert names == sorted(f"chinese-9x9/{room}.{ext}" for room in rooms for ext in ("json", "sgf"))
    status, _, _ = await fetch(server.port, "/api/pools/chinese-9x9/games.zip?limit=x")
    assert status == 400
    status, _, body = await fetch(server.port, "/api/pools/chinese-9x9/games")
    listed = json.loads(body)
    assert status == 200 and listed["archive"] == "/api/pools/chinese-9x9/games.zip"
    assert [g["room"] for g in listed["games"]] == rooms[::-1]
    latest = listed["games"][0]
    assert sorted(latest["players"]) == ["ann", "bob"] and sorted(latest["ranks"]) == [1, 2]
    assert (latest["json"], latest["sgf"]) == (f"/api/games/{rooms[1]}.json", f"/api/games/{rooms[1]}.sgf")
    _, _, body = await fetch(server.port, "/api/pools/chinese-9x9/games?limit=1&offset=1")
    assert [g["room"] for g in json.loads(body)["games"]] == rooms[:1]
    status, _, body = await fetch(server.port, "/api/pools/kee-3p-hex5/games")
    assert status == 200 and json.loads(body)["games"] == []
    assert (await fetch(server.port, "/api/pools/nope/games"))[0] == 404
    assert (await fetch(server.port, "/api/pools/chinese-9x9/games?offset=x"))[0] == 400


async def test_a_private_room_s_game_stays_out_of_a_profile(server, players):
    ann, bob = await registered(players, ["ann", "bob"])
    created = await ann.ok("create", settings={"rules": "chinese", "board": "9x9", "private": True})
    room, invite = created["room"], created["invite"]
    await ann.ok("sit", room=room, seat=0)
    await bob.ok("sit", room=room, seat=1, invite=invite)
    await ann.ok("move", room=room, move="resign", seq=1)
    status, _, body = await fetch(server.port, "/api/players/ann")
    assert status == 200 and json.loads(body)["recent"] == []
    status, _, _ = await fetch(server.port, f"/api/games/{room}.json")
    assert status == 404


async def test_a_head_of_an_api_path_has_the_get_s_headers_and_no_body(server):
    def head() -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/pools", method="HEAD")
        with urllib.request.urlopen(request, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()

    status, headers, body = await asyncio.to_thread(head)
    _, got, full = await fetch(server.port, "/api/pools")
    assert status == 200 and body == b"" and headers["Content-Length"] == got["Content-Length"] == str(len(full))
