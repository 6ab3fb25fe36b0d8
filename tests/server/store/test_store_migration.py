"""The store creates its schema in an empty database, records its version, and refuses a newer schema."""

from __future__ import annotations

import sqlite3

import pytest

from polygo.server.store.schema import SQLITE_MIGRATIONS
from polygo.server.store import SCHEMA_VERSION, Store, StoreError

TABLES = {"schema_version", "users", "sessions", "rooms", "room_settings", "seats", "moves", "events", "results", "bans",
          "ratings", "rated_games", "rating_changes"}


def tables(raw) -> set[str]:
    if raw.dialect == "sqlite":
        return set(raw.values("SELECT name FROM sqlite_master WHERE type = 'table'"))
    return set(raw.values("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))


async def test_an_empty_file_gets_the_whole_schema(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    store = await Store.open(str(path))
    await store.close()
    with sqlite3.connect(path) as db:
        assert {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} == TABLES
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_an_empty_database_gets_the_whole_schema(raw):
    store = await Store.open(raw.target)
    await store.close()
    assert tables(raw) == (TABLES if raw.dialect == "sqlite" else TABLES | {"nodes", "finder"})
    assert raw.values("SELECT version FROM schema_version") == [str(SCHEMA_VERSION)]


async def test_reopening_migrates_nothing_and_keeps_the_data(raw):
    store = await Store.open(raw.target)
    await store.put_user("ann", "h")
    await store.close()
    store = await Store.open(raw.target)
    assert await store.get_user("ann") == {"name": "ann", "password_hash": "h"}
    await store.close()
    assert raw.values("SELECT version FROM schema_version") == [str(SCHEMA_VERSION)]


async def test_a_newer_schema_is_refused_and_left_alone(raw):
    store = await Store.open(raw.target)
    await store.close()
    raw.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError) as info:
        await Store.open(raw.target)
    assert info.value.code == "schema-too-new" and "99" in str(info.value)
    assert raw.values("SELECT version FROM schema_version") == ["99"]


async def test_bad_options_are_refused(db):
    for options in ({"synchronous": "OFF"}, {"group_window": -1}, {"max_batch": 0}):
        with pytest.raises(StoreError) as info:
            await Store.open(db, **options)
        assert info.value.code == "bad-value"


async def test_an_unreachable_database_is_one_sentence_without_the_password(postgres):
    url = f"postgresql://postgres:secret@127.0.0.1:{postgres.port}/no_such_database"
    with pytest.raises(StoreError) as info:
        await Store.open(url)
    assert info.value.code == "unreachable"
    assert "no_such_database" in str(info.value) and "secret" not in str(info.value)
    assert info.value.message.endswith(".")


def schema_2_file(path) -> None:
    """A file as polygo wrote it at schema 2, with a room's events (one a chat line) in it."""
    with sqlite3.connect(path) as db:
        db.create_function("name_skeleton", 1, str.lower)
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for statement in SQLITE_MIGRATIONS[0] + SQLITE_MIGRATIONS[1]:
            db.execute(statement)
        db.execute("INSERT INTO schema_version VALUES (2)")
        db.execute("INSERT INTO rooms VALUES ('r1', '{\"rules\": \"chinese\"}', 't', NULL, 3, NULL, 0, 0)")
        db.executemany("INSERT INTO events VALUES ('r1', ?, ?, ?)",
                       [(1, '{"kind": "start"}', None), (3, '{"kind": "chat", "text": "hi"}', 5.0),
                        (2, '{"kind": "move", "move": "D4"}', None)])


async def test_schema_2_events_move_to_a_rowid_table_and_keep_their_order_and_chat_times(tmp_path):
    """Schema 3 keeps the events in a rowid table (fewer pages written a move): the
    rows come over as they were, and the unique index still refuses a version twice."""
    path = tmp_path / "old.db"
    schema_2_file(path)
    store = await Store.open(str(path))
    try:
        assert [e["kind"] for e in await store.events_since("r1", 0)] == ["start", "move", "chat"]
        assert await store.drop_chat(said_before=6.0) == {"r1": 3}
        assert [e["kind"] for e in await store.events_since("r1", 0)] == ["start", "move"]
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert "WITHOUT ROWID" not in db.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()[0]
        assert {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'events'"
                                               " AND type = 'index'")} == {"events_by_room", "events_by_chat_at"}
        with pytest.raises(sqlite3.IntegrityError):
            db.execute("INSERT INTO events VALUES ('r1', 2, '{}', NULL)")


async def test_rooms_of_an_older_file_keep_their_settings_in_a_table_of_their_own(tmp_path):
    """Schema 7 moves a room's settings out of its row in ``rooms`` (rewritten with every change)."""
    path = tmp_path / "old.db"
    schema_2_file(path)
    store = await Store.open(str(path))
    try:
        assert [room["settings"] for room in await store.unfinished_rooms()] == [{"rules": "chinese"}]
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        assert "settings" not in [column for _, column, *_ in db.execute("PRAGMA table_info(rooms)")]


async def test_a_sqlite_too_old_for_the_schema_is_one_sentence(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 34, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.34.1")
    with pytest.raises(StoreError) as info:
        await Store.open(str(tmp_path / "polygo.db"))
    assert info.value.code == "sqlite-too-old" and "3.34.1" in info.value.message
    assert not (tmp_path / "polygo.db").exists()
