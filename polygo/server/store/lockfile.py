"""One server per database file: an exclusive lock on the database file itself and on `<db>.lock`
beside the file a symbolic link leads to, held for the server's life, and a check that the
database's WAL and shared-memory files are writable before SQLite maps them.

The store assumes it is the only writer (it keeps each room's version in memory): two servers on
one file would both run, and a room resumed by both would get stuck. A lock on `<db>.lock` named
by the path as given would let a second server in through a symbolic link or a hard link (each
with a WAL of its own beside its name, and the second one's acknowledged moves lost at the next
start). The lock on the file itself holds for every name of it. `flock` is released by
the kernel when the process dies, however it dies, so a killed server never leaves a stale lock
behind; the `.lock` file keeps the holder's pid for the error message only.

SQLite locks the database with POSIX (fcntl) locks, which `flock` does not touch on a local
filesystem; closing any descriptor of the file drops a process's POSIX locks, so the descriptor
locked here stays open until the store is closed (`release`). On NFS, Linux emulates `flock` with
POSIX locks; SQLite's documentation advises against a database on NFS anyway.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import time
from typing import Callable

from .walcheck import wal_damage

log = logging.getLogger("polygo.lockfile")


class LockError(Exception):
    """The database's lock is held by another process, or cannot be taken."""


class DatabaseLock:
    """`DatabaseLock.acquire(db)`, later `release()`."""

    def __init__(self, fd: int | None, database_fd: int | None = None) -> None:
        self._fd = fd
        self._database_fd = database_fd

    @classmethod
    def acquire(cls, db: str) -> DatabaseLock:
        """Lock `db` for this process, or LockError naming the holder; in-memory databases need none."""
        if db == ":memory:" or db.startswith("file::memory:"):
            return cls(None)
        path = os.path.realpath(db) + ".lock"
        fd = _flocked(path, os.O_RDWR, f"database {db}: cannot open its lock file {path}", lambda held: (
            f"database {db} is in use by another polygo server (pid {_holder(held)}, lock {path}); "
            f"stop it first, or give this one another --db"))
        database_fd = None
        try:
            if not db.startswith("file:"):     # the file itself, created empty if missing (SQLite reads it so)
                database_fd = _flocked(db, os.O_RDONLY, f"database {db}: cannot open it", lambda _: (
                    f"database {db} is in use by another polygo server under another name (a hard or "
                    f"symbolic link to the same file); stop it first, or give this one another --db"))
            _check_writable(db)
            _check_wal(db)
        except BaseException:
            for held in (fd, database_fd):
                if held is not None:
                    os.close(held)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return cls(fd, database_fd)

    def release(self) -> None:
        """Drop the locks (after the store closed the database: see the module's note)."""
        for fd in (self._database_fd, self._fd):
            if fd is not None:
                os.close(fd)        # closing the descriptor releases the flock
        self._fd = self._database_fd = None


def _flocked(path: str, mode: int, cannot: str, busy: Callable[[int], str]) -> int:
    """The descriptor of `path` (created if missing) under an exclusive flock, or LockError: the
    sentence `cannot` and the system's reason when it cannot be opened, `busy(descriptor)`'s
    sentence when another process holds the lock."""
    try:
        fd = os.open(path, mode | os.O_CREAT, 0o644)
    except OSError as exc:
        raise LockError(f"{cannot}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sentence = busy(fd)
        os.close(fd)
        raise LockError(sentence) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _holder(fd: int) -> str:
    """The pid the lock file's holder wrote in it."""
    return os.read(fd, 32).decode(errors="replace").strip() or "?"


def _check_writable(db: str) -> None:
    """LockError if the database's WAL or shared-memory file, left by an earlier server, cannot be
    opened for writing (a `chmod`, an immutable flag, another owner). SQLite would map a read-only
    `-shm` and fail later; checked here, under the lock, no server is using the files."""
    for path in (db + "-shm", db + "-wal"):
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise LockError(f"database {db}: {path} is not writable by this process (uid {os.getuid()}): "
                            f"{exc.strerror}; make it writable, or remove it (no polygo server uses this "
                            f"database now)") from None
        os.close(fd)


def _check_wal(db: str) -> None:
    """Before SQLite replays the WAL a dead server left: if damage in it will make SQLite ignore
    committed transactions (polygo/server/store/walcheck.py), say so loudly and keep a copy of the WAL beside
    it (`<db>-wal.damaged-<unix time>`), which holds the lost frames for a recovery by hand; the
    server then starts on what SQLite can read."""
    path = db + "-wal"
    try:
        with open(path, "rb") as wal:
            data = wal.read()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise LockError(f"database {db}: cannot read {path}: {exc.strerror}") from None
    damage = wal_damage(data)
    if damage is None:
        return
    kept = f"{path}.damaged-{int(time.time())}"
    shutil.copyfile(path, kept)
    log.critical("DAMAGED WAL: %s; a copy is kept as %s", damage.sentence(path), kept)
