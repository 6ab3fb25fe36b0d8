"""The store's one exception, apart so that each database module can raise it too."""

from __future__ import annotations


class StoreError(Exception):
    """Every error the store raises. ``code`` is stable for programs; the message is for people.

    Codes: ``name-taken``, ``room-exists``, ``no-room``, ``stale-version``, ``bad-rescission``,
    ``bad-value``, ``commit-failed``, ``closed``, ``schema-too-new``; opening a PostgreSQL
    database also ``unreachable`` and ``no-driver`` (asyncpg is not installed); and
    ``migration-backup``, which the server raises when it cannot copy a SQLite file before
    migrating its schema (``app.Server.start``).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"
