"""The GTP bridge: rules mapped to engine options, the engine kept in step, GNU Go through the server."""

import asyncio
import dataclasses
import logging
import os
import sys

import pytest

from polygo.rules import PRESETS, Board, Game, preset
from polygo.rules.handicap import fixed_handicap_points
from sgfmill import sgf
from polygo.protocol import RoomSettings
from polygo.protocol.clock_settings import ClockSettings

from polygo.client.bots import BuiltinBot
from polygo.client.gtp import GtpEngine
from polygo.client.gtp_bridge import (
    GtpBot,
    engine_argv,
    engine_plays,
    grid_size,
    score_for,
    time_left_args,
    time_settings_command,
)
from polygo.client.gtp_game import rules_commands
from polygo.client.gtp_time import told_clock
from polygo.client.room import Clocks
from polygo.client.seat_clock import seat_clock
from polygo.client.sdk import Bot, Turn, run_bot
from polygo.client.session import Client
from tests.client.conftest import LocalServer
from tests.new_preset import DESCRIBED, NAME, NEW, SERVER

GUARD = 300.0  # seconds before a stuck game fails the test; never a measure of speed


def test_engine_argv_maps_rules_to_gnugo_options():
    assert engine_argv("/usr/games/gnugo --mode gtp", "tromp-taylor") == [
        "/usr/games/gnugo", "--mode", "gtp", "--chinese-rules", "--positional-superko", "--allow-suicide",
        "--capture-all-dead"]
    positional = preset("lasker-maas").with_options(superko="positional")   # the room's option
    assert engine_argv("gnugo --mode gtp", positional)[-2:] == ["--japanese-rules", "--positional-superko"]
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
    assert bot.accepts({"rules": "hansen-sst", "board": "9x9", "players": 2})
    assert engine_argv("gnugo --mode gtp", "hansen-sst")[-2:] == ["--chinese-rules", "--allow-suicide"]
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


def test_time_settings_for_every_clock_kind():
    def told(clock, kgs=False):
        control = told_clock(clock)
        return None if control is None else " ".join(time_settings_command(control, ["kgs-time_settings"] if kgs else []))

    assert told(None) is None
    assert told({"kind": "none"}) is None
    assert told({"kind": "absolute", "main": 600}) == "time_settings 600 0 0"
    assert told({"kind": "canadian", "main": 600, "period": 300, "stones": 25}) == "time_settings 600 300 25"
    byoyomi = {"kind": "byoyomi", "main": 600, "periods": 5, "period": 30}
    assert told(byoyomi, kgs=True) == "kgs-time_settings byoyomi 600 30 5"
    assert told(byoyomi) == "time_settings 600 30 1"  # GTP's nearest: one stone per period
    assert told({"kind": "fischer", "main": 300, "increment": 10, "cap": 0}) == "time_settings 300 0 0"
    assert told({"kind": "absolute", "main": 90.5}) == "time_settings 91 0 0"  # settings rounded up
    assert told("byoyomi:600+5x30") is None  # the server sends the map form; anything else is not guessed at


def test_katago_is_told_fischer_and_byoyomi_with_its_own_command():
    def told(clock):
        return " ".join(time_settings_command(told_clock(clock), ["kata-time_settings"]))

    assert told({"kind": "fischer", "main": 300, "increment": 10, "cap": 0}) == "kata-time_settings fischer 300 10"
    assert told({"kind": "fischer", "main": 300, "increment": 10, "cap": 600}) == \
        "kata-time_settings fischer-capped 300 10 600 -1"
    assert told({"kind": "byoyomi", "main": 60, "periods": 5, "period": 30}) == "kata-time_settings byoyomi 60 30 5"


def time_left_after(clock: ClockSettings, reported: dict, spent: float, *, kgs: bool = False,
                    overhead: float = 0.0) -> tuple[int, int]:
    """`time_left_args` for a seat whose clock has run `spent` seconds since it was reported."""
    control = dataclasses.asdict(clock)
    seat = seat_clock(Clocks(0, [reported], 0.0), control, 0, spent)
    return time_left_args(clock, seat, periods_as_stones=kgs, overhead=overhead)


