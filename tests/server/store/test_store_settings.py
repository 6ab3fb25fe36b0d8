"""A room's settings are written once, not with every change of the room: a graph board's settings
are tens of KiB, and SQLite writes a changed row whole."""

from __future__ import annotations

import os

from polygo.server.store import Store
from tests.lattices import triangular_lattice

MOVES = 20


async def test_a_move_on_a_large_graph_does_not_write_the_settings_again(tmp_path):
    path = str(tmp_path / "polygo.db")
    settings = {"rules": "chinese", "board": triangular_lattice(32)}     # 1,024 points, some 64 KiB
    store = await Store.open(path)
    try:
        await store.create_room("big", settings, owner="t", invite=None)
        before = os.path.getsize(path + "-wal")
        for version in range(1, MOVES + 1):
            clocks = {"seats": [{"main": 600 - version * 1.37}, {"main": 600.0}], "running": version % 2}
            await store.record("big", version, {"kind": "move", "move": "a1"}, move=(version % 2, "a1", version),
                               clocks=clocks)
        written = os.path.getsize(path + "-wal") - before
    finally:
        await store.close()
    # a move's commit writes the few pages its rows land on; the settings alone are 16 pages, and a
    # row whose length changed (its clocks' text) is written whole
    assert written / MOVES < 10 * 4096, f"{written / MOVES:.0f} bytes of WAL a move"
