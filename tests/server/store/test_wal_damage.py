"""A WAL damaged while no server ran (a server killed, then a byte of its WAL changed) would make
SQLite drop committed transactions without a word: the server says so loudly and keeps a copy of
the WAL; an intact WAL from a killed server says nothing."""

from __future__ import annotations

import dataclasses
import logging
import shutil

import pytest

from polygo.server.app import Server
from polygo.server.store.walcheck import FRAME_HEADER, HEADER, wal_damage


async def crashed_copy(config, tmp_path, players, seat) -> tuple[str, str]:
    """A database as a SIGKILL leaves it: copied with its WAL while the server runs, after 20 moves."""
    srv = await Server(dataclasses.replace(config, db=str(tmp_path / "live.db"))).start()
    try:
        black, white = await players(2, port=srv.port)
        room = await seat([black, white], {"rules": "chinese", "board": "9"})
        for i in range(10):
            assert (await black.move(room, f"A{i + 1}" if i < 9 else "B1", i + 1))["type"] == "ack"
            assert (await white.move(room, f"J{i + 1}" if i < 9 else "H1", i + 1))["type"] == "ack"
        copy = tmp_path / "copy.db"
        shutil.copyfile(tmp_path / "live.db", copy)
        shutil.copyfile(tmp_path / "live.db-wal", str(copy) + "-wal")
    finally:
        await srv.close()
    return str(copy), room


@pytest.mark.parametrize("damaged", [False, True])
async def test_a_damaged_wal_is_reported_and_kept(config, tmp_path, players, seat, caplog, damaged):
    db, room = await crashed_copy(config, tmp_path, players, seat)
    wal = bytearray(open(db + "-wal", "rb").read())
    page = int.from_bytes(wal[8:12], "big")
    if damaged:
        wal[HEADER + 2 * (FRAME_HEADER + page) + FRAME_HEADER + 50] ^= 0xFF     # the third frame's page
        open(db + "-wal", "wb").write(wal)
        assert wal_damage(bytes(wal)).lost_commits > 1
    with caplog.at_level(logging.WARNING, logger="polygo.lockfile"):
        srv = await Server(dataclasses.replace(config, db=db)).start()
        await srv.close()
    kept = list(tmp_path.glob("copy.db-wal.damaged-*"))
    if not damaged:
        assert "DAMAGED WAL" not in caplog.text and not kept
        return
    assert "DAMAGED WAL" in caplog.text and "will be ignored by SQLite" in caplog.text
    assert len(kept) == 1 and kept[0].read_bytes() == bytes(wal)