def test_time_left_in_main_time_and_in_overtime():
    canadian = ClockSettings("canadian", main=60, period=300, stones=25)
    assert time_left_after(canadian, {"main": 60, "period_left": 300, "stones_left": 25}, 0.0) == (60, 0)
    assert time_left_after(canadian, {"main": 60, "period_left": 300, "stones_left": 25}, 59.5) == (0, 0)
    assert time_left_after(canadian, {"main": 10, "period_left": 300, "stones_left": 25}, 12.0) == (298, 25)
    assert time_left_after(canadian, {"main": 0, "period_left": 120.9, "stones_left": 4}, 0.0) == (120, 4)
    byoyomi = ClockSettings("byoyomi", main=0, period=30, periods=5)
    seat = {"main": 0, "periods": 4, "period_left": 30}
    assert time_left_after(byoyomi, seat, 1.0) == (29, 1)
    assert time_left_after(byoyomi, seat, 1.0, kgs=True) == (29, 4)
    fischer = ClockSettings("fischer", main=300)
    assert time_left_after(fischer, {"main": 310, "periods": 0, "period_left": 0}, 5.0) == (305, 0)
    assert time_left_after(fischer, {"main": 3, "periods": 0, "period_left": 0}, 5.0) == (0, 0)
    assert time_left_after(fischer, {"main": 310, "periods": 0, "period_left": 0}, 5.0, overhead=2.5) == (302, 0)


async def create_room(url: str, **settings) -> str:
    async with Client(url, name="host") as host:
        return (await host.create(RoomSettings(**settings))).room


async def test_illegal_and_resigning_answers(server, fake_engine, tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="polygo.gtp")
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--moves", "E5,E5,ZZ9,resign", "--log", str(log)))
    room = await create_room(server.url, rules="chinese", board="9x9", players=2)
    engine_side = run_bot(GtpBot(command), server.url, room=room, seat=0, name="engine")
    builtin_side = run_bot(BuiltinBot(seed=2), server.url, room=room, seat=1, name="builtin")
    results = await asyncio.wait_for(asyncio.gather(engine_side, builtin_side), GUARD)
    assert results[0]["reason"] == "resignation"
    assert results[0]["ranking"] == [2, 1]
    commands = log.read_text().splitlines()
    assert commands[:4] == ["list_commands", "boardsize 9", "komi 7.5", "clear_board"]
    assert commands.count("genmove b") == 4
    assert commands.count("undo") == 2  # the occupied E5 and the off-board ZZ9 were taken back
    engine_lines = [r.getMessage() for r in caplog.records if r.name == "polygo.gtp.engine"]
    assert any(" <- " in line and "genmove b" in line for line in engine_lines)
    assert all(line.startswith(f"room {room}: ") for line in engine_lines)   # three engines' lines apart


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
        sys.executable, "-m", "polygo.client", "bot", "--server", server.url, "--room", room,
        "--seat", str(seat), "--name", f"gnugo{seat}", "--log-level", "WARNING",
        "--gtp", f"{gnugo} --mode gtp --level {seat}", env=env) for seat in (0, 1)]
    codes = await asyncio.wait_for(asyncio.gather(*(bot.wait() for bot in bots)), GUARD)
    assert codes == [0, 0]

    sgf = tmp_path / "game.sgf"
    export = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "polygo.client", "export", room, "--format", "sgf", "-o", str(sgf),
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


