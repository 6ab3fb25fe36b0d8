"""The store's exceptions, apart so that each database module can raise them too."""

from __future__ import annotations


class StoreError(Exception):
    """Every error the store raises. ``code`` is stable for programs; the message is for people.

    Codes: ``name-taken``, ``room-exists``, ``no-room``, ``stale-version``, ``bad-rescission``,
    ``bad-value``, ``commit-failed``, ``closed``, ``schema-too-new``, ``sqlite-too-old``; opening a PostgreSQL
    database also ``unreachable``, ``no-privilege`` and ``no-driver`` (asyncpg is not installed);
    ``migration-backup``, which the server raises when it cannot copy a SQLite file before
    migrating its schema (``app.Server.start``); and the ``Unavailable`` ones below.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"


class Unavailable(StoreError):
    """Nothing was written, and asking again later may work: the database cannot be reached now
    (``unavailable``), the node lost the room (``not-owner``) or all its rooms (``fenced``,
    ``lease.Fenced``). A client is answered ``unavailable`` with ``retry_after``."""

    def __init__(self, code: str, message: str, retry_after: float = 1.0) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


class StatementFailed(Exception):
    """The database refused one statement of a transaction. ``statement`` is its kind, the SQL's
    first word (``begin``, ``insert``, ``update``, ``delete``, ``select``, ``commit``), for the
    log's ``database-error`` event; the driver's exception is the cause and gives the message."""

    def __init__(self, sql: str, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.statement = sql.split(None, 1)[0].lower()
        self.__cause__ = cause
