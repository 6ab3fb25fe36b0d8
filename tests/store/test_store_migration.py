"""The store creates its schema in an empty file, records its version, and refuses a newer schema."""

from __future__ import annotations

import sqlite3

import pytest

from server.store import SCHEMA_VERSION, Store, StoreError

TABLES = {"schema_version", "users", "sessions", "rooms", "seats", "moves", "events", "results"}


def tables(path: str) -> set[str]:
    with sqlite3.connect(path) as db:
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def schema_version(path: str) -> list[tuple[int]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT version FROM schema_version").fetchall()


async def test_an_empty_file_gets_the_whole_schema(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    store = await Store.open(str(path))
    await store.close()
    assert tables(str(path)) == TABLES
    assert schema_version(str(path)) == [(SCHEMA_VERSION,)]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_reopening_migrates_nothing_and_keeps_the_data(db_path):
    store = await Store.open(db_path)
    await store.put_user("ann", "h")
    await store.close()
    store = await Store.open(db_path)
    assert await store.get_user("ann") == {"name": "ann", "password_hash": "h"}
    await store.close()
    assert schema_version(db_path) == [(SCHEMA_VERSION,)]


async def test_a_newer_schema_is_refused_and_left_alone(db_path):
    store = await Store.open(db_path)
    await store.close()
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError) as info:
        await Store.open(db_path)
    assert info.value.code == "schema-too-new" and "99" in str(info.value)
    assert schema_version(db_path) == [(99,)]


async def test_bad_options_are_refused(db_path):
    for options in ({"synchronous": "OFF"}, {"group_window": -1}, {"max_batch": 0}):
        with pytest.raises(StoreError) as info:
            await Store.open(db_path, **options)
        assert info.value.code == "bad-value"
