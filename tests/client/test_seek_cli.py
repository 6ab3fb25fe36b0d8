"""`polygo play --seek POOL` and `polygo pools` against a real server: the player at the terminal
seeks a rated pool as a registered user (registered on first use), is put in the room the server
starts with another seeker, and plays it there."""

from __future__ import annotations

import asyncio
import os
import sys

from polygo.protocol import Matched

from polygo.client.session import Client

POLYGO = [sys.executable, "-m", "polygo.client"]


async def test_play_seek_puts_the_terminal_player_in_the_room_found(server, tmp_path, tmux):
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1", POLYGO_PASSWORD="ann's secret")
    listing = await asyncio.create_subprocess_exec(*POLYGO, "pools", "--server", server.url, env=env,
                                                   stdout=asyncio.subprocess.PIPE)
    out, _ = await listing.communicate()
    assert b"kee-3p-hex5" in out and b"chinese-9x9" in out
    term = tmux([*POLYGO, "play", "--seek", "chinese-9x9", "--user", "ann", "--server", server.url], env)
    await asyncio.to_thread(term.wait_for, r"seeking a rated game of chinese-9x9 \(your rating 1000\?\)")
    async with Client(server.url, name="bob", user="bob", password="bob's secret") as bob:
        await bob.seek(pool="chinese-9x9")
        matched = await asyncio.wait_for(bob.notices.get(), 10)
        assert isinstance(matched, Matched)
        await bob.sit(matched.room, matched.seat)
        await asyncio.to_thread(term.wait_for, rf"room {matched.room} +chinese +9x9")
        if matched.seat == 0:             # the terminal player is White
            await bob.move(matched.room, "E5")
        await asyncio.to_thread(term.wait_for, r"YOUR TURN")
        term.type("c3")
        view = bob.rooms[matched.room]
        for _ in range(200):
            if any(play.move == "C3" for play in view.game.history):
                break
            await asyncio.sleep(0.05)
        assert [play.move for play in view.game.history][-1] == "C3"
        term.type("quit")
        await asyncio.to_thread(term.wait_for, r"EXIT=0")


async def test_play_challenge_and_accept_in_two_terminals(server, tmp_path, tmux):
    """`polygo play --challenge bob --pool chinese-9x9` and, at bob's terminal, `polygo challenges`
    then `polygo play --accept ID`: both are put in the room the challenge starts."""
    homes = {name: dict(os.environ, POLYGO_HOME=str(tmp_path / name), NO_COLOR="1", POLYGO_PASSWORD=f"pw-{name}")
             for name in ("ann", "bob")}
    async with Client(server.url, name="bob", user="bob", password="pw-bob"):
        pass                                            # bob is registered
    ann = tmux([*POLYGO, "play", "--challenge", "bob", "--pool", "chinese-9x9", "--user", "ann",
                "--server", server.url], homes["ann"])
    ident = (await asyncio.to_thread(ann.wait_for, r"\(challenge (\S+)\); waiting")).group(1)
    listing = await asyncio.create_subprocess_exec(*POLYGO, "challenges", "--user", "bob", "--server", server.url,
                                                   env=homes["bob"], stdout=asyncio.subprocess.PIPE)
    out, _ = await listing.communicate()
    assert f"{ident}  from ann to bob: chinese-9x9, rated" in out.decode()
    bob = tmux([*POLYGO, "play", "--accept", ident, "--user", "bob", "--server", server.url], homes["bob"])
    room = (await asyncio.to_thread(bob.wait_for, r"room (\S+) +chinese +9x9")).group(1)
    await asyncio.to_thread(ann.wait_for, rf"room {room} +chinese +9x9")
    for term in (ann, bob):
        term.type("quit")
        await asyncio.to_thread(term.wait_for, r"EXIT=0")
