"""`polygo-server backup`: a copy of a database being written holds exactly a committed state
and passes the integrity check; a quiet database is copied row for row; a copy restores (a server
started on it resumes the games); and every failure is a non-zero exit with a sentence."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.app import Server
from polygo.server.store.backup import backup

ROOT = Path(__file__).resolve().parents[3]
BLACK = [f"{c}{r}" for c in "ABCD" for r in range(1, 10)]
WHITE = [f"{c}{r}" for c in "JHGF" for r in range(1, 10)]
TABLES = ("schema_version", "users", "sessions", "rooms", "room_settings", "seats", "moves", "events", "results")


def rows(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows, in key order (numbers as numbers)."""
    def key(row: tuple) -> tuple:
        return tuple((0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v)) for v in row)
    with sqlite3.connect(path) as con:
        return {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=key) for t in TABLES}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polygo.server", "backup", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


async def play_on(black, white, room: str, stop: asyncio.Event) -> int:
    for i in range(len(BLACK)):
        for client, moves in ((black, BLACK), (white, WHITE)):
            if stop.is_set():
                return i
            assert (await client.move(room, moves[i], i + 1))["type"] == "ack"
    return len(BLACK)


async def test_a_backup_of_a_database_being_written_is_a_committed_state(tmp_path, server, players, seat):
    tables = []
    for _ in range(3):
        black, white = await players(2)
        tables.append((black, white, await seat([black, white], {"rules": "chinese", "board": "9"})))
    stop = asyncio.Event()
    games = [asyncio.create_task(play_on(b, w, r, stop)) for b, w, r in tables]
    while server.store.stats.writes < 30:           # the games are well under way
        await asyncio.sleep(0.01)
    copy = await asyncio.to_thread(backup, server.config.db, tmp_path / "copy.db")
    written_during = server.store.stats.writes
    stop.set()
    await asyncio.gather(*games)
    assert server.store.stats.writes > 30 and written_during > 30

    with sqlite3.connect(copy.path) as con:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    taken, final = rows(copy.path), rows(Path(server.config.db))
    assert copy.moves == len(taken["moves"]) > 0 and copy.rooms == len(taken["rooms"]) == 3
    for table in ("users", "sessions", "seats", "schema_version"):
        assert set(taken[table]) <= set(final[table])
    versions = {room_id: version for room_id, _, _, version, *_ in taken["rooms"]}
    for _, _, room in tables:
        moves = [m for m in taken["moves"] if m[0] == room]
        events = [e for e in taken["events"] if e[0] == room]
        assert moves == [m for m in final["moves"] if m[0] == room][:len(moves)]       # a prefix
        assert events == [e for e in final["events"] if e[0] == room][:len(events)]
        # one transaction's worth: the room row, its events and its moves agree on the version
        assert [e[1] for e in events] == list(range(1, versions[room] + 1))
        assert all(m[5] <= versions[room] for m in moves)
        assert {m[5] for m in moves} <= {e[1] for e in events if '"kind":"move"' in e[2]}


async def test_a_quiet_database_is_copied_row_for_row_and_restores(tmp_path, config, server, players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "fischer:600+10"})
    for i, move in enumerate(["E5", "C3", "G7"]):
        assert (await (black, white)[i % 2].move(room, move, i // 2 + 1))["type"] == "ack"
    done = cli(str(tmp_path / "quiet.db"), "--db", server.config.db)     # the server is running, idle
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"backup {tmp_path / 'quiet.db'}: ") and "1 rooms, 3 moves, integrity ok" in done.stdout
    assert rows(tmp_path / "quiet.db") == rows(Path(server.config.db))

    restored = tmp_path / "restored" / "polygo.db"                # the documented restore: copy, start
    restored.parent.mkdir()
    shutil.copy(tmp_path / "quiet.db", restored)
    srv = await Server(dataclasses.replace(config, db=str(restored))).start()
    try:
        (again,) = await players(1, port=srv.port)
        welcome = await again.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
        assert welcome["seats"] == [{"room": room, "seat": 1, "last_seq": 1}]   # the restored copy kept seq -> version
        snapshot = await again.ok("watch", room=room)
        assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3", "G7"]
        assert (await again.move(room, "C7", 2))["type"] == "ack"
    finally:
        await srv.close()


def test_into_a_directory_with_keep_only_the_newest_copies_stay(tmp_path):
    db = tmp_path / "polygo.db"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE schema_version (version INTEGER); INSERT INTO schema_version VALUES (1);"
                          "CREATE TABLE rooms (x); CREATE TABLE moves (x);")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "notes.txt").write_text("not a backup")
    made = [backup(db, shelf, keep=2, now=datetime(2026, 1, day, 3, 0, tzinfo=timezone.utc)).path.name
            for day in (1, 2, 3)]
    assert made == ["polygo-20260101T030000Z.db", "polygo-20260102T030000Z.db", "polygo-20260103T030000Z.db"]
    assert sorted(p.name for p in shelf.iterdir()) == ["notes.txt", *made[1:]]
    done = cli(str(shelf), "--db", str(db), "--keep", "1")
    assert done.returncode == 0 and "removed 2 older copies" in done.stdout
    assert len([p for p in shelf.iterdir() if p.name.startswith("polygo-")]) == 1


@pytest.mark.slow
def test_failures_are_a_nonzero_exit_and_a_sentence(tmp_path):
    def fails(*args: str) -> str:
        done = cli(*args)
        assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("polygo-server backup: error: ")
        return done.stderr

    assert "there is no database at" in fails(str(tmp_path / "b.db"), "--db", str(tmp_path / "none.db"))
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    assert "not a polygo database" in fails(str(tmp_path / "b.db"), "--db", str(empty))
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not SQLite at all" * 100)
    assert "file is not a database" in fails(str(tmp_path / "b.db"), "--db", str(garbage))
    assert "exists; a backup never overwrites" in fails(str(garbage), "--db", str(empty))
    assert "--keep needs a directory" in fails(str(tmp_path / "c.db"), "--db", str(empty), "--keep", "3")
    assert "does not exist" in fails(str(tmp_path / "no" / "c.db"), "--db", str(empty))
    assert not any(p.name.endswith(".partial") or p.name in ("b.db", "c.db") for p in tmp_path.iterdir())


def test_a_corrupt_database_is_refused_and_no_copy_is_kept(tmp_path):
    db = tmp_path / "polygo.db"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE schema_version (version INTEGER); INSERT INTO schema_version VALUES (1);"
                          "CREATE TABLE rooms (x); CREATE TABLE moves (x TEXT);")
        con.executemany("INSERT INTO moves VALUES (?)", [("m" * 200,)] * 2000)
    data = bytearray(db.read_bytes())
    data[4096 * 3:4096 * 3 + 64] = b"\xff" * 64           # scribble over a b-tree page's header
    db.write_bytes(bytes(data))
    done = cli(str(tmp_path / "copy.db"), "--db", str(db))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "malformed" in done.stderr or "integrity check" in done.stderr
    assert not (tmp_path / "copy.db").exists()
