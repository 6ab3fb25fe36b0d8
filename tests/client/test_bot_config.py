"""`polygo bot --config`: the config file checked key by key, several games at once, idle rooms left."""

import asyncio
import contextlib
import os
import re
import sys
from pathlib import Path

import pytest

from polygo.protocol import RoomSettings

from polygo.client.__main__ import bot_from
from polygo.client.bot_config import Accept, BotConfigError, parse_config, read_config
from polygo.client.errors import UsageError
from polygo.client.sdk import Bot, BotRunner, Turn, run_bot
from polygo.client.session import Client

GUARD = 120.0  # seconds before a stuck game fails the test; never a measure of speed
DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def docs_example() -> str:
    """The complete config example of docs/bots.md (the first ```toml block)."""
    return re.search(r"```toml\n(.*?)```", DOCS.read_text(), re.S).group(1)


def test_the_documented_example_is_a_valid_config(tmp_path):
    path = tmp_path / "bot.toml"
    path.write_text(docs_example())
    config = read_config(path)
    assert config.gtp and config.max_games >= 2 and config.undo == "refuse"
    assert config.accept.boards and config.accept.rules and config.greeting and config.farewell


def test_every_bad_key_is_named(tmp_path):
    data = {"engine": {"command": "gnugo", "timeout": 0, "colour": "b"}, "acept": {},
            "accept": {"komi": [8, 2], "clocks": ["byoyomi", "hourglass"], "handicap": [0, 2.5]},
            "games": {"max_concurrent": 0, "idle_timeout": "soon"}, "policy": {"undo": "maybe", "resign": 1},
            "log_level": "LOUD"}
    with pytest.raises(BotConfigError) as info:
        parse_config(data, tmp_path / "bot.toml")
    problems = info.value.problems
    for key in ("engine.timeout", "engine.colour: unknown key", "acept: unknown key", "accept.komi",
                "accept.clocks: unknown 'hourglass'", "accept.handicap", "games.max_concurrent",
                "games.idle_timeout", "policy.undo", "policy.resign", "log_level"):
        assert any(p.startswith(key) for p in problems), (key, problems)
    assert info.value.code == "bad-usage" and str(tmp_path / "bot.toml") in str(info.value)


def test_an_engine_is_required_and_only_one(tmp_path):
    for engine in ({}, {"command": "gnugo", "builtin": True}):
        with pytest.raises(BotConfigError, match="exactly one of"):
            parse_config({"engine": engine})


def test_unreadable_files_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="cannot read"):
        read_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("engine = [")
    with pytest.raises(UsageError, match="is not TOML"):
        read_config(bad)


def test_accept_filters_rooms():
    accept = Accept(boards=("9x9", "19"), rules=("chinese",), players=(2,), komi=(0, 8), handicap=(0, 0),
                    clocks=("byoyomi", "none"), main_time=(60, 600), overtime=(10, 60))
    room = {"rules": "chinese", "board": "9x9", "players": 2, "komi": 7.5, "handicap": 0,
            "clock": {"kind": "byoyomi", "main": 300, "periods": 5, "period": 30}}
    assert accept.refusal(room) is None
    assert accept.refusal({**room, "board": "19x19"}) is None  # "19" and "19x19" name the same board
    assert "board" in accept.refusal({**room, "board": "13x13"})
    assert "rules" in accept.refusal({**room, "rules": "japanese"})
    assert "komi" in accept.refusal({**room, "komi": 9})
    assert "handicap" in accept.refusal({**room, "handicap": 2})
    assert "fischer" in accept.refusal({**room, "clock": {"kind": "fischer", "main": 300, "increment": 10}})
    assert "main time" in accept.refusal({**room, "clock": {"kind": "byoyomi", "main": 30, "periods": 5, "period": 30}})
    assert "overtime" in accept.refusal({**room, "clock": {"kind": "byoyomi", "main": 300, "periods": 5, "period": 5}})
    assert accept.refusal({**room, "clock": None}) is None


def test_policies_reach_the_bot():
    bot = bot_from(parse_config({"engine": {"builtin": True}, "policy": {"resign": "never", "max_resumes": "never"},
                                 "chat": {"greeting": "hi", "farewell": "bye"}}))
    assert (bot.accept_undo, bot.may_resign, bot.max_resumes, bot.greeting, bot.farewell) == \
        (False, False, None, "hi", "bye")


class GatedPasser(Bot):
    """Passes, but only once every room of `rooms` is being played (so games must run at once)."""

    name = "passer"

    def __init__(self, started: set, rooms: int, gate: asyncio.Event) -> None:
        self.started, self.rooms, self.gate = started, rooms, gate

    async def game_started(self, room, view):
        self.started.add(room)
        if len(self.started) == self.rooms:
            self.gate.set()

    async def choose_move(self, turn: Turn) -> str:
        await asyncio.wait_for(self.gate.wait(), GUARD)
        return "pass"


