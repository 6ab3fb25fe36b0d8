"""What one address, one user and one creator may hold in memory: board points over every room in
memory charged to them (waiting, started and ended alike), and rooms per creator. Fresh guest
sessions from one address that start games on large boards against themselves are refused once
their address holds its points; a room that leaves memory frees them; an adjourned game brought
back is charged to whoever asks for it."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from polygo.server.config import Config, parse_config
from polygo.server.limits.holdings import LEAST_POINTS

PATIENCE = 5.0

PATH_POINTS = 1000
PATH = {"points": [f"p{i}" for i in range(PATH_POINTS)],
        "edges": [[f"p{i}", f"p{i + 1}"] for i in range(PATH_POINTS - 1)]}
BIG = {"rules": "chinese", "board": PATH}
NINE = {"rules": "chinese", "board": "9"}


@pytest.fixture
def config(config) -> Config:
    return dataclasses.replace(config, points_per_address=3 * PATH_POINTS + 100, rooms_per_session=100,
                               evict_after=0.2)


async def until(condition, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"not within {PATIENCE} s: {what}")
        await asyncio.sleep(0.02)


async def started(players, settings) -> tuple[str, list]:
    """A game two fresh guest sessions started against each other; both still watch it."""
    black, white = await players(2)
    reply = await black.request("create", settings=settings)
    if reply["type"] == "error":
        return reply, [black, white]
    await black.ok("sit", room=reply["room"], seat=0)
    await white.ok("sit", room=reply["room"], seat=1)
    return reply["room"], [black, white]


async def test_started_big_games_count_against_their_address(server, players):
    games = [await started(players, BIG) for _ in range(3)]
    refused, _ = await started(players, BIG)
    assert refused["code"] == "too-many-rooms"
    assert "board points" in refused["message"] and str(3 * PATH_POINTS + 100) in refused["message"]
    assert len(server.hub.rooms) == 3

    assert LEAST_POINTS > 100   # what is left: a small board is charged a 19x19 board's points
    refused, _ = await started(players, NINE)
    assert refused["code"] == "too-many-rooms"

    room, clients = games[0]
    for client in clients:
        await client.close()   # nobody watches it: it is adjourned and frees its points
    await until(lambda: room not in server.hub.rooms, "the unwatched game leaves memory")
    room, _ = await started(players, BIG)
    assert isinstance(room, str), room


async def test_an_adjourned_game_is_charged_to_whoever_brings_it_back(server, players):
    room, clients = await started(players, BIG)
    token = clients[0].token
    for client in clients:
        await client.close()
    await until(lambda: room not in server.hub.rooms, "the unwatched game leaves memory")
    [await started(players, BIG) for _ in range(3)]      # the address is full again

    (back,) = await players(1)
    await back.ok("hello", protocol=3, token=token)
    refused = await back.request("watch", room=room)
    assert refused["code"] == "too-many-rooms" and room not in server.hub.rooms
    assert (await back.request("move", room=room, move="p0", seq=0))["code"] == "too-many-rooms"


async def test_rooms_per_creator(make_server, connect_client):
    srv = await make_server(rooms_per_creator=2, rooms_per_session=100, points_per_address=10**6)
    creator = await connect_client(port=srv.port)
    await creator.hello("maker")
    for _ in range(2):
        room = (await creator.ok("create", settings=NINE))["room"]
        for i in range(2):      # others start it: it no longer waits, and still counts
            other = await connect_client(port=srv.port)
            await other.hello(f"x{i}")
            await other.ok("sit", room=room, seat=i)
    refused = await creator.request("create", settings=NINE)
    assert refused["code"] == "too-many-rooms" and "you created 2 rooms" in refused["message"]


def test_the_settings_from_the_environment_and_the_command_line():
    assert Config().points_per_address == parse_config([], {}).points_per_address == 32_768
    config = parse_config(["--points-per-user", "5000"], {"POLYGO_ROOMS_PER_CREATOR": "7",
                                                         "POLYGO_POINTS_PER_ADDRESS": "9000"})
    assert (config.points_per_user, config.rooms_per_creator, config.points_per_address) == (5000, 7, 9000)
