"""Ended rooms leave the server's memory `evict_after` seconds after nobody watches them; their
games stay in the store. Started games nobody watches are adjourned the same way and come back
when someone asks for them; watched rooms stay, and waiting rooms expire instead. And the setting
itself: `--evict-after` / POLYGO_EVICT_AFTER."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from typing import Awaitable, Callable

import pytest
from sgfmill import sgf

from polygo.server.config import Config, parse_config
from polygo.protocol import PROTOCOL_VERSION

DELAY = 0.2     # the test servers' evict_after
PATIENCE = 5.0  # seconds any awaited condition may take before the test fails

NINE = {"rules": "chinese", "board": "9"}


@pytest.fixture
def config(config) -> Config:
    return dataclasses.replace(config, evict_after=DELAY)


@pytest.fixture
def checks(server, monkeypatch) -> Counter:
    """How many times the hub looked at each ended room to evict it (whether it did or not)."""
    seen: Counter = Counter()
    evict = server.hub.evictions._evict

    def counted(room_id: str) -> None:
        seen[room_id] += 1
        evict(room_id)

    monkeypatch.setattr(server.hub.evictions, "_evict", counted)
    return seen


async def until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll `condition` until it holds, failing after PATIENCE seconds."""
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"not within {PATIENCE} s: {what}")
        await asyncio.sleep(0.02)


async def in_memory(probe, room: str) -> bool:
    """Whether the server still holds the room, asked over the protocol: `leave` answers `ok` for a
    room in memory and `no-such-room` for one that is not (and, unlike `watch`, subscribes nobody)."""
    reply = await probe.request("leave", room=room)
    if reply["type"] == "error":
        assert reply["code"] == "no-such-room", reply
        return False
    return True


async def finished_game(black, white, seat) -> str:
    """A 2-player 9x9 game that white wins by resignation; both players still watch its room."""
    room = await seat([black, white], NINE)
    assert (await black.move(room, "E5", 0))["type"] == "ack"
    assert (await white.move(room, "C3", 0))["type"] == "ack"
    assert (await black.move(room, "resign", 1))["type"] == "ack"
    return room


async def test_a_finished_game_leaves_memory_and_stays_in_the_store(server, players, seat, checks):
    black, white, probe = await players(3)
    room = await finished_game(black, white, seat)
    assert (await probe.ok("watch", room=room))["status"] == "ended"
    await probe.ok("leave", room=room)

    await until(lambda: _at_least(checks, room, 2), "a second eviction check")
    assert await in_memory(probe, room), "evicted while its players still watched it"

    await black.ok("leave", room=room)
    await white.ok("leave", room=room)
    await until(lambda: _not(in_memory(probe, room)), "the finished room leaves memory")
    assert room not in server.hub.rooms
    assert (await probe.request("watch", room=room))["code"] == "no-such-room"
    assert room not in [r["room"] for r in (await probe.ok("list"))["rooms"]]
    assert (await black.ok("hello", protocol=PROTOCOL_VERSION, token=black.token))["seats"] == []

    listed = (await probe.ok("games", limit=5))["games"]
    assert [g["room"] for g in listed] == [room]
    assert listed[0]["seats"] == ["p0", "p1"] and listed[0]["result"]["reason"] == "resignation"
    record = (await probe.ok("game", room=room))["record"]
    assert [h[1] for h in record["history"]] == ["E5", "C3", "resign"]
    assert record["result"] == listed[0]["result"]
    text = (await probe.ok("game", room=room, format="sgf"))["record"]
    game = sgf.Sgf_game.from_string(text)
    assert game.get_size() == 9 and game.get_winner() == "w"
    played = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert [(c, p) for c, p in played if p is not None] == [("b", (4, 4)), ("w", (2, 2))]


@pytest.mark.parametrize("goes", ["leave", "disconnect"])
async def test_a_watched_finished_room_stays_until_its_spectator_goes(server, players, connect_client, seat,
                                                                       checks, goes):
    black, white, probe = await players(3)
    fan = await connect_client("polygo.msgpack")
    await fan.hello("fan")
    room = await seat([black, white], NINE)
    assert (await fan.ok("watch", room=room))["status"] == "playing"
    assert (await black.move(room, "resign", 0))["type"] == "ack"
    assert (await fan.event("move"))["result"]["reason"] == "resignation"
    await black.ok("leave", room=room)
    await white.ok("leave", room=room)

    await until(lambda: _at_least(checks, room, 3), "three eviction checks while the fan watches")
    assert await in_memory(probe, room), "evicted under its spectator's eyes"
    assert room in server.hub.rooms
    await fan.ok("chat", room=room, text="gg")   # the room still serves its spectator

    if goes == "leave":
        await fan.ok("leave", room=room)
    else:
        await fan.close()
    await until(lambda: _not(in_memory(probe, room)), f"the room leaves memory after the fan's {goes}")
    assert room not in server.hub.rooms
    assert (await probe.ok("game", room=room))["record"]["result"]["reason"] == "resignation"


