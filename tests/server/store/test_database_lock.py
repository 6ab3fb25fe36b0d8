"""One server per database file, whatever name reaches it: a symbolic or a hard link to a database
in use is refused like the file's own name, and taken once the first server stopped."""

from __future__ import annotations

import dataclasses
import os

import pytest

from polygo.server.app import Server
from polygo.server.store.lockfile import DatabaseLock, LockError


@pytest.mark.parametrize("link", ["symbolic", "hard"])
async def test_a_link_to_a_database_in_use_is_refused(config, server, tmp_path, link):
    other = tmp_path / "elsewhere"
    other.mkdir()
    name = other / "alias.db"
    (os.symlink if link == "symbolic" else os.link)(server.config.db, name)
    with pytest.raises(LockError, match="in use by another polygo server"):
        await Server(dataclasses.replace(config, db=str(name))).start()
    assert not (other / "alias.db-wal").exists(), "the second server opened the database"
    await server.close()
    again = await Server(dataclasses.replace(config, db=str(name))).start()
    await again.close()


def test_the_lock_is_on_the_file_and_released(tmp_path):
    db = tmp_path / "fresh.db"
    first = DatabaseLock.acquire(str(db))
    assert db.exists() and db.stat().st_size == 0     # created empty: SQLite reads it as an empty database
    os.link(db, tmp_path / "linked.db")
    with pytest.raises(LockError, match="hard or symbolic link"):
        DatabaseLock.acquire(str(tmp_path / "linked.db"))
    first.release()
    DatabaseLock.acquire(str(tmp_path / "linked.db")).release()