@pytest.mark.gnugo
async def test_gnugo_plays_a_preset_added_to_presets_alone(gnugo, tmp_path, monkeypatch, caplog):
    """tests/new_preset.py's ruleset, added on both sides (the server's process and the bridge's),
    and nowhere else: the bridge takes the room, starts GNU Go with the options the ruleset's parts
    give, and GNU Go plays the game to its end."""
    monkeypatch.setitem(PRESETS, NAME, NEW)
    started: list[list[str]] = []
    popen = GtpEngine.popen.__func__

    async def seen(cls, command, **options):
        started.append(list(command))
        return await popen(cls, command, **options)

    monkeypatch.setattr(GtpEngine, "popen", classmethod(seen))
    caplog.set_level(logging.WARNING, logger="polygo.gtp")
    local = LocalServer(tmp_path / "polygo.db", ("-c", SERVER))
    local.start()
    try:
        room = await create_room(local.url, rules=NAME, board="5x5", players=2)
        results = await asyncio.wait_for(asyncio.gather(
            run_bot(GtpBot(f"{gnugo} --mode gtp --level 0"), local.url, room=room, seat=0, name="gnugo"),
            run_bot(Passer(), local.url, room=room, seat=1, name="passer")), GUARD)
        async with Client(local.url, name="reader") as reader:
            sgf_text = await reader.game_record(room, "sgf")
            record = await reader.game_record(room, "json")
    finally:
        local.stop()
    assert [gnugo, "--mode", "gtp", "--level", "0", *DESCRIBED["gtp"]["gnugo"]] in started
    assert results[0]["reason"] == "passes"
    assert "the built-in bot plays instead" not in caplog.text     # GNU Go took the options and played
    assert "RU[NZ]" in sgf_text
    assert any(seat == 0 and move not in ("pass", "done") for seat, move, _ in record["history"])


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


def time_lines(commands: list[str]) -> list[str]:
    return [c for c in commands if c.startswith(("time_settings", "kgs-time_settings", "time_left"))]


async def play_engine_against_passer(url: str, command: str, **settings) -> dict:
    room = await create_room(url, players=2, **settings)
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(command), url, room=room, seat=0, name="engine"),
        run_bot(Passer(), url, room=room, seat=1, name="passer")), GUARD)
    return results[0]


async def test_a_clock_is_told_once_and_the_time_left_before_every_genmove(server, fake_engine, tmp_path):
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--moves", "C3,G7,C7,G3,E5", "--log", str(log)))
    result = await play_engine_against_passer(server.url, command, rules="tromp-taylor", board="9x9",
                                              clock="canadian:0+600/3")
    assert result["reason"] == "passes"
    commands = log.read_text().splitlines()
    assert commands[3:5] == ["clear_board", "time_settings 0 600 3"]
    assert commands.count("time_settings 0 600 3") == 1
    genmoves = [i for i, c in enumerate(commands) if c.startswith("genmove")]
    assert len(genmoves) == 6  # five plays, then the pass that ends the game
    told = [commands[i - 1].split() for i in genmoves]
    assert all(words[:2] == ["time_left", "b"] for words in told), commands
    assert all(0 < int(seconds) <= 600 for _, _, seconds, _ in told)
    assert [int(stones) for *_, stones in told] == [3, 2, 1, 3, 2, 1]  # the Canadian block counts down
    assert len(time_lines(commands)) == 7
    assert commands[-2:] == ["final_score", "quit"]  # the engine played the whole game


async def test_byoyomi_is_told_with_the_kgs_command_where_the_engine_lists_it(server, fake_engine, tmp_path):
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--moves", "C3,G7", "--commands", "kgs-time_settings", "--log", str(log)))
    result = await play_engine_against_passer(server.url, command, rules="tromp-taylor", board="9x9",
                                              clock="byoyomi:1200+5x600")
    assert result["reason"] == "passes"
    commands = log.read_text().splitlines()
    assert commands[3:5] == ["clear_board", "kgs-time_settings byoyomi 1200 600 5"]
    told = [c.split() for c in time_lines(commands)[1:]]
    assert len(told) == commands.count("genmove b") == 3
    assert all(words[:2] == ["time_left", "b"] and 0 < int(words[2]) <= 1200 and words[3] == "0"
               for words in told)


async def test_a_clockless_game_sends_no_time_commands(server, fake_engine, tmp_path):
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--moves", "C3", "--commands", "kgs-time_settings", "--log", str(log)))
    result = await play_engine_against_passer(server.url, command, rules="tromp-taylor", board="9x9")
    assert result["reason"] == "passes"
    commands = log.read_text().splitlines()
    assert commands.count("genmove b") == 2
    assert time_lines(commands) == []


