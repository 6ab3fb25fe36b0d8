"""A bot's analysis relayed by the server to the room's spectators (the `analysis` message)."""

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from polygo.protocol import JSON, PROTOCOL_VERSION, Analysis, RoomSettings, SeatName

from polygo.client.errors import ServerRefused
from polygo.client.session import Client

GUARD = 60.0  # seconds before a stuck wait fails the test; never a measure of speed


async def raw_reply(url: str, token: str, message: dict) -> dict:
    """Send one JSON message as the session `token` (what a client library would refuse to build)."""
    async with connect(url, subprotocols=[JSON]) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": token, "id": 1}))
        await ws.recv()
        await ws.send(json.dumps({**message, "id": 2}))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == 2:
                return {k: reply.get(k) for k in ("code", "field")}


async def test_a_players_analysis_reaches_spectators_and_others_are_refused(server):
    async with Client(server.url, name="ann") as ann, Client(server.url, name="bob") as bob, \
            Client(server.url, name="spectator") as spectator:
        room = (await ann.create(RoomSettings(rules="chinese", board="9x9"))).room
        with pytest.raises(ServerRefused) as early:
            await ann.request(Analysis(room=room, score=1.0))
        assert early.value.code == "not-seated"
        await ann.sit(room, 0)
        with pytest.raises(ServerRefused) as waiting:
            await ann.request(Analysis(room=room, score=1.0))
        assert waiting.value.code == "not-started"
        await bob.sit(room, 1)
        view = await spectator.watch(room)
        await ann.move(room, "E5")
        await ann.request(Analysis(room=room, score=4.5, winrate=0.62, pv=["C3", "G7"]))
        while 0 not in view.analysis:
            await asyncio.wait_for(spectator.changes.get(), GUARD)
        assert view.analysis[0] == {"seat": 0, "name": "ann", "index": 1, "score": 4.5, "winrate": 0.62,
                                    "pv": ["C3", "G7"]}
        with pytest.raises(ServerRefused) as watcher:
            await spectator.request(Analysis(room=room, winrate=0.5))
        assert watcher.value.code == "not-seated"
        assert await raw_reply(server.url, bob.token, {"type": "analysis", "room": room, "pv": ["x" * 65]}) == \
            {"code": "bad-field", "field": "pv[0]"}   # the item at fault
        await bob.request(Analysis(room=room, winrate=0.4))
        while 1 not in view.analysis:
            await asyncio.wait_for(spectator.changes.get(), GUARD)
        assert view.analysis[1]["winrate"] == 0.4 and "score" not in view.analysis[1]


async def test_a_player_renames_its_seat_in_one_room(server):
    async with Client(server.url, name="ann") as ann, Client(server.url, name="bob") as bob:
        room = (await ann.create(RoomSettings(rules="chinese", board="9x9"))).room
        view = await ann.sit(room, 0)
        with pytest.raises(ServerRefused) as waiting:
            await ann.request(SeatName(room=room, name="ann (away)"))
        assert waiting.value.code == "not-started"
        await bob.sit(room, 1)
        await bob.request(SeatName(room=room, name="gnugo (built-in bot)"))
        while view.seats[1].get("name") != "gnugo (built-in bot)":
            await asyncio.wait_for(ann.changes.get(), GUARD)
        async with Client(server.url, name="late") as late:
            assert [s["name"] for s in (await late.watch(room)).seats] == ["ann", "gnugo (built-in bot)"]
        assert bob.name == "bob"
