"""A SQLite file of an older schema is copied (a checked backup) beside itself before the server
migrates it, unless the operator says not to; `polygo-server --version` names the build."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys

import pytest

from polygo.protocol.names import skeleton
from polygo.server import VERSION
from polygo.server.app import Server
from polygo.server.store.backup import BackupError
from polygo.server.config import parse_config
from polygo.server.store.schema import SCHEMA_VERSION, SQLITE_MIGRATIONS
from polygo.server.store import StoreError


def old_database(path, version: int = SCHEMA_VERSION - 1) -> None:
    """A database as polygo left it at schema `version`, with one registered user."""
    db = sqlite3.connect(path, isolation_level=None)
    db.create_function("name_skeleton", 1, skeleton, deterministic=True)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for statements in SQLITE_MIGRATIONS[:version]:
        for sql in statements:
            db.execute(sql)
    db.execute("INSERT INTO schema_version VALUES (?)", (version,))
    db.execute("INSERT INTO users (name, password_hash, created_at, skeleton) VALUES ('ann', 'x', 0, 'ann')")
    db.close()


def schema_of(path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT version FROM schema_version").fetchone()[0]
    finally:
        db.close()


async def test_an_older_schema_is_backed_up_before_it_is_migrated(config, tmp_path):
    path = tmp_path / "old.db"
    old_database(path)
    srv = await Server(dataclasses.replace(config, db=str(path))).start()
    await srv.close()
    copies = list(tmp_path.glob(f"old.db.schema-{SCHEMA_VERSION - 1}-*.db"))
    assert len(copies) == 1
    assert schema_of(copies[0]) == SCHEMA_VERSION - 1 and schema_of(path) == SCHEMA_VERSION
    db = sqlite3.connect(copies[0])
    assert db.execute("SELECT name FROM users").fetchall() == [("ann",)]
    db.close()
    srv = await Server(dataclasses.replace(config, db=str(path))).start()   # current now: no second copy
    await srv.close()
    assert len(list(tmp_path.glob("old.db.schema-*"))) == 1


async def test_no_copy_when_told_not_to_or_when_there_is_nothing_to_migrate(config, tmp_path):
    path = tmp_path / "old.db"
    old_database(path)
    srv = await Server(dataclasses.replace(config, db=str(path), migration_backup=False)).start()
    await srv.close()
    fresh = await Server(dataclasses.replace(config, db=str(tmp_path / "new.db"))).start()
    await fresh.close()
    assert schema_of(path) == SCHEMA_VERSION
    assert not list(tmp_path.glob("*.schema-*"))


async def test_a_copy_that_cannot_be_made_stops_the_start(config, tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    old_database(path)

    def full_disk(db):
        raise BackupError("writing the copy failed: [Errno 28] No space left on device")

    monkeypatch.setattr("polygo.server.app.before_migration", full_disk)
    with pytest.raises(StoreError, match="--no-migration-backup"):
        await Server(dataclasses.replace(config, db=str(path))).start()
    assert schema_of(path) == SCHEMA_VERSION - 1


def test_the_flag_and_its_variable():
    assert parse_config([], {}).migration_backup is True
    assert parse_config(["--no-migration-backup"], {}).migration_backup is False
    assert parse_config([], {"POLYGO_MIGRATION_BACKUP": "0"}).migration_backup is False


def test_version():
    done = subprocess.run([sys.executable, "-m", "polygo.server", "--version"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == f"polygo-server {VERSION}"