async def test_an_engine_refusing_the_time_commands_still_plays(server, fake_engine, tmp_path):
    """Three engines at once: one knows none of the time commands, one refuses only time_left,
    one cannot list its commands (so byo-yomi goes as GTP's one stone per period)."""
    logs = [tmp_path / f"engine{i}.log" for i in range(3)]
    flags = [["--unknown", "time_settings", "--unknown", "time_left"],
             ["--unknown", "time_left"],
             ["--unknown", "list_commands"]]
    commands = [" ".join(fake_engine("--moves", "C3,G7,C7", "--log", str(log), *extra))
                for log, extra in zip(logs, flags)]
    results = await asyncio.gather(*(
        play_engine_against_passer(server.url, command, rules="tromp-taylor", board="9x9",
                                   clock="byoyomi:1200+5x600")
        for command in commands))
    assert [r["reason"] for r in results] == ["passes"] * 3
    sent = [log.read_text().splitlines() for log in logs]
    for commands in sent:
        assert commands.count("genmove b") == 4
        assert "undo" not in commands and commands[-2:] == ["final_score", "quit"]
    assert time_lines(sent[0]) == ["time_settings 1200 600 1"]
    assert [c.split()[0] for c in time_lines(sent[1])] == ["time_settings", "time_left"]  # not asked again
    assert sent[2][3:5] == ["clear_board", "time_settings 1200 600 1"]
    assert [c.split()[0] for c in time_lines(sent[2])].count("time_left") == 4


@pytest.mark.gnugo
async def test_gnugo_is_told_the_clock_through_the_server(server, gnugo, monkeypatch):
    sent: list[str] = []
    command = GtpEngine.command

    async def recorded(engine, name, *args, **options):
        reply = await command(engine, name, *args, **options)
        sent.append(" ".join([name, *map(str, args)]))  # only what GNU Go accepted
        return reply

    monkeypatch.setattr(GtpEngine, "command", recorded)
    room = await create_room(server.url, rules="chinese", board="7x7", players=2, clock="byoyomi:300+3x30")
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(f"{gnugo} --mode gtp --level 1"), server.url, room=room, seat=0, name="gnugo"),
        run_bot(BuiltinBot(seed=2), server.url, room=room, seat=1, name="builtin")), GUARD)
    assert results[0]["reason"] in ("passes", "resignation")
    assert sent.count("time_settings 300 30 1") == 1  # GNU Go has no kgs-time_settings
    genmoves = [i for i, c in enumerate(sent) if c == "genmove b"]
    assert len(genmoves) > 5
    for i in genmoves:
        words = sent[i - 1].split()
        assert words[:2] == ["time_left", "b"] and 0 < int(words[2]) <= 300 and words[3] in ("0", "1")
    assert sent[-2:] == ["final_score", "quit"]  # GNU Go played the whole game


def test_engine_plays_leave_out_nieminens_words():
    game = Game(Board.grid(5, 5), rules="nieminen", players=2)
    for move in ("C3", "pass", "pass"):
        game.play(move)
    game.play("dispute C3", seat=1)
    for move in ("pass", "D3", "give", "D4"):
        game.play(move)
    assert engine_plays(game) == [("b", "C3"), ("w", "pass"), ("b", "pass"), ("b", "pass"), ("w", "D3"),
                                  ("w", "D4")]


class Scripted(Bot):
    """Plays `moves` in turn (then passes), thinking `think` seconds over the first."""

    name = "scripted"

    def __init__(self, moves: list[str], think: float = 0.0) -> None:
        self.moves = list(moves)
        self.think = think

    async def choose_move(self, turn: Turn) -> str:
        await asyncio.sleep(self.think)
        self.think = 0.0
        return self.moves.pop(0) if self.moves else "pass"