async def test_a_started_game_nobody_watches_is_adjourned_and_comes_back(server, players, connect_client,
                                                                        seat, checks):
    black, white, probe = await players(3)
    playing = await seat([black, white], {**NINE, "clock": "fischer:600+10"})
    assert (await black.move(playing, "E5", 0))["type"] == "ack"
    waiting = (await black.ok("create", settings=NINE))["room"]
    await black.ok("sit", room=waiting, seat=0)
    tokens = black.token, white.token
    await black.close()   # nobody watches the unfinished rooms any more
    await white.close()

    await until(lambda: _gone(server, playing), "the unwatched game leaves memory")
    assert waiting in server.hub.rooms, "a waiting room left memory (it expires instead)"
    assert len(server.hub.holdings) == 1, "the adjourned game is still charged to its address"
    assert [r["room"] for r in (await probe.ok("list"))["rooms"]] == [waiting]

    black, white = await connect_client(), await connect_client()
    seats = (await black.ok("hello", protocol=PROTOCOL_VERSION, token=tokens[0]))["seats"]
    assert [(s["room"], s["seat"], s["last_seq"]) for s in seats] == \
        sorted([(playing, 0, 0), (waiting, 0, None)])
    await white.ok("hello", protocol=PROTOCOL_VERSION, token=tokens[1])
    snapshot = await white.ok("watch", room=playing)
    assert snapshot["status"] == "playing" and snapshot["game"]["stones"] == {"E5": 0}
    assert snapshot["clocks"]["running"] == 1
    assert playing in server.hub.rooms and len(server.hub.holdings) == 2
    assert (await white.move(playing, "C3", 1))["type"] == "ack"
    assert (await black.move(playing, "D4", 1))["type"] == "ack"
    assert (await black.ok("watch", room=playing))["game"]["stones"] == {"E5": 0, "C3": 1, "D4": 0}


async def test_a_watched_game_stays_in_memory(server, players, seat, checks):
    black, white = await players(2)
    playing = await seat([black, white], NINE)
    await white.close()
    await until(lambda: _at_least(checks, playing, 3), "three eviction checks while black watches")
    assert playing in server.hub.rooms
    assert (await black.move(playing, "E5", 0))["type"] == "ack"


# -- the setting ------------------------------------------------------------------------------------


def test_evict_after_from_the_environment_and_the_command_line():
    assert parse_config([], {}).evict_after == Config().evict_after == 300.0
    assert parse_config([], {"POLYGO_EVICT_AFTER": "12.5"}).evict_after == 12.5
    assert parse_config(["--evict-after", "60"], {"POLYGO_EVICT_AFTER": "12.5"}).evict_after == 60.0


@pytest.mark.parametrize("argv, env, said", [
    (["--evict-after", "soon"], {}, "a delay is a number of seconds, not 'soon'"),
    (["--evict-after", "0"], {}, "a delay is a positive, finite number of seconds, not '0'"),
    (["--evict-after=-5"], {}, "not '-5'"),
    ([], {"POLYGO_EVICT_AFTER": "inf"}, "not 'inf'"),
    ([], {"POLYGO_EVICT_AFTER": "nan"}, "not 'nan'"),
    ([], {"POLYGO_EVICT_AFTER": ""}, "a delay is a number of seconds, not ''"),
])
def test_a_bad_evict_after_is_a_usage_error(argv, env, said, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_config(argv, env)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "polygo-server: error: argument --evict-after:" in err and said in err
    assert "Traceback" not in err


# -- helpers ----------------------------------------------------------------------------------------


async def _at_least(checks: Counter, room: str, n: int) -> bool:
    return checks[room] >= n


async def _not(condition: Awaitable[bool]) -> bool:
    return not await condition


async def _gone(server, room: str) -> bool:
    return room not in server.hub.rooms
