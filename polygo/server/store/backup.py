"""`polygo-server backup PATH`: a consistent copy of a live database, checked before it is kept.

`VACUUM INTO` copies the database as of one read transaction: in WAL mode the server goes on
committing while it runs (a reader never blocks the writer), and the copy holds exactly the
transactions committed when it began, compacted. The sqlite3 shell's `.backup` (the online
backup API) starts over whenever another connection writes the source, so under load it may
never finish (`bench/server_ops.py`, docs/performance.md). The copy is written beside its final
name, then opened read-only for `PRAGMA integrity_check` and a look at the schema, and only then
renamed into place: a file named like a backup is always a checked one. With a directory as
PATH the copy gets a UTC time stamp for a name and `--keep N` removes all but the newest N such
copies, which is what the systemd timer runs.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence
from urllib.parse import quote

from ..ops.flags import checked_number
from .postgres import is_postgres
from .schema import SCHEMA_VERSION

STAMPED = re.compile(r"^polygo-\d{8}T\d{6}Z\.db$")
"""The names of the copies `backup DIR` makes, and the only files `--keep` ever removes."""


class BackupError(Exception):
    """Why no backup was kept; the message is for the operator."""


@dataclass(frozen=True)
class Backup:
    """A kept copy and what was checked in it."""

    path: Path
    size: int
    rooms: int
    moves: int
    seconds: float
    removed: tuple[Path, ...] = ()


def backup(db: str | os.PathLike[str], target: str | os.PathLike[str], *, keep: int | None = None,
           now: datetime | None = None) -> Backup:
    """Copy the database `db` to `target` (a new file, or a directory for a time-stamped copy)."""
    started = time.monotonic()
    if is_postgres(str(db)):
        raise BackupError("a PostgreSQL database is backed up with PostgreSQL's own tools (pg_dump, or "
                          "pg_basebackup with WAL archiving), not polygo-server backup; see docs/cluster.md")
    source = Path(db)
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    target = Path(target)
    if target.is_dir():
        stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
        dest = target / f"polygo-{stamp}.db"
    elif keep is not None:
        raise BackupError(f"--keep needs a directory to keep copies in; {target} is not one")
    else:
        dest = target
    if dest.exists():
        raise BackupError(f"{dest} exists; a backup never overwrites a file")
    if not dest.parent.is_dir():
        raise BackupError(f"the directory {dest.parent} does not exist")
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        _copy(source, partial)
        rooms, moves = _check(partial)
        _sync(partial)
        os.replace(partial, dest)
        _sync(dest.parent)
    except sqlite3.Error as exc:
        raise BackupError(f"copying {source} to {dest} failed: {exc}") from None
    except OSError as exc:
        raise BackupError(f"writing {dest} failed: {exc}") from None
    finally:
        partial.unlink(missing_ok=True)
    removed = _prune(dest.parent, keep) if keep is not None else ()
    return Backup(dest, dest.stat().st_size, rooms, moves, time.monotonic() - started, removed)


def before_migration(db: str | os.PathLike[str], now: datetime | None = None) -> Backup | None:
    """A checked copy of the SQLite file `db` beside it, if it holds an older schema than this
    version's, which opening it will migrate: `DB.schema-N-<UTC time>.db` (N its schema version).
    None when there is nothing to migrate (no file yet, or its schema is current). A migration
    cannot be undone by running the older polygo on the file: the copy is the way back."""
    source = Path(db)
    if is_postgres(str(db)) or not source.is_file():
        return None
    try:
        check = _readonly(source)
        try:
            row = check.execute("SELECT version FROM schema_version").fetchone()
        finally:
            check.close()
    except sqlite3.Error:
        return None     # not a polygo database (or an empty file): the store says so when it opens it
    if row is None or row[0] >= SCHEMA_VERSION:
        return None
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    return backup(source, source.with_name(f"{source.name}.schema-{row[0]}-{stamp}.db"))


def last_backup(directory: str | os.PathLike[str]) -> float:
    """The Unix time of the newest copy `backup DIR` kept in `directory` (read from its name,
    which only a checked copy ever gets), or 0.0 when there is none (or no such directory)."""
    try:
        names = [entry.name for entry in os.scandir(directory) if STAMPED.match(entry.name)]
    except OSError:
        return 0.0
    if not names:
        return 0.0
    stamp = max(names)[len("polygo-"):-len(".db")]
    return datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc).timestamp()


def _readonly(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, isolation_level=None)


def _copy(source: Path, partial: Path) -> None:
    db = _readonly(source)
    try:
        db.execute("PRAGMA busy_timeout = 10000")
        db.execute("VACUUM INTO ?", (str(partial),))
    finally:
        db.close()


def _check(copy: Path) -> tuple[int, int]:
    """The copy passes `PRAGMA integrity_check` and holds a polygo schema this version reads."""
    db = _readonly(copy)
    try:
        problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise BackupError("the copy fails the integrity check: " + "; ".join(problems[:5]))
        try:
            (version,) = db.execute("SELECT version FROM schema_version").fetchone()
            (rooms,) = db.execute("SELECT count(*) FROM rooms").fetchone()
            (moves,) = db.execute("SELECT count(*) FROM moves").fetchone()
        except (sqlite3.Error, TypeError):
            raise BackupError("the source is not a polygo database (no schema_version, rooms or moves)") from None
        if version > SCHEMA_VERSION:
            raise BackupError(f"the database has schema version {version}; this polygo knows up to "
                              f"{SCHEMA_VERSION}")
        return rooms, moves
    finally:
        db.close()


def _sync(path: Path) -> None:
    """fsync a file or a directory, so the rename is durable before we report success."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _prune(directory: Path, keep: int) -> tuple[Path, ...]:
    copies = sorted(p for p in directory.iterdir() if STAMPED.match(p.name) and p.is_file())
    doomed = copies[:-keep] if keep else copies
    for path in doomed:
        path.unlink()
    return tuple(doomed)


def main(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """`polygo-server backup PATH [--db FILE] [--keep N]`; prints one line, returns the exit status."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(
        prog="polygo-server backup",
        description="Copy a polygo database (it may be in use) with VACUUM INTO, check the copy with "
                    "PRAGMA integrity_check, and keep it only if it passes.")
    parser.add_argument("path", help="the new file, or a directory for a copy named polygo-<UTC time>.db")
    parser.add_argument("--db", default=env.get("POLYGO_DB", "polygo.db"),
                        help="the database to copy (POLYGO_DB, default %(default)s)")
    parser.add_argument("--keep", type=_count, metavar="N",
                        help="with a directory: then remove all but the newest N copies in it")
    args = parser.parse_args(argv)
    try:
        done = backup(args.db, args.path, keep=args.keep)
    except BackupError as exc:
        print(f"polygo-server backup: error: {exc}", file=sys.stderr)
        return 1
    print(f"backup {done.path}: {done.size} bytes, {done.rooms} rooms, {done.moves} moves, integrity ok, "
          f"{done.seconds:.2f} s" + (f"; removed {len(done.removed)} older copies" if done.removed else ""))
    return 0


def _count(text: str) -> int:
    return checked_number(text, int, "--keep", lambda v: v >= 1, "at least 1")
