"""A calendar clock's deadline and the seat to move, stored with each change (SQLite and
PostgreSQL): what the deadline sweeper and `my_games` read without the rooms in memory."""

from __future__ import annotations

import json

import pytest

from polygo.server.store import Store, StoreError

SETTINGS = {"rules": "chinese", "board": "9", "players": 2, "clock": {"kind": "corr", "period": 86400, "cap": 86400}}
CLOCKS = {"seats": [], "running": 0}


async def test_deadlines_turns_and_the_games_a_player_holds(store):
    await store.put_session("tA", "ann", user="ann")
    await store.put_session("tB", "bob")
    for room in ("r1", "r2", "r3"):
        await store.create_room(room, SETTINGS, owner="tA", invite=None)
        await store.set_seat(room, 0, "tA")
    await store.set_seat("r1", 1, "tB")
    await store.set_seat("r2", 1, "tB")
    await store.record("r1", 1, {"kind": "start", "to_move": 0}, clocks=CLOCKS, deadline=1000.0)
    await store.record("r2", 1, {"kind": "start", "to_move": 0}, clocks=CLOCKS, deadline=3000.0)
    await store.record("r2", 2, {"kind": "chat"})                       # no clocks: both kept
    await store.record("r2", 3, {"kind": "move", "to_move": 1}, move=(0, "E5", 1), clocks=CLOCKS, deadline=2000.0)

    assert await store.overdue(999.0) == []
    assert await store.overdue(2500.0) == ["r1", "r2"]
    assert await store.overdue(2500.0, limit=1) == ["r1"]
    await store.record("r1", 2, {"kind": "timeout", "to_move": None}, move=(0, "timeout", None), clocks=CLOCKS,
                       deadline=None, result={"reason": "timeout", "ranking": [2, 1], "score": [0, 0]})
    assert await store.overdue(2500.0) == ["r2"]

    held = {g["room_id"]: g for g in await store.held_games("other", "ann", 10)}
    assert set(held) == {"r2", "r3"}
    assert held["r2"]["turn"] == 1 and held["r2"]["deadline"] == 2000.0 and held["r2"]["seat"] == 0
    assert held["r2"]["seats"] == {0: ("tA", "ann", "ann"), 1: ("tB", "bob", None)}
    assert held["r3"]["turn"] is None and held["r3"]["deadline"] is None
    assert [g["room_id"] for g in await store.held_games("tB", None, 10)] == ["r2"]
    assert [g["room_id"] for g in await store.unfinished_rooms() if g["deadline"] == 2000.0] == ["r2"]


async def test_a_deadline_must_be_a_finite_float(store):
    await store.create_room("r1", SETTINGS, owner="t", invite=None)
    with pytest.raises(StoreError, match="finite float"):
        await store.record("r1", 1, {"kind": "start"}, clocks=CLOCKS, deadline=float("nan"))



async def test_the_migration_takes_the_seat_to_move_from_the_last_event_that_says_it(raw, db):
    """Games started before schema 5 are listed with their seat to move at once, not only after
    their next move."""
    store = await Store.open(db)
    await store.close()
    for statement in ("UPDATE schema_version SET version = 4", "DROP TABLE room_settings",
                      "ALTER TABLE rooms ADD COLUMN settings text", "DROP TABLE ratings", "DROP TABLE rated_games",
                      "DROP TABLE rating_changes", *(["DROP TABLE finder"] if raw.dialect == "postgres" else []),
                      "DROP INDEX rooms_by_deadline",
                      "DROP INDEX seats_by_token", "ALTER TABLE rooms DROP COLUMN deadline",
                      "ALTER TABLE rooms DROP COLUMN turn",
                      "INSERT INTO rooms (room_id, settings, owner, version, created_at, updated_at)"
                      " VALUES ('r1', '{}', 't', 3, 0, 0), ('r2', '{}', 't', 1, 0, 0), ('r3', '{}', 't', 2, 0, 0)"):
        raw.execute(statement)
    events = [("r1", 1, {"kind": "start", "to_move": 0}), ("r1", 2, {"kind": "move", "to_move": 1}),
              ("r1", 3, {"kind": "chat"}), ("r2", 1, {"kind": "seat"}), ("r3", 1, {"kind": "start", "to_move": 0}),
              ("r3", 2, {"kind": "move", "to_move": None})]
    raw.execute("INSERT INTO events (room_id, version, body) VALUES "
                + ", ".join(f"('{room}', {version}, '{json.dumps(body)}')" for room, version, body in events))
    store = await Store.open(db)
    await store.close()
    assert raw.values("SELECT coalesce(turn, -1) FROM rooms ORDER BY room_id") == ["1", "-1", "-1"]
