"""The arena end to end: three `polygo bot --builtin --arena POOL` processes on a real server with
a fast arena pool from its `--pools` file play their games unattended, paired by the server, and
appear in the pool's standings over HTTP; every game is downloadable; nobody meets the same
opponent twice in a row while another is free."""

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


def run_bots(server: LocalServer, tmp_path, engines: list[list[str]], games: int) -> None:
    """`polygo bot ENGINE --arena arena-fast` for each engine (users arenabot0, 1, ...), to the end."""
    bots = [subprocess.Popen(
        [sys.executable, "-m", "client_cli", "bot", *engine, "--arena", "arena-fast", "--user", f"arenabot{i}",
         "--games", str(games), "--server", server.url, "--token-file", str(tmp_path / f"tokens{i}.json"),
         "--log-level", "WARNING"],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_PASSWORD=f"secret-{i}"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i, engine in enumerate(engines)]
    for bot in bots:
        out, _ = bot.communicate(timeout=240)
        assert bot.returncode == 0, out


def test_three_builtin_bots_play_the_arena_and_appear_in_the_standings(tmp_path):
    server = arena_server(tmp_path)
    try:
        run_bots(server, tmp_path, [["--builtin", "--seed", str(i)] for i in range(3)], games=2)
        standings = json.loads(get(server.port, "/api/pools/arena-fast/standings"))["standings"]
        assert sorted(row["player"] for row in standings) == ["arenabot0", "arenabot1", "arenabot2"]
        assert [row["games"] for row in standings] == [2, 2, 2]
        assert sum(row["wins"] for row in standings) >= 3
        profile = json.loads(get(server.port, "/api/players/arenabot0"))
        rooms = [game["room"] for game in profile["history"]]
        assert len(rooms) == 2 and len(set(rooms)) == 2
        assert get(server.port, f"/api/games/{rooms[0]}.sgf").startswith(b"(;")
        seats = [json.loads(get(server.port, f"/api/games/{room}.json"))["seats"] for room in rooms]
        assert all("arenabot0" in names for names in seats)
        opponents = {name for names in seats for name in names} - {"arenabot0"}
        assert opponents == {"arenabot1", "arenabot2"}        # no immediate rematch while a third is free
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
