"""The arena end to end: `polygo bot --builtin --arena POOL` (and `--gtp ... --arena POOL`)
processes on a real server with fast arena pools from its `--pools` file play their games
unattended, paired by the server, and appear in the pool's standings over HTTP; every game is
downloadable. (Who meets whom, rematches and seats: tests/server/finding/test_matching.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

from .conftest import ROOT, LocalServer

POOLS = """
[pools.arena-fast]
rules = "chinese"
board = "5x5"
clock = "fischer:30+1"
arena = true
title = "a fast arena for the tests"

[pools.arena-kee]
rules = "kee"
players = 3
board = "4x3"
clock = "fischer:30+1"
arena = true
title = "a fast three-player arena for the tests"
"""


def get(port: int, path: str) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
        return resp.read()


def arena_server(tmp_path) -> LocalServer:
    pools = tmp_path / "pools.toml"
    pools.write_text(POOLS)
    server = LocalServer(tmp_path / "arena.db")
    server.start(0, "--pools", str(pools))
    return server


def run_bots(server: LocalServer, tmp_path, engines: list[list[str]], games: int, pool: str = "arena-fast") -> None:
    """`polygo bot ENGINE --arena POOL` for each engine (users arenabot0, 1, ...), to the end."""
    bots = [subprocess.Popen(
        [sys.executable, "-m", "polygo.client", "bot", *engine, "--arena", pool, "--user", f"arenabot{i}",
         "--games", str(games), "--server", server.url, "--token-file", str(tmp_path / f"tokens{i}.json"),
         "--log-level", "WARNING"],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_PASSWORD=f"secret-{i}"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i, engine in enumerate(engines)]
    for bot in bots:
        out, _ = bot.communicate(timeout=240)
        assert bot.returncode == 0, out


@pytest.mark.slow
def test_three_builtin_bots_play_the_arena_and_appear_in_the_standings(tmp_path):
    """A three-player arena: its games start once all three are in (the bots' processes start in
    any order), so each bot plays every game and none waits alone for a partner that has left."""
    server = arena_server(tmp_path)
    try:
        run_bots(server, tmp_path, [["--builtin", "--seed", str(i)] for i in range(3)], games=2, pool="arena-kee")
        standings = json.loads(get(server.port, "/api/pools/arena-kee/standings"))["standings"]
        assert sorted(row["player"] for row in standings) == ["arenabot0", "arenabot1", "arenabot2"]
        assert [row["games"] for row in standings] == [2, 2, 2]
        assert sum(row["wins"] for row in standings) >= 2
        profile = json.loads(get(server.port, "/api/players/arenabot0"))
        rooms = [game["room"] for game in profile["history"]]
        assert len(rooms) == 2 and len(set(rooms)) == 2
        for room in rooms:
            record = json.loads(get(server.port, f"/api/games/{room}.json"))
            assert sorted(record["seats"]) == ["arenabot0", "arenabot1", "arenabot2"]
            assert record["settings"]["pool"] == "arena-kee" and record["result"] is not None
        assert get(server.port, f"/api/pools/arena-kee/games.zip").startswith(b"PK")
    finally:
        server.stop()


@pytest.mark.gnugo
def test_a_gtp_engine_plays_the_arena(tmp_path, gnugo):
    server = arena_server(tmp_path)
    try:
        run_bots(server, tmp_path, [["--gtp", f"{gnugo} --mode gtp --level 1"], ["--builtin", "--seed", "1"]], games=1)
        standings = json.loads(get(server.port, "/api/pools/arena-fast/standings"))["standings"]
        assert sorted((row["player"], row["games"]) for row in standings) == [("arenabot0", 1), ("arenabot1", 1)]
    finally:
        server.stop()
