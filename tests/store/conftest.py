"""Shared fixtures of the store tests: a real SQLite file in tmp_path, opened and closed around a test."""

from __future__ import annotations

import pytest

from server.store import Store


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "polygo.db")


@pytest.fixture
async def store(db_path):
    s = await Store.open(db_path)
    yield s
    await s.close()
