"""The `polygo` command: local server start and rejoin, watch, rooms, bad flags."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from polygo.protocol import RoomSettings

from polygo.client.session import Client

POLYGO = [sys.executable, "-m", "polygo.client"]


def polygo(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*POLYGO, *args], capture_output=True, text=True, timeout=120, env=env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
def test_bad_flags_are_clear_errors():
    cases = (["play", "--bots", "9"], ["play", "--join", "R", "--bots", "1"], ["export", "G", "--format", "png"],
             ["bot", "--room", "R"], ["frobnicate"], ["play", "--players", "2", "--bots", "2"],
             ["bot", "--gtp", ""], ["bot", "--gtp", 'gnugo "--mode gtp'], ["bot", "--builtin", "--games", "-1"],
             ["bot", "--gtp", "gnugo", "--engine-timeout", "0"], ["play", "--seek", "chinese-9x9", "--join", "R"],
             ["bot", "--builtin", "--arena", "arena-9x9", "--user", "nopassword"])
    env = {k: v for k, v in os.environ.items() if k != "POLYGO_PASSWORD"}
    with ThreadPoolExecutor(4) as pool:      # a process each, a few at a time: each is mostly its imports
        runs = list(pool.map(lambda args: polygo(*args, env=env), cases))
    for args, done in zip(cases, runs):
        assert done.returncode == 2, args
        assert "[bad-usage]" in done.stderr, (args, done.stderr)


def test_no_server_is_a_clear_error():
    done = polygo("rooms", "--server", f"ws://127.0.0.1:{free_port()}/")
    assert done.returncode == 1
    assert "cannot connect" in done.stderr and "[no-server]" in done.stderr


def test_play_starts_a_local_server_and_a_restart_rejoins(tmp_path, tmux):
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1")
    term = tmux([*POLYGO, "play", "--server", url, "--name", "ann", "--bots", "2", "--rules", "kee",
                 "--board", "5x5"], env)
    room = term.wait_for(r"room (\S+) +kee").group(1)
    term.wait_for(r"R red +bot2")
    term.wait_for(r"YOUR TURN")
    term.type("c3")
    term.wait_for(r"1 B ann C3")
    term.type("quit")
    term.wait_for(r"left room \S+; 'polygo play' rejoins it")
    term.wait_for(r"EXIT=0")
    assert not answers(port), "the local server was left running"

    again = tmux([*POLYGO, "play", "--server", url, "--name", "ann"], env)
    assert again.wait_for(r"room (\S+) +kee").group(1) == room
    again.wait_for(r"1 B ann C3")         # the game is back; its board may already hold the bots' answers
    again.type("quit")
    again.wait_for(r"EXIT=0")
    assert not answers(port)

    # the local server's games are exported from its database, by a server started for the export
    exported = polygo("export", room, "--format", "json", "--server", url, env=env)
    assert exported.returncode == 0, exported.stderr
    assert "starting a local one" in exported.stderr
    record = json.loads(exported.stdout)
    assert record["seats"] == ["ann", "bot1", "bot2"] and record["history"][0][:2] == [0, "C3"]
    assert not answers(port), "the server started for the export was left running"
    refused = polygo("export", room, "--server", url, "--no-local-server", env=env)
    assert refused.returncode == 1 and "[no-server]" in refused.stderr


def test_a_killed_client_leaves_no_local_server_behind_and_the_bots_play_on(tmp_path, tmux):
    """Issue 11 item 5: the local server outlived a killed `polygo play` as an orphan."""
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1")
    term = tmux([*POLYGO, "play", "--server", url, "--name", "ann", "--bots", "1", "--rules", "chinese",
                 "--board", "5x5"], env)
    term.wait_for(r"YOUR TURN")
    term.type("c3")
    term.wait_for(r"2 W bot1 \S+")
    os.kill(term.pid(), signal.SIGKILL)
    term.wait_for(r"EXIT=")
    deadline = time.monotonic() + 30
    while answers(port) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not answers(port), "the local server outlived its killed client"

    again = tmux([*POLYGO, "play", "--server", url, "--name", "ann"], env)
    again.wait_for(r"1 B ann C3")
    again.wait_for(r"YOUR TURN")
    screen = again.screen()
    free = next(p for p in ("B2", "D4", "B4", "D2", "A1") if f" {p}" not in screen.split("-- moves --")[1])
    again.type(free)
    again.wait_for(r"4 W bot1 \S+")
    again.type("quit")
    again.wait_for(r"EXIT=0")
    assert not answers(port)


async def test_rooms_and_watch(server, tmp_path, tmux):
    async with Client(server.url, name="host") as host:
        created = await host.create(RoomSettings(rules="kee", board="hex5", players=3, title="hexes"))
        await host.sit(created.room, 0)
        listing = await asyncio.to_thread(polygo, "rooms", "--server", server.url)
        assert listing.returncode == 0
        assert created.room in listing.stdout and "hexes" in listing.stdout and "host" in listing.stdout

        env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1")
        term = tmux([*POLYGO, "watch", created.room, "--server", server.url, "--name", "eve"], env)
        await asyncio.to_thread(term.wait_for, r"watching")
        await asyncio.to_thread(term.wait_for, r"E5")  # hex5 drawn from its coordinates, points named
        term.type("say hello from the stands")
        await asyncio.to_thread(term.wait_for, r"<eve> hello from the stands")
        term.type("C3")
        await asyncio.to_thread(term.wait_for, r"spectators can only chat")
        term.type("quit")
        await asyncio.to_thread(term.wait_for, r"EXIT=0")


def test_board_files_are_read_by_the_client(tmp_path):
    from polygo.client.__main__ import build_parser, settings_from

    graph = {"points": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]]}
    path = tmp_path / "line.json"
    path.write_text(__import__("json").dumps(graph))
    args = build_parser().parse_args(["play", "--board", str(path), "--players", "3", "--clock", "fischer:60+5"])
    settings = settings_from(args)
    assert settings.board == graph and settings.players == 3 and settings.clock == "fischer:60+5"
    assert settings.rules == "kee"
    args = build_parser().parse_args(["play", "--rules", "hansen-sst", "--option", "a1=off", "--option", "a3=true",
                                      "--option", "move_cap_per_point=5"])
    assert settings_from(args).options == {"a1": "off", "a3": True, "move_cap_per_point": 5}


async def test_export_and_a_bot_refusing_a_room_it_cannot_play(server, tmp_path, fake_engine):
    from polygo.client.bots import BuiltinBot
    from polygo.client.sdk import run_bot

    async with Client(server.url, name="host") as host:
        room = (await host.create(RoomSettings(rules="tromp-taylor", board="5x5"))).room
        hexes = (await host.create(RoomSettings(rules="kee", board="hex5", players=3))).room
    await asyncio.gather(*(run_bot(BuiltinBot(seed=s), server.url, room=room, seat=s, name=f"b{s}")
                           for s in range(2)))

    as_json = await asyncio.to_thread(polygo, "export", room, "--format", "json", "--server", server.url)
    assert as_json.returncode == 0
    record = __import__("json").loads(as_json.stdout)
    assert record["result"]["reason"] == "passes" and record["record"]["rules"] == "tromp-taylor"

    sgf = tmp_path / "game.sgf"
    as_sgf = await asyncio.to_thread(polygo, "export", room, "--format", "sgf", "-o", str(sgf), "--server", server.url)
    assert as_sgf.returncode == 0 and sgf.read_text().startswith("(;FF[4]")

    unwritable = await asyncio.to_thread(polygo, "export", room, "-o", str(tmp_path / "no" / "dir.sgf"),
                                         "--server", server.url)
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr and "[bad-usage]" in unwritable.stderr

    missing = await asyncio.to_thread(polygo, "export", "nosuchgame", "--server", server.url)
    assert missing.returncode == 1 and "[no-such-game]" in missing.stderr

    engine = " ".join(fake_engine())
    refused = await asyncio.to_thread(polygo, "bot", "--gtp", engine, "--room", hexes, "--server", server.url)
    assert refused.returncode == 2 and "cannot play room" in refused.stderr


def test_a_bad_board_file_starts_no_local_server(tmp_path):
    port = free_port()
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"))
    done = polygo("play", "--server", f"ws://127.0.0.1:{port}/", "--board", str(tmp_path / "missing.json"), env=env)
    assert done.returncode == 2 and "[bad-usage]" in done.stderr and "missing.json" in done.stderr
    assert "starting a local one" not in done.stdout
    assert not (tmp_path / "home" / "local.db").exists()


@pytest.mark.parametrize("flags, words", [
    (["--board", "99x99"], "grid sides"), (["--rules", "nope"], "unknown ruleset"),
    (["--rules", "lasker-maas", "--players", "3"], "2 players"), (["--komi", "6.25", "--rules", "lasker-maas"], "komi"),
    (["--rules", "hansen-sst", "--option", "a1=on"], "a1 must be"), (["--rules", "chinese", "--option", "a3=true"],
                                                                       "option of Hansen"),
    (["--rules", "hansen-sst", "--option", "komi=3"], "setting of its own"), (["--option", "a1"], "KEY=VALUE"),
])
def test_settings_the_engine_refuses_are_usage_errors_before_connecting(flags, words):
    from polygo.client.__main__ import build_parser, settings_from
    from polygo.client.errors import UsageError

    with pytest.raises(UsageError, match=words):
        settings_from(build_parser().parse_args(["play", *flags]))


async def test_jasiek_nkr_room_played_by_bots_exports_a_record_that_replays(server):
    from polygo.client.bots import BuiltinBot
    from polygo.client.sdk import run_bot
    from polygo.rules import Game

    async with Client(server.url, name="host") as host:
        room = (await host.create(RoomSettings(rules="jasiek-nkr", board="5x5", options={"ko_shapes": "reconstructed"}))).room
    await asyncio.gather(*(run_bot(BuiltinBot(seed=s), server.url, room=room, seat=s, name=f"b{s}")
                           for s in range(2)))
    as_json = await asyncio.to_thread(polygo, "export", room, "--format", "json", "--server", server.url)
    assert as_json.returncode == 0
    record = __import__("json").loads(as_json.stdout)
    assert record["record"]["rules"] == "jasiek-nkr"
    assert record["record"]["options"]["ko_shapes"] == "reconstructed"
    game = Game.from_record(record["record"])
    assert game.result is not None and list(game.result.ranking) == record["result"]["ranking"]
    as_sgf = await asyncio.to_thread(polygo, "export", room, "--format", "sgf", "--server", server.url)
    assert as_sgf.returncode == 0 and "RU[jasiek-nkr]" in as_sgf.stdout
