"""The room table's bound on rooms in memory (`max_rooms`) meets every way a room comes in with
the same refusal: a create, a room started for matched seekers, an adjourned game brought back."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.config import Config

PATIENCE = 5.0
NINE = {"rules": "chinese", "board": "9"}
FULL = "the server holds 2 rooms, its limit; try again later"


@pytest.fixture
def config(config) -> Config:
    return dataclasses.replace(config, max_rooms=2, evict_after=0.2)


async def seek_refused(client) -> dict:
    """The error a seeker is sent when the room found for it cannot be started."""
    while True:
        message = await asyncio.wait_for(client.replies.get(), PATIENCE)
        if message["type"] == "error" and message.get("ref") == "seek":
            return message


async def test_a_full_server_refuses_every_way_in_alike(server, players, seat):
    black, white = await players(2)
    adjourned = await seat([black, white], NINE)
    token = black.token
    for client in (black, white):
        await client.close()
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while adjourned in server.hub.rooms:
        assert asyncio.get_running_loop().time() < deadline, "the unwatched game was not adjourned"
        await asyncio.sleep(0.02)
    assert server.hub.adjourned == 1

    maker, back, ann, bob = await players(4)
    for _ in range(2):
        await maker.ok("create", settings=NINE)

    refused = await maker.request("create", settings=NINE)
    assert (refused["code"], refused["message"]) == ("too-many-rooms", FULL)

    await back.ok("hello", protocol=PROTOCOL_VERSION, token=token)
    refused = await back.request("watch", room=adjourned)
    assert (refused["code"], refused["message"]) == ("too-many-rooms", FULL)
    assert adjourned not in server.hub.rooms and server.hub.adjourned == 1

    for seeker in (ann, bob):
        await seeker.ok("seek", settings=NINE)
    for seeker in (ann, bob):
        refused = await seek_refused(seeker)
        assert (refused["code"], refused["message"]) == ("too-many-rooms", FULL)
    assert len(server.hub.rooms) == 2
