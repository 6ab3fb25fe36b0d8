"""Shared fixtures of the store tests: every test runs on a real SQLite file in tmp_path and on a
new database in a real PostgreSQL cluster (tests/postgres.py); ``raw`` reaches either directly."""

from __future__ import annotations

import sqlite3

import pytest

from polygo.server.store import Store


class Raw:
    """SQL straight to the store's database, around the store: what the tests plant or inspect."""

    def __init__(self, dialect: str, target: str, cluster=None) -> None:
        self.dialect = dialect
        self.target = target
        self._cluster = cluster

    def execute(self, sql: str) -> None:
        self.values(sql)

    def values(self, sql: str) -> list[str]:
        """The first column of each row the statement returns, as text."""
        if self.dialect == "sqlite":
            with sqlite3.connect(self.target) as db:
                return [str(row[0]) for row in db.execute(sql).fetchall() if row]
        return [line.split("|")[0] for line in self._cluster.psql(sql, self.target.rsplit("/", 1)[1]).splitlines()
                if line]


@pytest.fixture(params=["sqlite", "postgres"])
def raw(request, tmp_path) -> Raw:
    if request.param == "sqlite":
        return Raw("sqlite", str(tmp_path / "polygo.db"))
    cluster = request.getfixturevalue("postgres")
    url = cluster.new_database()
    request.addfinalizer(lambda: cluster.drop_database(url))
    return Raw("postgres", url, cluster)


@pytest.fixture
def db(raw) -> str:
    """Where the store lives: a SQLite file or a postgresql:// URL."""
    return raw.target


@pytest.fixture
async def store(db):
    s = await Store.open(db)
    yield s
    await s.close()
