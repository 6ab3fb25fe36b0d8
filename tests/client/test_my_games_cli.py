"""`polygo my-games` and the notice of `polygo play`, against a real server subprocess: the
player's session (from its token file) sees its games, those where it is its turn first."""

import asyncio
import os
import subprocess
import sys
import time

from polygo.protocol import MyGames, RoomSettings

from polygo.client.my_games import notice, table
from polygo.client.session import Client, TokenStore

POLYGO = [sys.executable, "-m", "polygo.client"]


def polygo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*POLYGO, *args], capture_output=True, text=True, timeout=120)


async def test_my_games_lists_the_games_where_it_is_my_turn_first(server, tmp_path):
    tokens = tmp_path / "sessions.json"
    settings = RoomSettings(rules="chinese", board="9x9", clock="corr:3d", title="by mail")
    async with Client(server.url, name="ann", tokens=TokenStore(tokens)) as ann, \
            Client(server.url, name="bob") as bob:
        mine = (await ann.create(settings)).room
        await ann.sit(mine, 0)
        await bob.sit(mine, 1)
        theirs = (await ann.create(RoomSettings(rules="chinese", board="9x9"))).room
        await bob.sit(theirs, 0)
        await ann.sit(theirs, 1)

    listing = await asyncio.to_thread(polygo, "my-games", "--server", server.url, "--name", "ann",
                                      "--token-file", str(tokens))
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[1].startswith(mine) and "YOURS" in lines[1] and "2d 23h" in lines[1] and "by mail" in lines[1]
    assert lines[2].startswith(theirs) and "bob" in lines[2] and "YOURS" not in lines[2]
    assert lines[-1] == f"your turn in 1 game: {mine} (2d 23h left)"


def test_the_notice_and_the_table_read_the_reply():
    now = time.time()
    games = MyGames(your_turn=2, games=[
        {"room": "r1", "title": "", "settings": {"rules": "kee", "board": "hex5"}, "seats": ["a", "b", "c"],
         "seat": 0, "status": "playing", "to_move": 0, "your_turn": True, "deadline": now + 3 * 3600 + 30,
         "version": 4},
        {"room": "r2", "title": "", "settings": {"rules": "chinese", "board": {"points": []}}, "seats": ["b", "a"],
         "seat": 1, "status": "playing", "to_move": 1, "your_turn": True, "deadline": None, "version": 9},
        {"room": "r3", "title": "open", "settings": {"rules": "chinese", "board": "19"}, "seats": ["a", None],
         "seat": 0, "status": "waiting", "to_move": None, "your_turn": False, "deadline": None, "version": 1},
    ])
    assert notice(games, now) == "your turn in 2 games: r1 (3h 0m left), r2"
    rows = table(games, now)
    assert "graph" in rows[2] and "waiting" in rows[3] and rows[3].endswith("open")
    assert notice(MyGames(games=games.games[2:]), now) is None


async def test_play_tells_the_games_where_it_is_my_turn_and_rejoins_the_first(server, tmp_path, tmux):
    home = tmp_path / "home"
    tokens = TokenStore(home / "sessions.json")
    async with Client(server.url, name="ann", tokens=tokens) as ann, Client(server.url, name="bob") as bob:
        rooms = []
        for clock in ("corr:2d", "corr:1d"):
            room = (await ann.create(RoomSettings(rules="chinese", board="5x5", clock=clock))).room
            await ann.sit(room, 0)
            await bob.sit(room, 1)
            rooms.append(room)
    env = dict(os.environ, POLYGO_HOME=str(home), NO_COLOR="1")
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--no-local-server"], env)
    term.wait_for(rf"your turn in 2 games: {rooms[1]} \(23h 59m left\), {rooms[0]} \(1d 23h left\)")
    assert term.wait_for(r"room (\S+) +chinese").group(1) == rooms[1]     # the most pressing first
    term.type("quit")
    term.wait_for(r"EXIT=0")
