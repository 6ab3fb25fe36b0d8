"""Seeks on a live server: compatible seekers get one started room with every seat filled, each
told its seat; rated pools rate the game's end exactly as openskill computes it; bad seeks are
refused with their codes."""

from __future__ import annotations

import asyncio

from polygo.server.finding.matching import Window
from polygo.server.finding.ratings import MODEL

WAIT = 5.0


async def registered(players, names: list[str]) -> list:
    clients = await players(len(names))
    for client, name in zip(clients, names):
        await client.ok("register", user=name, password="pass-" + name)
    return clients


async def matched(client) -> dict:
    """The client's next `matched` message (replies and such messages share one queue)."""
    while True:
        message = await asyncio.wait_for(client.replies.get(), WAIT)
        if message["type"] == "matched":
            return message


async def test_three_seekers_of_kee_3p_hex5_get_one_started_room(players):
    ann, bob, cy = await registered(players, ["ann", "bob", "cy"])
    for client in (ann, bob):
        reply = await client.ok("seek", pool="kee-3p-hex5")
        assert reply == {"type": "seeking", "pool": "kee-3p-hex5", "rated": True, "rating": 1000, "provisional": True}
    await cy.ok("seek", pool="kee-3p-hex5")
    found = [await matched(c) for c in (ann, bob, cy)]
    assert len({m["room"] for m in found}) == 1
    assert sorted(m["seat"] for m in found) == [0, 1, 2]
    assert {m["via"] for m in found} == {"seek"}
    room = found[0]["room"]
    snapshot = await ann.ok("sit", room=room)
    assert snapshot["status"] == "playing"
    assert [s["user"] for s in sorted(snapshot["seats"], key=lambda s: s["seat"])] == \
        [{m["seat"]: n for m, n in zip(found, ["ann", "bob", "cy"])}[i] for i in range(3)]
    assert snapshot["settings"]["pool"] == "kee-3p-hex5" and snapshot["settings"]["rated"] is True
    assert snapshot["you"]["seat"] == found[0]["seat"]


async def test_bad_seeks_are_refused_with_their_codes(players):
    guest, = await players(1)
    assert (await guest.request("seek", pool="no-such"))["code"] == "no-such-pool"
    refused = await guest.request("seek", pool="chinese-9x9")
    assert refused["code"] == "not-registered"
    assert (await guest.request("unseek"))["code"] == "not-seeking"
    await guest.ok("seek", settings={"rules": "chinese", "board": "9x9"})
    assert (await guest.request("seek", settings={"rules": "chinese", "board": "9x9"}))["code"] == "already-seeking"
    assert (await guest.request("seek", pool="chinese-9x9", settings={"rules": "chinese"}))["code"] == "bad-field"
    await guest.ok("unseek")
    await guest.ok("seek", settings={"rules": "chinese", "board": "9x9"})


async def test_a_seek_ends_with_its_connection(players):
    gone, bob, cy = await players(3)
    await gone.ok("seek", settings={"rules": "chinese", "board": "9x9"})
    await gone.close()
    pools = await bob.ok("pools")
    await bob.ok("seek", settings={"rules": "chinese", "board": "9x9"})
    await cy.ok("seek", settings={"rules": "chinese", "board": "9x9"})
    first, second = await matched(bob), await matched(cy)
    assert first["room"] == second["room"] and {first["seat"], second["seat"]} == {0, 1}
    assert "kee-3p-hex5" in {p["name"] for p in pools["pools"]}


async def play_out(clients: list, found: list[dict]) -> str:
    """Each seat plays a stone, then the seats 0 and 1 resign: seat 2 first, 1 second, 0 third."""
    room = found[0]["room"]
    by_seat = {m["seat"]: c for m, c in zip(found, clients)}
    for seat in range(3):
        await by_seat[seat].ok("sit", room=room)
    for seat in range(3):
        await by_seat[seat].ok("move", room=room, move=f"A{seat + 1}", seq=1)
    await by_seat[0].ok("move", room=room, move="resign", seq=2)
    await by_seat[1].ok("move", room=room, move="resign", seq=2)
    return room


async def ratings_of(server, pool: str) -> dict[str, tuple[float, float, int, int]]:
    rows = await server.store.query("SELECT player, mu, sigma, games, wins FROM ratings WHERE pool = ?", (pool,))
    return {player: (mu, sigma, games, wins) for player, mu, sigma, games, wins in rows}


async def test_a_rated_3_player_game_changes_all_three_ratings_as_openskill_computes(server, players):
    clients = await registered(players, ["ann", "bob", "cy"])
    for client in clients:
        await client.ok("seek", pool="kee-3p-hex5")
    found = [await matched(c) for c in clients]
    await play_out(clients, found)
    names = {m["seat"]: n for m, n in zip(found, ["ann", "bob", "cy"])}
    expected = MODEL.rate([[MODEL.rating()] for _ in range(3)], ranks=[3, 2, 1])
    for _ in range(100):
        ratings = await ratings_of(server, "kee-3p-hex5")
        if len(ratings) == 3:
            break
        await asyncio.sleep(0.02)
    for seat in range(3):
        mu, sigma, games, wins = ratings[names[seat]]
        assert (mu, sigma) == (expected[seat][0].mu, expected[seat][0].sigma)
        assert games == 1 and wins == (seat == 2)
    profile = await server.hub.pool_queries.history(names[2])
    assert profile[0]["rank"] == 1 and profile[0]["pool"] == "kee-3p-hex5"


async def test_a_game_ended_before_every_seat_moved_is_not_rated(server, players):
    clients = await registered(players, ["ann", "bob"])
    for client in clients:
        await client.ok("seek", pool="chinese-9x9")
    found = [await matched(c) for c in clients]
    black = clients[[m["seat"] for m in found].index(0)]
    await black.ok("sit", room=found[0]["room"])
    await black.ok("move", room=found[0]["room"], move="resign", seq=1)
    await asyncio.sleep(0)
    assert await ratings_of(server, "chinese-9x9") == {}


async def test_rebuild_equals_live(server, players):
    server.hub.seeks.window = Window(start=10_000)      # the players' ratings part after their first game
    clients = await registered(players, ["ann", "bob", "cy"])
    for _ in range(3):
        for client in clients:
            await client.ok("seek", pool="kee-3p-hex5")
        found = [await matched(c) for c in clients]
        await play_out(clients, found)
    live = await ratings_of(server, "kee-3p-hex5")
    assert {games for _, _, games, _ in live.values()} == {3}
    report = await server.hub.pool_queries.rebuild()
    assert (report.games, report.players, report.differed) == (3, 3, [])
    assert await ratings_of(server, "kee-3p-hex5") == live
