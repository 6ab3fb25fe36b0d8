"""SIGKILL of a real server process at the end of a rated game, on SQLite and on PostgreSQL: the
rating update is applied once, with the result it belongs to, whether the kill came before or
after the ending move's commit; `polygo-server ratings --check` then finds the stored ratings equal
to a replay of the rated games, and `--rebuild` leaves them so."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.finding.ratings import MODEL
from polygo.server.store import Store
from tests.server.conftest import ROOT

WAIT = 5.0


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "rated.db")
    return request.getfixturevalue("postgres_url")


async def matched(client) -> dict:
    while True:
        message = await asyncio.wait_for(client.replies.get(), WAIT)
        if message["type"] == "matched":
            return message


async def stored_ratings(db: str) -> dict[str, tuple]:
    store = await Store.open(db)
    try:
        rows = await store.query("SELECT player, mu, sigma, games, wins FROM ratings WHERE pool = 'chinese-9x9'")
        games = await store.query("SELECT count(*) FROM rated_games")
    finally:
        await store.close()
    return {player: (mu, sigma, n, wins) for player, mu, sigma, n, wins in rows}, games[0][0]


def ratings_command(db: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polygo.server", "ratings", *args, "--db", db], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kill_before_ack", [True, False], ids=["in-flight", "acknowledged"])
async def test_sigkill_at_the_end_of_a_rated_game_applies_the_update_once(database, port, connect_client,
                                                                           spawn_server, kill_before_ack):
    proc = await spawn_server(database, port)
    try:
        ann = await connect_client(port=port)
        bob = await connect_client(port=port)
        for client, name in ((ann, "ann"), (bob, "bob")):
            await client.hello(name)
            await client.ok("register", user=name, password="pass-" + name)
        for client in (ann, bob):
            await client.ok("seek", pool="chinese-9x9")
        told = {name: await matched(c) for name, c in (("ann", ann), ("bob", bob))}
        room = told["ann"]["room"]
        by_seat = {told["ann"]["seat"]: ann, told["bob"]["seat"]: bob}
        for client in (ann, bob):
            await client.ok("sit", room=room)
        await by_seat[0].ok("move", room=room, move="E5", seq=1)
        await by_seat[1].ok("move", room=room, move="C3", seq=1)
        if kill_before_ack:
            await by_seat[0].send(type="move", room=room, move="resign", seq=2)
        else:
            await by_seat[0].ok("move", room=room, move="resign", seq=2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()

    proc = await spawn_server(database, port)
    try:
        again = await connect_client(port=port)
        await again.ok("hello", protocol=PROTOCOL_VERSION, token=by_seat[0].token)
        resent = await again.request("move", room=room, move="resign", seq=2)
        # applied now if the kill came before its commit; else the ended room is no longer served
        assert resent["type"] == "ack" or resent["code"] == "no-such-room"
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    ratings, games = await stored_ratings(database)
    black = "ann" if told["ann"]["seat"] == 0 else "bob"
    white = "bob" if black == "ann" else "ann"
    [[b], [w]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[2, 1])
    assert games == 1
    assert ratings == {black: (b.mu, b.sigma, 1, 0), white: (w.mu, w.sigma, 1, 1)}
    checked = ratings_command(database, "--check")
    assert checked.returncode == 0 and "1 rated games replayed, 2 ratings; all equal" in checked.stdout
    rebuilt = ratings_command(database, "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert (await stored_ratings(database))[0] == ratings
