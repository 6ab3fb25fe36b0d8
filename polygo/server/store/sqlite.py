"""The store's SQLite database: the writing connection on its thread, and a reading connection.

Writes go through one connection (the writer, ``writer.py``: a batch's rows stepped on the loop,
its COMMIT one trip to the writer's thread), reads through another (aiosqlite): a read never sees the uncommitted half of a batch,
and WAL lets it run while the writer commits. ``postgres.py`` is the same shape on PostgreSQL.
"""

from __future__ import annotations

from typing import Callable, Collection, Sequence

import aiosqlite

from .values import Step
from .writer import Writer


class SqliteDatabase:
    """One SQLite file, as the store uses it. Open with ``await SqliteDatabase.open(path, synchronous)``."""

    dialect = "sqlite"

    def __init__(self, writer: Writer, reader: aiosqlite.Connection) -> None:
        self._writer = writer
        self._reader = reader

    @classmethod
    async def open(cls, path: str, synchronous: str) -> SqliteDatabase:
        """Open (creating and migrating as needed) the file; raises SchemaTooNew for a newer schema."""
        writer = await Writer.open(path, synchronous)
        try:
            reader = await aiosqlite.connect(path, isolation_level=None)
        except BaseException:
            await writer.close()
            raise
        try:
            await reader.execute("PRAGMA query_only = 1")
            await reader.execute("PRAGMA busy_timeout = 5000")
        except BaseException:
            await reader.close()
            await writer.close()
            raise
        return cls(writer, reader)

    async def transaction(self, build: Callable[[set[str]], list[list[tuple[str, Sequence[tuple]]]]],
                          rooms: Collection[str] = (), steps: Callable[[set[str]], list[Step]] | None = None
                          ) -> tuple[set[str], list[BaseException | None]]:
        """``PostgresDatabase.transaction``'s shape; one server writes the file, so no room is refused."""
        refused: set[str] = set()
        return refused, await self._writer.transaction(build(refused), steps(refused) if steps else ())

    async def one(self, sql: str, params: tuple) -> tuple | None:
        async with self._reader.execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def all(self, sql: str, params: tuple) -> list[tuple]:
        return list(await self._reader.execute_fetchall(sql, params))

    async def close(self) -> None:
        await self._writer.close()
        await self._reader.close()
