"""Issue 16, items 6 and 9: a start that fails exits with a non-zero status and one clear line
(also after the database opened), and a second server on the same database file is refused."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.app import Server
from polygo.server.store.lockfile import LockError

from .conftest import ROOT, free_port


def start(db, port) -> subprocess.CompletedProcess:
    """`python -m polygo.server` on `db`; it must exit by itself (it cannot start)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING")
    return subprocess.run([sys.executable, "-m", "polygo.server", "--port", str(port), "--db", str(db)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)


async def make_db(spawn_server, db, port) -> None:
    proc = await spawn_server(db, port)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(proc.wait, 30) == 0


async def test_a_newer_schema_is_one_clear_line(spawn_server, tmp_path, port):
    db = tmp_path / "new.db"
    await make_db(spawn_server, db, port)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE schema_version SET version = 99")
    done = await asyncio.to_thread(start, db, port)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "schema version 99" in lines[0] and "Upgrade polygo" in lines[0], done.stderr


async def test_a_broken_database_after_it_opened_exits_non_zero(spawn_server, tmp_path, port):
    """A table the start reads (the seats of unfinished rooms; the moves are read only when a game
    is brought back) is missing."""
    db = tmp_path / "broken.db"
    await make_db(spawn_server, db, port)
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE seats")
    done = await asyncio.to_thread(start, db, port)
    assert done.returncode == 1 and "no such table: seats" in done.stderr and "Traceback" not in done.stderr


async def test_a_second_server_on_one_database_is_refused(spawn_server, tmp_path, port):
    db = tmp_path / "shared.db"
    first = await spawn_server(db, port)
    done = await asyncio.to_thread(start, db, free_port())
    assert done.returncode == 1
    assert f"in use by another polygo server (pid {first.pid}" in done.stderr and "Traceback" not in done.stderr
    first.kill()                                   # the kernel drops the lock with the process
    first.wait()
    again = await spawn_server(db, free_port())
    again.terminate()
    assert await asyncio.to_thread(again.wait, 30) == 0


async def test_in_process_too(config, server):
    with pytest.raises(LockError):
        await Server(dataclasses.replace(config, db=server.config.db)).start()


def write_protect(path) -> None:
    """Make `path` unwritable for the user running the tests (root ignores a chmod)."""
    if os.getuid() != 0:
        path.chmod(0o444)
    elif subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root on a file system without chattr +i: nothing write-protects a file")


async def test_a_write_protected_shm_file_is_one_clear_line(spawn_server, tmp_path, port):
    """Issue 16, item 12: the -shm of a killed server, write-protected, is named in one line."""
    db = tmp_path / "shm.db"
    proc = await spawn_server(db, port)
    proc.kill()
    proc.wait()
    shm = tmp_path / "shm.db-shm"
    write_protect(shm)
    try:
        done = await asyncio.to_thread(start, db, port)
    finally:
        subprocess.run(["chattr", "-i", str(shm)], capture_output=True)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert f"{shm} is not writable by this process" in lines[0]


async def test_a_shm_file_truncated_under_a_running_server_leaves_its_stacks(spawn_server, tmp_path, port):
    """SQLite maps the -shm: truncated under it, the next access is a SIGBUS inside SQLite's C code,
    which no Python handler can survive. The process dies (non-zero) and says where, on stderr."""
    db = tmp_path / "bus.db"
    proc = await spawn_server(db, port, stderr=subprocess.PIPE)
    os.truncate(tmp_path / "bus.db-shm", 0)
    try:
        async with connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.json"]) as ws:
            for i in range(3):
                await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "name": f"p{i}"}))
                await ws.recv()
    except (OSError, ConnectionClosed):
        pass
    assert await asyncio.to_thread(proc.wait, 30) == -signal.SIGBUS
    stderr = proc.stderr.read().decode()
    assert "Fatal Python error: Bus error" in stderr and "sqlite" in stderr.lower(), stderr
