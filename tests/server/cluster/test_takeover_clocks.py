"""A clocked game on a node killed with SIGKILL is not charged for the outage when another node
takes it over: as after a restart, the clocks resume as last committed. The outage is made longer
than the main time, so a charged clock would have flagged; the stopped clock is exactly as stored."""

from __future__ import annotations

import asyncio
import json
import signal

from polygo.protocol import PROTOCOL_VERSION

from tests.server.conftest import free_port

MAIN = 5.0
OUTAGE = MAIN + 1.0
"""Seconds between the kill and the other node's start: more than the running player has left."""


async def test_a_taken_over_clock_is_charged_only_up_to_the_last_commit(postgres, postgres_url, spawn_server,
                                                                        players, seat, connect_client):
    node_a, node_b = free_port(), free_port()
    a = await spawn_server(postgres_url, node_a, "--node-id", "a", "--lease", "3")
    black, white = await players(2, port=node_a)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": f"absolute:{MAIN:g}"})
    assert (await black.move(room, "E5", 1))["type"] == "ack"       # white's clock runs from this commit
    a.send_signal(signal.SIGKILL)
    await asyncio.to_thread(a.wait, 30)
    database = postgres_url.rsplit("/", 1)[1]
    stored = json.loads(postgres.psql(f"SELECT clocks FROM rooms WHERE room_id = '{room}'", database))
    assert stored["running"] == 1

    await asyncio.sleep(OUTAGE)
    await spawn_server(postgres_url, node_b, "--node-id", "b", "--lease", "3")
    back = await connect_client(port=node_b)
    await back.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
    snapshot = await back.ok("watch", room=room)                     # b takes the room over
    assert snapshot["status"] == "playing" and snapshot["clocks"]["running"] == 1
    assert 0 < snapshot["clocks"]["seats"][1]["main"] <= stored["seats"][1]["main"]
    assert snapshot["clocks"]["seats"][0]["main"] == stored["seats"][0]["main"]
    assert (await back.move(room, "C3", 1))["type"] == "ack"         # white still has time to play
    timeouts = postgres.psql(f"SELECT count(*) FROM moves WHERE room_id = '{room}' AND move = 'timeout'", database)
    assert timeouts.strip() == "0"


async def test_a_correspondence_flag_falls_on_the_node_that_takes_the_orphaned_game(postgres, postgres_url,
                                                                                     spawn_server, players, seat):
    """A calendar clock is charged the outage: its deadline, stored with the last commit, passes
    while no node serves the game (moved back a day here, which is what a day offline looks like);
    the node that takes the orphan over finds the flag fallen, with nobody connected."""
    node_a, node_b = free_port(), free_port()
    a = await spawn_server(postgres_url, node_a, "--node-id", "a", "--lease", "3")
    black, white = await players(2, port=node_a)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "corr:1d"})
    for client in (black, white):
        await client.close()
    a.send_signal(signal.SIGKILL)
    await asyncio.to_thread(a.wait, 30)
    database = postgres_url.rsplit("/", 1)[1]
    postgres.psql(f"UPDATE rooms SET deadline = deadline - 86400 WHERE room_id = '{room}'", database)

    await spawn_server(postgres_url, node_b, "--node-id", "b", "--lease", "3")
    query = f"SELECT move FROM moves WHERE room_id = '{room}'"
    for _ in range(300):
        if postgres.psql(query, database).strip() == "timeout":
            break
        await asyncio.sleep(0.05)
    assert postgres.psql(query, database).strip() == "timeout"
    assert "timeout" in postgres.psql(f"SELECT body FROM results WHERE room_id = '{room}'", database)
