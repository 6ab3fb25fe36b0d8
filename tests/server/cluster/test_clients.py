"""The clients of issue 15 behind three nodes and HAProxy: one SDK session plays a game on each
of two nodes at once (a connection per node, each room's requests at its own node), and
`polygo bot` (the GTP bridge) and `polygo play` follow `moved` to the room's node."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys

from polygo.client.bots import BuiltinBot
from polygo.client.runner import BotRunner
from polygo.client.session import Client
from polygo.protocol import RoomSettings
from tests.client.tmux import Tmux

from .conftest import ROOT

GUARD = 120.0
HOUSE = RoomSettings(rules="tromp-taylor", board="5x5", bots=1)
POLYGO = [sys.executable, "-m", "polygo.client"]
FAKE_GTP = ROOT / "tests" / "client" / "fake_gtp.py"


async def house_game_at(cluster, node: str) -> str:
    """A room made at `node`, its last seat played by the house bot."""
    async with Client(f"{cluster.url}/n/{node}/", name=f"host-{node}") as host:
        return (await host.create(HOUSE)).room


def stored(postgres, cluster, sql: str) -> str:
    return postgres.psql(sql, cluster.db.rsplit("/", 1)[1]).strip()


async def test_one_sdk_session_plays_on_two_nodes_at_once(cluster, postgres):
    rooms = {node: await house_game_at(cluster, node) for node in ("a", "b")}
    async with Client(f"{cluster.url}/n/c/", name="both") as client:     # c serves neither room
        runner = BotRunner(BuiltinBot(seed=3), client)
        for room in rooms.values():
            await runner.join(room, 0)
        assert client.connections == {f"{cluster.url}/n/{node}/": True for node in "abc"}
        results = await asyncio.wait_for(runner.run(), GUARD)
        assert all(results[room] and results[room]["reason"] for room in rooms.values()), results
        assert {node: client.url_of(room) for node, room in rooms.items()} == \
               {node: f"{cluster.url}/n/{node}/" for node in rooms}
        assert client.connections == {f"{cluster.url}/n/{node}/": True for node in "abc"}
    for node, room in rooms.items():       # the rooms stayed where they were made
        assert stored(postgres, cluster, f"SELECT owner_node FROM rooms WHERE room_id = '{room}'") == node


async def test_the_gtp_bridge_follows_moved_to_the_rooms_node(cluster, postgres, tmp_path):
    room = await house_game_at(cluster, "a")
    engine = shlex.join([sys.executable, str(FAKE_GTP), "--moves", "C3"])
    env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_HOME=str(tmp_path))
    bridge = await asyncio.to_thread(
        subprocess.run, [*POLYGO, "bot", "--gtp", engine, "--room", room, "--seat", "0", "--name", "gtp",
                         "--server", f"{cluster.url}/n/b/"], env=env, capture_output=True, text=True, timeout=GUARD)
    assert bridge.returncode == 0, bridge.stderr
    assert stored(postgres, cluster, f"SELECT count(*) FROM results WHERE room_id = '{room}'") == "1"   # ended
    assert stored(postgres, cluster, f"SELECT owner_node FROM rooms WHERE room_id = '{room}'") == "a"
    assert stored(postgres, cluster, f"SELECT move FROM moves WHERE room_id = '{room}' AND seat = 0 "
                                     "ORDER BY version LIMIT 1") == "C3"


async def test_polygo_play_follows_moved_to_the_rooms_node(cluster, postgres, tmp_path):
    room = await house_game_at(cluster, "a")
    env = dict(os.environ, POLYGO_HOME=str(tmp_path), NO_COLOR="1")
    term = Tmux([*POLYGO, "play", "--join", room, "--seat", "0", "--name", "ann", "--no-local-server",
                 "--server", f"{cluster.url}/n/b/"], env)
    try:
        await asyncio.to_thread(term.wait_for, room)
        term.type("C3")
        for _ in range(400):            # the move and the house bot's answer, stored at a
            moves = stored(postgres, cluster, f"SELECT count(*) FROM moves WHERE room_id = '{room}'")
            if int(moves) >= 2:
                break
            await asyncio.sleep(0.05)
        assert stored(postgres, cluster, f"SELECT seat, move FROM moves WHERE room_id = '{room}' "
                                         "ORDER BY version LIMIT 1") == "0|C3"
        assert int(moves) >= 2, "the house bot never answered"
        assert stored(postgres, cluster, f"SELECT owner_node FROM rooms WHERE room_id = '{room}'") == "a"
        term.type("quit")
        await asyncio.to_thread(term.wait_for, r"EXIT=0")
    finally:
        term.close()
