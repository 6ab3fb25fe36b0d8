"""The graceful stop: SIGTERM to a real server process while several games are being played.

Every acknowledged move is in the database and nothing else is, every client sees close code
1012 (service restart), the process exits 0 within its drain timeout, and each client, coming
back to a restarted server with its token, finds its game as it left it and plays on. Apart, in
process: no flag falls while a server drains, and the wait is charged to nobody."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess

import pytest

from websockets.exceptions import ConnectionClosed

from polygo.protocol import PROTOCOL_VERSION

GAMES = 4
MOVES = 30            # per player at most: black fills columns A-D, white F-J, nothing is captured
BLACK = [f"{c}{r}" for c in "ABCD" for r in range(1, 10)][:MOVES]
WHITE = [f"{c}{r}" for c in "JHGF" for r in range(1, 10)][:MOVES]


async def play(client, room: str, move: str, seq: int) -> dict | None:
    """Send a move; its reply, or None if the connection closed without one."""
    try:
        await client.send(type="move", room=room, move=move, seq=seq)
    except ConnectionClosed:
        return None
    reply = asyncio.ensure_future(client.replies.get())
    closed = asyncio.ensure_future(client.ws.wait_closed())
    done, _ = await asyncio.wait({reply, closed}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    closed.cancel()
    if reply in done:
        return reply.result()
    reply.cancel()
    await asyncio.wait_for(client._reader, 10)        # frames that came before the close frame
    return None if client.replies.empty() else client.replies.get_nowait()


async def game(black, white, room: str, acked: list[str], going: asyncio.Event) -> None:
    """Play alternately as fast as acknowledgements come until the server goes away."""
    for i in range(MOVES):
        for client, moves in ((black, BLACK), (white, WHITE)):
            reply = await play(client, room, moves[i], i + 1)
            if reply is None or reply["type"] != "ack":
                assert reply is None or reply["code"] == "unavailable" and "restarting" in reply["message"], reply
                return
            acked.append(moves[i])
            if len(acked) >= 6:
                going.set()


async def test_sigterm_under_load_keeps_every_ack_closes_1012_and_games_resume(
        tmp_path, port, spawn_server, connect_client):
    db = tmp_path / "drain.db"
    proc = await spawn_server(db, port, "--drain-timeout", "20")
    try:
        tables = []
        for g in range(GAMES):
            black = await connect_client("polygo.msgpack", port=port)
            white = await connect_client("polygo.json", port=port)
            await black.hello(f"b{g}")
            await white.hello(f"w{g}")
            room = (await black.ok("create", settings={"rules": "chinese", "board": "9",
                                                       "clock": "fischer:600+10"}))["room"]
            await black.ok("sit", room=room)
            await white.ok("sit", room=room)
            tables.append((black, white, room, [], asyncio.Event()))
        games = [asyncio.create_task(game(b, w, r, acked, going)) for b, w, r, acked, going in tables]
        await asyncio.wait_for(asyncio.gather(*(t[4].wait() for t in tables)), 60)
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(asyncio.gather(*games), 60)
        assert await asyncio.to_thread(proc.wait, 60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    for black, white, room, acked, _ in tables:
        assert 6 <= len(acked) < 2 * MOVES, "the stop came in the middle of the games"
        for client in (black, white):
            await asyncio.wait_for(client.ws.wait_closed(), 10)
            assert (client.ws.close_code, client.ws.close_reason) == (1012, "server restarting")
    with sqlite3.connect(db) as con:
        for _, _, room, acked, _ in tables:
            stored = [m for (m,) in con.execute("SELECT move FROM moves WHERE room_id = ? ORDER BY idx", (room,))]
            assert stored == acked

    proc = await spawn_server(db, port)
    try:
        for black, white, room, acked, _ in tables:
            again = {}
            for old in (black, white):
                client = await connect_client("polygo.json", port=port)
                welcome = await client.ok("hello", protocol=PROTOCOL_VERSION, token=old.token)
                assert welcome["seats"] and welcome["seats"][0]["room"] == room
                again[old] = client
            snapshot = await again[white].ok("watch", room=room)
            assert [h[1] for h in snapshot["game"]["history"]] == acked
            assert snapshot["status"] == "playing"
            n = len(acked)
            mover, moves = (again[black], BLACK) if n % 2 == 0 else (again[white], WHITE)
            assert snapshot["clocks"]["running"] == n % 2
            assert (await mover.move(room, moves[n // 2], n // 2 + 1))["type"] == "ack"
    finally:
        proc.terminate()
        assert await asyncio.to_thread(proc.wait, 60) == 0


@pytest.mark.slow
async def test_no_flag_falls_while_draining_and_nobody_is_charged_for_the_wait(config, make_server, players, seat):
    first = await make_server()
    black, white = await players(2, port=first.port)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "absolute:3"})
    await first.drain()
    assert black.ws.close_code == 1012
    await asyncio.sleep(3.5)                 # past black's flag: a running clock would have fallen
    await first.close()
    with sqlite3.connect(config.db) as con:
        assert con.execute("SELECT count(*) FROM moves WHERE room_id = ?", (room,)).fetchone() == (0,)

    second = await make_server()
    (watcher,) = await players(1, port=second.port)
    snapshot = await watcher.ok("watch", room=room)
    assert snapshot["status"] == "playing" and snapshot["clocks"]["running"] == 0
    assert snapshot["clocks"]["seats"][0]["main"] > 1.0     # of 3 s: the drain's wait cost nothing


async def test_a_request_reaching_a_room_after_the_drain_began_is_refused_with_a_reason(server, players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    await server.hub.halt()          # the drain's first step, without closing the sockets yet
    reply = await black.move(room, "E5", 1)
    assert reply["code"] == "unavailable" and reply["retry_after"] > 0 and "restarting" in reply["message"]
    refused = await black.request("create", settings={"rules": "chinese", "board": "9"})
    assert refused["code"] == "unavailable" and refused["retry_after"] > 0 and "restarting" in refused["message"]


async def test_a_stop_that_overruns_its_deadline_exits_1_at_the_deadline(tmp_path, port, spawn_server, connect_client):
    db = tmp_path / "stuck.db"
    proc = await spawn_server(db, port, "--drain-timeout", "1", stderr=subprocess.PIPE, text=True)
    black, white = await connect_client(port=port), await connect_client(port=port)
    await black.hello("black")
    await white.hello("white")
    room = (await black.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await black.ok("sit", room=room)
    await white.ok("sit", room=room)
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")          # the disk "hangs": the writer waits up to its 5 s busy timeout
    try:
        await black.send(type="move", room=room, move="E5", seq=1)
        await asyncio.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(proc.wait, 4.5)      # well before the writer could give up
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert code == 1
    assert "the graceful stop took longer than 1 s; exiting with work unfinished" in proc.stderr.read()
