"""The GTP bridge: rules mapped to engine options, the engine kept in step, GNU Go through the server."""

import asyncio
import os
import sys

import pytest

from gorules import Board, Game
from protocol import RoomSettings

from client_cli.bots import BuiltinBot
from client_cli.gtp import GtpEngine
from client_cli.gtp_bridge import GtpBot, engine_argv, engine_plays, grid_size
from client_cli.sdk import Bot, Turn, run_bot
from client_cli.session import Client

GUARD = 300.0  # seconds before a stuck game fails the test; never a measure of speed


def test_engine_argv_maps_rules_to_gnugo_options():
    assert engine_argv("/usr/games/gnugo --mode gtp", "tromp-taylor") == [
        "/usr/games/gnugo", "--mode", "gtp", "--chinese-rules", "--positional-superko", "--allow-suicide",
        "--capture-all-dead"]
    assert engine_argv("gnugo --mode gtp", "lasker-maas", "positional")[-2:] == ["--japanese-rules",
                                                                                 "--positional-superko"]
    assert engine_argv("katago gtp -config x.cfg", "chinese") == ["katago", "gtp", "-config", "x.cfg"]


def test_grid_size_accepts_square_grids_only():
    assert grid_size({"board": "9x9"}) == 9
    assert grid_size({"board": "19"}) == 19
    assert grid_size({"board": "7x5"}) is None
    assert grid_size({"board": "torus:9x9"}) is None
    assert grid_size({"board": "hex5"}) is None


def test_gtp_bot_accepts_two_player_grid_games_it_has_rules_for():
    bot = GtpBot("gnugo --mode gtp")
    assert bot.accepts({"rules": "chinese", "board": "9x9", "players": 2})
    assert not bot.accepts({"rules": "kee", "board": "9x9", "players": 3})
    assert not bot.accepts({"rules": "chinese", "board": "hex5", "players": 2})


def test_engine_plays_follow_the_live_game():
    game = Game(Board.grid(5, 5), rules="kee", players=2, setup={"A1": 0})
    for move in ("C3", "pass", "D4", "rank 1 2"):
        game.play(move)
    assert engine_plays(game) == [("b", "A1"), ("b", "C3"), ("w", "pass"), ("b", "D4")]
    tiny = Game(Board.grid(2, 1), rules="kee", players=2)
    for move in ("A1", "B1", "appeal A1"):
        tiny.play(move)
    assert engine_plays(tiny) == [("b", "A1"), ("w", "B1"), ("b", "pass")]


async def create_room(url: str, **settings) -> str:
    async with Client(url, name="host") as host:
        return (await host.create(RoomSettings(**settings))).room


async def test_illegal_and_resigning_answers(server, fake_engine, tmp_path):
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--moves", "E5,E5,ZZ9,resign", "--log", str(log)))
    room = await create_room(server.url, rules="chinese", board="9x9", players=2)
    engine_side = run_bot(GtpBot(command), server.url, room=room, seat=0, name="engine")
    builtin_side = run_bot(BuiltinBot(seed=2), server.url, room=room, seat=1, name="builtin")
    results = await asyncio.wait_for(asyncio.gather(engine_side, builtin_side), GUARD)
    assert results[0]["reason"] == "resignation"
    assert results[0]["ranking"] == [2, 1]
    commands = log.read_text().splitlines()
    assert commands[:3] == ["boardsize 9", "komi 7.5", "clear_board"]
    assert commands.count("genmove b") == 4
    assert commands.count("undo") == 2  # the occupied E5 and the off-board ZZ9 were taken back


async def test_a_dead_engine_is_replaced_by_the_builtin_bot(server, fake_engine):
    command = " ".join(fake_engine("--moves", "C3", "--die-on", "genmove"))
    room = await create_room(server.url, rules="tromp-taylor", board="5x5", players=2)
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(command), server.url, room=room, seat=0, name="engine"),
        run_bot(BuiltinBot(seed=2), server.url, room=room, seat=1, name="builtin")), GUARD)
    assert results[0]["reason"] == "passes"


@pytest.mark.gnugo
async def test_gnugo_against_gnugo_through_the_server(server, gnugo, tmp_path):
    room = await create_room(server.url, rules="chinese", board="9x9", players=2, komi=7.5)
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"))
    bots = [await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli", "bot", "--server", server.url, "--room", room,
        "--seat", str(seat), "--name", f"gnugo{seat}", "--log-level", "WARNING",
        "--gtp", f"{gnugo} --mode gtp --level {seat}", env=env) for seat in (0, 1)]
    codes = await asyncio.wait_for(asyncio.gather(*(bot.wait() for bot in bots)), GUARD)
    assert codes == [0, 0]

    sgf = tmp_path / "game.sgf"
    export = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli", "export", room, "--format", "sgf", "-o", str(sgf),
        "--server", server.url, env=env)
    assert await export.wait() == 0
    text = sgf.read_text()
    assert text.startswith("(;") and "SZ[9]" in text and "RE[" in text

    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
    moves = [m for _, m, rescinded in record["history"] if not rescinded]
    assert record["result"]["reason"] in ("passes", "resignation")
    assert len(moves) > 10

    async with await GtpEngine.popen([gnugo, "--mode", "gtp"]) as engine:
        await engine.command("loadsgf", str(sgf))
        stones = await engine.command("list_stones", "black") + " " + await engine.command("list_stones", "white")
    plays = dict(record["record"])
    plays["moves"] = [m for m in plays["moves"] if not m[1].startswith(("dead", "done"))]
    before_marking = Game.from_record(plays)
    assert sorted(stones.split()) == sorted(before_marking.stones())


async def test_an_engine_dying_while_taking_back_its_illegal_move_is_replaced(server, fake_engine):
    command = " ".join(fake_engine("--moves", "E5,E5", "--die-on", "undo"))
    room = await create_room(server.url, rules="chinese", board="9x9", players=2)
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(command), server.url, room=room, seat=0, name="engine"),
        run_bot(BuiltinBot(seed=2), server.url, room=room, seat=1, name="builtin")), GUARD)
    assert results[0]["reason"] == "passes"


class Passer(Bot):
    name = "passer"

    def choose_move(self, turn: Turn) -> str:
        return "pass"


async def test_an_engine_that_cannot_follow_the_last_move_still_ends_the_game_cleanly(server, fake_engine):
    command = " ".join(fake_engine("--moves", "pass", "--refuse", "play"))
    room = await create_room(server.url, rules="tromp-taylor", board="5x5", players=2)
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(command), server.url, room=room, seat=0, name="engine"),
        run_bot(Passer(), server.url, room=room, seat=1, name="passer")), GUARD)
    assert results[0]["reason"] == "passes"
