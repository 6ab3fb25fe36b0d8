"""Idle connections benchmark: how much memory one connected, hello'd, idle client costs polygo.

Starts polygo in its own process, opens N websocket connections from this one (each says hello
and then idles), and reads the server's resident memory (VmRSS) before and after. The open-files
limit is raised to its hard limit here (the server inherits it). Loopback only, bounded.

    python bench/server_connections.py              # 10,000 connections
    python bench/server_connections.py --connections 2000
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from polygo.protocol import PROTOCOL_VERSION  # noqa: E402

SERVER = """
import logging, sys
sys.path.insert(0, {root!r})
from polygo.server.app import run_sync
from polygo.server.config import Config
logging.basicConfig(level="WARNING")
run_sync(Config(port={port}, db={db!r}, connections_per_address=10**6))
"""
"""polygo as `polygo-server` runs it: on uvloop when it is installed."""


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def open_one(port: int, i: int):
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.msgpack"], compression=None,
                       ping_interval=None, open_timeout=60)
    await ws.send(msgpack.packb({"type": "hello", "protocol": PROTOCOL_VERSION, "name": f"idle{i}"}))
    reply = msgpack.unpackb(await ws.recv(), raw=False)
    assert reply["type"] == "welcome", reply
    return ws


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=250)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.connections + 200
    if hard < needed:
        sys.exit(f"the open-files hard limit is {hard}; {needed} are needed")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-c", SERVER.format(root=str(ROOT), port=port, db=f"{tmp}/c.db")])
        try:
            for _ in range(400):
                try:
                    (await open_one(port, -1)).transport.abort()
                    break
                except (OSError, InvalidStatus):   # not listening yet, or 503 while it starts
                    await asyncio.sleep(0.025)
            await asyncio.sleep(0.5)
            before = rss_kib(proc.pid)
            began = time.perf_counter()
            clients = []
            for start in range(0, args.connections, args.batch):
                count = min(args.batch, args.connections - start)
                clients += await asyncio.gather(*(open_one(port, start + i) for i in range(count)))
            opened = time.perf_counter() - began
            await asyncio.sleep(2)
            after = rss_kib(proc.pid)
            per = (after - before) / args.connections
            print(f"connections: {len(clients)} opened and hello'd in {opened:.1f} s")
            print(f"server RSS: {before / 1024:.1f} MiB idle -> {after / 1024:.1f} MiB with them: "
                  f"{per:.1f} KiB per connection (session, websocket, buffers)")
            for ws in clients:
                ws.transport.abort()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    asyncio.run(main())
