"""What a room does when its store or its send path fails: a change is in the room exactly when it is
in the store, so the game and the file never disagree (a replay after a restart must reproduce it)."""

from __future__ import annotations

import server.room as rooms
from server.store import StoreError


async def test_a_failed_commit_leaves_the_room_as_it_was(server, players, seat, monkeypatch):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    record = server.store.record

    async def failing(*args, **kwargs):
        monkeypatch.setattr(server.store, "record", record)
        raise StoreError("commit-failed", "The disk is full.")

    monkeypatch.setattr(server.store, "record", failing)
    reply = await black.move(room, "E5", 1)
    assert reply["code"] == "internal" and reply["seq"] == 1
    assert (await white.move(room, "C3", 1))["reason"] == "not-your-turn"
    assert (await black.move(room, "E5", 2))["type"] == "ack"
    snapshot = await white.ok("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5"]
    assert [m[1] for m in (await server.store.game(room))["moves"]] == ["E5"]


async def test_a_change_committed_but_not_sent_stays_in_the_room(server, players, seat, monkeypatch):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    broadcast = rooms.broadcast

    def failing(watchers, message, encoded=None):
        monkeypatch.setattr(rooms, "broadcast", broadcast)
        raise RuntimeError("the send path broke")

    monkeypatch.setattr(rooms, "broadcast", failing)
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    assert (await white.move(room, "C3", 1))["type"] == "ack"
    snapshot = await black.ok("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3"]
    assert [m[1] for m in (await server.store.game(room))["moves"]] == ["E5", "C3"]
