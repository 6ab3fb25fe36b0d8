"""Issue 16, item 4: a refused request must leave nothing behind. polygo-server raises the
collector's thresholds (collector.GC_THRESHOLDS), so anything a refusal keeps through a reference cycle (an exception's
traceback holding the frames that held the request) stays until a rare full collection; a flood of
refused `create`s with large boards grew a server by hundreds of megabytes."""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc

import pytest

POINTS = [f"p{i}" for i in range(4096)]
BIG_BOARD = {"points": POINTS, "edges": [[POINTS[i], POINTS[i + 1]] for i in range(0, 2400, 2)]}


@pytest.mark.slow
async def test_refused_creates_with_large_boards_do_not_pile_up_in_memory(make_server, connect_client, tmp_path):
    srv = await make_server(db=str(tmp_path / "refused.db"), rate=1e6, burst=1e6, create_rate=1e6,
                            read_rate=1e12)
    clients = [await connect_client(port=srv.port) for _ in range(4)]
    for i, client in enumerate(clients):
        await client.hello(f"flood{i}")
    frame = json.dumps({"type": "create", "settings": {"rules": "no-such-rules", "board": BIG_BOARD}})
    assert len(frame) < 64 * 1024

    async def flood(client, n: int) -> None:
        for _ in range(n):
            await client.send_raw(frame)
            reply = await client.reply()
            assert reply["code"] == "bad-settings", reply

    await flood(clients[0], 5)          # warm up caches
    gc.collect()
    gc.disable()        # what must hold: reference counting alone frees a refusal, no collection needed
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        await asyncio.gather(*(flood(c, 25) for c in clients))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        gc.enable()
    # 100 refusals of several hundred KB each in Python objects; kept, they would be tens of MB
    assert grown < 8 * 2**20, f"{grown / 2**20:.1f} MiB kept after 100 refused creates"
