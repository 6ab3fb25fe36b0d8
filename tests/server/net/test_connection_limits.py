"""Issue 16, item 5: connections are bounded per address and in total, below the descriptor limit,
and refused with a 503 the client can read rather than left to exhaust the process's descriptors."""

from __future__ import annotations

import asyncio
import resource
import subprocess

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidMessage, InvalidStatus

from polygo.server.net.gate import AcceptErrorLimiter


async def test_connections_are_bounded_per_address(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "gate.db"), connections_per_address=2)
    url = f"ws://127.0.0.1:{srv.port}/"
    first, second = await connect(url), await connect(url)
    with pytest.raises(InvalidStatus) as refused:
        await connect(url)
    assert refused.value.response.status_code == 503
    assert b"from your address" in refused.value.response.body
    assert refused.value.response.headers["Retry-After"] == "5"
    await first.close()
    for _ in range(100):                           # the server sees the close a moment later
        if srv.gate.open < 2:
            break
        await asyncio.sleep(0.02)
    third = await connect(url)
    await second.close()
    await third.close()


def _few_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (160, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


async def test_at_the_descriptor_limit_connections_are_refused_politely(spawn_server, tmp_path, port):
    proc = await spawn_server(tmp_path / "fds.db", port, env={"POLYGO_CONNECTIONS_PER_ADDRESS": "10000"},
                              preexec_fn=_few_descriptors, stderr=subprocess.PIPE)
    url = f"ws://127.0.0.1:{port}/"
    held, refused, dropped = [], 0, 0
    for _ in range(200):                          # 160 descriptors: 96 for connections, 64 kept back
        try:
            held.append(await connect(url, open_timeout=3))
        except InvalidStatus as exc:
            assert exc.response.status_code == 503 and b"limit" in exc.response.body
            refused += 1
        except InvalidMessage:                    # beyond 50 refusals a second (after 100), dropped unanswered
            dropped += 1
    assert len(held) == 96 and refused + dropped == 104 and refused >= 100
    for ws in held:
        await ws.close()
    await asyncio.sleep(0.2)
    again = await connect(url, open_timeout=3)      # served again once they are gone
    await again.close()
    proc.terminate()
    _, err = await asyncio.to_thread(proc.communicate, timeout=30)
    assert proc.returncode == 0
    assert b"out of system resource" not in err and len(err.splitlines()) < 20, err[-2000:]


def test_the_accept_error_line_is_rate_limited(caplog):
    limiter = AcceptErrorLimiter(every=3600)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(10_000):
            limiter(loop, {"message": "socket.accept() out of system resource", "exception": OSError(24, "EMFILE")})
    finally:
        loop.close()
    assert len([r for r in caplog.records if "out of system resource" in r.getMessage()]) == 1