@pytest.mark.parametrize("clock", ["byoyomi:1+2x2", "canadian:1+4/2"])
async def test_a_genmove_given_up_on_leaves_the_engine_in_step(server, fake_engine, tmp_path, clock):
    """The engine's first genmove (6 s) outlasts the SDK's time guard (4 s), which passes for it; the
    late E5 is taken back in the engine, which plays the rest of the game itself (it used to be thrown
    out of step and replaced by the built-in bot)."""
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--moves", "E5,D4", "--slow", "6", "--slow-first", "1", "--log", str(log)))
    room = await create_room(server.url, rules="tromp-taylor", board="9x9", players=2, clock=clock)
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(command), server.url, room=room, seat=0, name="engine"),
        run_bot(Scripted(["G7", "C7"], think=3.0), server.url, room=room, seat=1, name="scripted")), GUARD)
    assert results[0]["reason"] == "passes"
    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
    assert [move for _, move, *_ in record["history"]] == ["pass", "G7", "D4", "C7", "pass", "pass"]
    commands = log.read_text().splitlines()
    genmoves = [i for i, c in enumerate(commands) if c == "genmove b"]
    assert len(genmoves) == 3
    assert commands[genmoves[0] + 1:genmoves[1]][:3] == ["undo", "play b pass", "play w G7"]
    assert commands[-2:] == ["final_score", "quit"]  # the engine played the whole game


async def test_two_bridges_marking_the_same_chain_at_once_agree(server, fake_engine):
    """Both engines call White's C3 dead and both bridges mark it at the same moment: the marks are
    idempotent, so the chain ends dead (with a toggle, each undid the other's mark)."""
    room = await create_room(server.url, rules="chinese", board="9x9", players=2)
    commands = [" ".join(fake_engine("--moves", moves, "--dead", "C3")) for moves in ("E5,pass", "C3,pass")]
    results = await asyncio.wait_for(asyncio.gather(*(
        run_bot(GtpBot(command), server.url, room=room, seat=seat, name=f"engine{seat}")
        for seat, command in enumerate(commands))), GUARD)
    assert results[0]["reason"] == "passes"
    assert results[0]["score"] == [81, 7.5]
    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
    marks = [move for _, move, *_ in record["history"] if move.split()[0] in ("dead", "alive")]
    assert 1 <= len(marks) <= 2 and set(marks) == {"dead C3"}


def test_handicap_stones_are_told_as_handicap():
    fixed = Game(Board.grid(9, 9), rules="chinese", players=2, handicap=2, setup={"A1": 1})
    fixed.play("E5")
    points = " ".join(sorted(fixed_handicap_points(Board.grid(9, 9), 2)))
    assert engine_plays(fixed) == [("handicap", points), ("w", "A1"), ("w", "E5")]
    free = Game(Board.grid(9, 9), rules="chinese", players=2, handicap=2, handicap_mode="free")
    free.play("C3")
    assert engine_plays(free) == [("b", "C3")]  # still placing: a play for now
    free.play("G7")
    free.play("E5")
    assert engine_plays(free) == [("handicap", "C3 G7"), ("w", "E5")]


def test_rules_commands_where_the_engine_lists_them():
    assert rules_commands("japanese", {"kgs-rules", "kata-set-rules"}) == [("kata-set-rules", "japanese")]
    assert rules_commands("kee", {"kgs-rules"}) == [("kgs-rules", "new_zealand")]
    assert rules_commands("chinese", {"play"}) == []


async def test_start_asks_the_engine_for_its_name_version_and_commands(fake_engine):
    info = await GtpBot(" ".join(fake_engine("--name", "FakeGo", "--version", "2.5",
                                             "--commands", "kata-set-rules"))).start()
    assert (info.name, info.version, str(info)) == ("FakeGo", "2.5", "FakeGo 2.5")
    assert "kata-set-rules" in info.commands


