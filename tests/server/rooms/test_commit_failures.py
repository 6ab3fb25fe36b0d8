"""What a room does when its store or its send path fails: a change is in the room exactly when it is
in the store, so the game and the file never disagree (a replay after a restart must reproduce it)."""

from __future__ import annotations

import logging
import sqlite3

import polygo.server.rooms.room as rooms
from polygo.server.ops import logs
from polygo.server.ops.logs import EVENTS_LOGGER
from polygo.server.store import StoreError


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


def database_errors(caplog) -> list[dict]:
    return [{"level": r.levelname, **r.fields} for r in caplog.records if r.msg == "database-error"]


async def test_a_statement_the_database_refuses_is_an_event_naming_room_statement_and_cause(
        server, players, seat, caplog, monkeypatch):
    """An operator looking for why a room's move was answered `internal` filters the log on the
    room, and reads which statement failed and what the database said."""
    monkeypatch.setattr(logs.event, "_buckets", {})     # budgets fresh, whatever earlier tests logged
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    with sqlite3.connect(server.config.db) as db:      # a real refusal, inside the room's transaction
        db.execute(f"CREATE TRIGGER refuse BEFORE INSERT ON moves WHEN NEW.room_id = '{room}'"
                   " BEGIN SELECT RAISE(ABORT, 'poisoned'); END")
    with caplog.at_level(logging.INFO, logger=EVENTS_LOGGER):
        assert (await black.move(room, "E5", 1))["code"] == "internal"
    assert database_errors(caplog) == [{"level": "ERROR", "room": room, "statement": "insert", "cause": "poisoned"}]


async def test_a_transaction_the_database_cannot_begin_is_an_event_too(server, players, seat, caplog, monkeypatch):
    """Another process holding the file's write lock (a person with the sqlite3 shell) past the
    busy timeout: the BEGIN fails, and the event says so."""
    monkeypatch.setattr(logs.event, "_buckets", {})
    monkeypatch.setattr("polygo.server.store.writer.BUSY_TIMEOUT_MS", 50)
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    shell = sqlite3.connect(server.config.db, isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")
    try:
        with caplog.at_level(logging.INFO, logger=EVENTS_LOGGER):
            assert (await black.move(room, "E5", 1))["code"] == "internal"
    finally:
        shell.execute("ROLLBACK")
        shell.close()
    assert database_errors(caplog) == [{"level": "ERROR", "room": room, "statement": "begin",
                                        "cause": "database is locked"}]
    assert (await black.move(room, "E5", 2))["type"] == "ack"
