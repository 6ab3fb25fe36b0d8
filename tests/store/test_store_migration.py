"""The store creates its schema in an empty database, records its version, and refuses a newer schema."""

from __future__ import annotations

import sqlite3

import pytest

from server.store import SCHEMA_VERSION, Store, StoreError

TABLES = {"schema_version", "users", "sessions", "rooms", "seats", "moves", "events", "results"}


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
    assert tables(raw) == (TABLES if raw.dialect == "sqlite" else TABLES | {"nodes"})
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