async def test_an_engine_is_told_rules_handicap_fischer_and_a_rectangular_board(server, fake_engine, tmp_path):
    log = tmp_path / "engine.log"
    command = " ".join(fake_engine("--commands", "kata-set-rules,kata-time_settings,rectangular_boardsize",
                                   "--moves", "D4", "--log", str(log)))
    room = await create_room(server.url, rules="chinese", board="9x7", players=2, handicap=2, komi=0.5,
                             clock="fischer:300+10")
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(Passer(), server.url, room=room, seat=0, name="passer"),
        run_bot(GtpBot(command), server.url, room=room, seat=1, name="engine")), GUARD)
    assert results[0]["reason"] == "passes"
    commands = log.read_text().splitlines()
    points = " ".join(sorted(Game(Board.grid(9, 7), rules="chinese", players=2, handicap=2).stones()))
    assert commands[:7] == ["list_commands", "rectangular_boardsize 9 7", "komi 0.5", "kata-set-rules chinese",
                            "clear_board", "kata-time_settings fischer 300 10", f"set_free_handicap {points}"]
    assert commands[7].startswith("time_left w ") and commands[8] == "genmove w"
    assert "play b C3" not in commands


@pytest.mark.gnugo
async def test_gnugo_plays_a_byoyomi_game_into_overtime_and_to_the_end(server, gnugo, tmp_path):
    """Two GNU Go bridges with no main time: the game is played in byo-yomi (a main time could last
    the whole game on a fast machine) and ends by the rules (both engines played every move: no
    out-of-time pass, no substitution), and the SGF carries the clock."""
    room = await create_room(server.url, rules="chinese", board="9x9", players=2, clock="byoyomi:0+3x10",
                             title="clocked")
    results = await asyncio.wait_for(asyncio.gather(*(
        run_bot(GtpBot(f"{gnugo} --mode gtp --level 0"), server.url, room=room, seat=seat, name=f"gnugo{seat}")
        for seat in (0, 1))), GUARD)
    assert results[0]["reason"] in ("passes", "resignation")
    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
        text = await reader.game_record(room, "sgf")
    moves = [move for _, move, rescinded in record["history"] if not rescinded]
    assert len(moves) > 20
    assert "timeout" not in moves
    tree = sgf.Sgf_game.from_string(text)
    root = tree.get_root()
    assert root.get("TM") == 0 and root.get("OT") == "3x10 byo-yomi" and root.get("GN") == "clocked"
    nodes = [n for n in tree.get_main_sequence()[1:] if n.get_move()[0] is not None]
    left = [n.get("BL" if n.get_move()[0] == "b" else "WL") for n in nodes]
    overtime = [n for n in nodes if n.has_property("OB") or n.has_property("OW")]
    assert all(0 <= seconds <= 10 for seconds in left[-4:]) and overtime  # the game reached byo-yomi
    sgf_file = tmp_path / "clocked.sgf"
    sgf_file.write_text(text)
    async with await GtpEngine.popen([gnugo, "--mode", "gtp"]) as engine:
        await engine.command("loadsgf", str(sgf_file))


def test_scores_are_read_from_the_engines_side():
    assert score_for("W+3.5 (upper bound: -2.5, lower: -4.5)", "b") == -3.5
    assert score_for("W+3.5", "w") == 3.5 and score_for("B+12", "b") == 12.0
    assert score_for("0", "b") == 0.0 and score_for("unknown", "b") is None


async def test_the_engines_score_estimate_reaches_spectators(server, fake_engine):
    command = " ".join(fake_engine("--moves", "C3,G7", "--commands", "estimate_score", "--estimate", "W+3.5"))
    room = await create_room(server.url, rules="tromp-taylor", board="9x9", players=2)
    async with Client(server.url, name="spectator") as spectator:
        view = await spectator.watch(room)
        results = await asyncio.wait_for(asyncio.gather(
            run_bot(GtpBot(command, analysis=True), server.url, room=room, seat=0, name="engine"),
            run_bot(Scripted(["E5", "D4"]), server.url, room=room, seat=1, name="scripted")), GUARD)
        while 0 not in view.analysis:
            await asyncio.wait_for(spectator.changes.get(), GUARD)
    assert results[0]["reason"] == "passes"
    assert view.analysis[0]["score"] == -3.5 and view.analysis[0]["name"] == "engine"