async def test_a_configured_bot_plays_two_games_at_once(server, fake_engine, tmp_path):
    engine = " ".join(fake_engine("--moves", "C3"))
    config = tmp_path / "bot.toml"
    config.write_text(f"""
server = "{server.url}"
name = "fakebot"
[engine]
command = '{engine}'
[accept]
boards = ["9x9"]
[games]
max_concurrent = 2
total = 2
[chat]
greeting = "Hello from fakebot."
farewell = "Thanks for the game."
""")
    async with Client(server.url, name="host") as host:
        rooms = [(await host.create(RoomSettings(rules="chinese", board=board))).room
                 for board in ("9x9", "9x9", "13x13")]
    gate, started = asyncio.Event(), set()
    passers = [asyncio.create_task(run_bot(GatedPasser(started, 2, gate), server.url, room=room, seat=0,
                                           name=f"passer{i}")) for i, room in enumerate(rooms[:2])]
    async with Client(server.url, name="watcher") as watcher:
        views = [await watcher.watch(room) for room in rooms]
        while not all(view.seats[0].get("name") for view in views[:2]):  # the bot must find seat 1 free
            await asyncio.wait_for(watcher.changes.get(), GUARD)
        env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"))
        bot = await asyncio.create_subprocess_exec(sys.executable, "-m", "polygo.client", "bot", "--config", str(config),
                                                   env=env)
        assert await asyncio.wait_for(bot.wait(), GUARD) == 0
        results = await asyncio.wait_for(asyncio.gather(*passers), GUARD)
        assert [r["reason"] for r in results] == ["passes", "passes"]
        for view in views[:2]:
            while ("fakebot", "Thanks for the game.") not in view.chat:
                await asyncio.wait_for(watcher.changes.get(), GUARD)
            assert [text for name, text in view.chat if name == "fakebot"] == ["Hello from fakebot.",
                                                                               "Thanks for the game."]
        assert [seat.get("name") for seat in views[2].seats] == [None, None]  # 13x13 is not in its boards


async def test_a_room_nobody_comes_to_is_left(server):
    class Idle(Bot):
        name = "idle"

        def choose_move(self, turn):
            return "pass"

    async with Client(server.url, name="host") as host:
        room = (await host.create(RoomSettings(rules="chinese", board="9x9"))).room
    async with Client(server.url, name="idle") as client:
        async with BotRunner(Idle(), client) as runner:
            assert await asyncio.wait_for(runner.play(room, idle_timeout=0.5), GUARD) is None
        assert client.seats_in(room) == []
    async with Client(server.url, name="reader") as reader:
        view = await reader.watch(room)
    assert [seat.get("name") for seat in view.seats] == [None, None]


class Counting(Bot):
    """Passes; counts the games it has going at once."""

    name = "counting"

    def __init__(self) -> None:
        self.going = self.most = 0

    async def game_started(self, room, view):
        self.going += 1
        self.most = max(self.most, self.going)

    async def game_ended(self, room, view):
        self.going -= 1

    async def choose_move(self, turn: Turn) -> str:
        await asyncio.sleep(0.2)
        return "pass"


async def test_serve_keeps_within_the_limit(server):
    from polygo.client.bot_service import serve

    class Passer(Bot):
        name = "passer"

        def choose_move(self, turn):
            return "pass"

    async with Client(server.url, name="host") as host:
        rooms = [(await host.create(RoomSettings(rules="tromp-taylor", board="5x5"))).room for _ in range(3)]
    async with contextlib.AsyncExitStack() as stack:
        opponents = []
        for i, room in enumerate(rooms):  # seated before the bot looks, so it takes seat 1
            runner = BotRunner(Passer(), await stack.enter_async_context(Client(server.url, name=f"p{i}")))
            await runner.join(room, 0)
            opponents.append(asyncio.create_task(runner.run()))
        bot = Counting()
        async with Client(server.url, name="counting") as client:
            played = await asyncio.wait_for(serve(BotRunner(bot, client), max_games=1, total=3, poll=0.1), GUARD)
        results = await asyncio.wait_for(asyncio.gather(*opponents), GUARD)
    assert played == 3 and bot.most == 1
    assert [r[room]["reason"] for r, room in zip(results, rooms)] == ["passes"] * 3


async def test_serve_leaves_empty_rooms_alone(server):
    from polygo.client.bot_service import serve

    class Passer(Bot):
        name = "passer"

        def choose_move(self, turn):
            return "pass"

    async with Client(server.url, name="host") as host:
        empty = (await host.create(RoomSettings(rules="tromp-taylor", board="5x5"))).room
        waiting = (await host.create(RoomSettings(rules="tromp-taylor", board="5x5"))).room
        opponent = BotRunner(Passer(), host)
        await opponent.join(waiting, 0)
        playing = asyncio.create_task(opponent.run())
        async with Client(server.url, name="picky") as client:
            played = await asyncio.wait_for(serve(BotRunner(Passer(), client), total=1, poll=0.1), GUARD)
        await asyncio.wait_for(playing, GUARD)
        listed = {room["room"]: room for room in await host.list_rooms()}
    assert played == 1 and listed[empty]["seats"] == [None, None]


def test_the_find_table_and_the_pool_filters():
    config = parse_config({"engine": {"builtin": True}, "user": "mybot", "find": {"seek": ["chinese-9x9"],
                           "arena": "arena-9x9", "challenges": True},
                           "accept": {"pools": ["chinese-9x9"], "rated": "rated"}})
    assert (config.seek, config.arena, config.challenges, config.user) == (("chinese-9x9",), "arena-9x9", True, "mybot")
    assert config.accept.refusal({"pool": "chinese-9x9", "rated": True, "board": "9x9"}) is None
    assert "pool kee-3p-hex5 is not one of" in config.accept.refusal({"pool": "kee-3p-hex5", "rated": True})
    assert "only rated games" in config.accept.refusal({"pool": "chinese-9x9", "rated": False})
    with pytest.raises(BotConfigError) as refused:
        parse_config({"engine": {"builtin": True}, "find": {"arena": 3, "odd": 1}, "accept": {"rated": "maybe"}})
    assert {p.split(":")[0] for p in refused.value.problems} == {"find.arena", "find.odd", "accept.rated"}
