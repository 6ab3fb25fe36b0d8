"""Starting a local polygo server for `polygo play` when none answers on this machine.

The server runs as a subprocess (`python -m polygo.server`), never imported: polygo.client and server do not
depend on each other. It runs under `polygo.client.server_guard`, which stops it when the client dies
in any way (even `kill -9`), so no server is left behind as an orphan. Its database lives beside
the session tokens (POLYGO_HOME), so a game started against a local server is resumed by running
`polygo play` again (which starts a server again; a server already answering is used as it is).
`polygo export` reads the games of that database the same way: the server it starts answers the
export and stops (the client never opens the database itself: it does not import sqlite3).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from urllib.parse import urlparse

from polygo.client.connection import Connection
from polygo.client.errors import ConnectionFailed

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
START_WAIT = 10.0


def is_local(url: str) -> bool:
    return (urlparse(url).hostname or "") in LOCAL_HOSTS


async def reachable(url: str) -> bool:
    try:
        conn = await Connection.open(url, timeout=2.0)
    except ConnectionFailed:
        return False
    await conn.close()
    return True


async def start_local_server(url: str, home: Path) -> asyncio.subprocess.Process:
    """Start `python -m polygo.server` on the URL's port with its database in `home`; wait until it answers.

    `-P` keeps the current folder off the module path, so a user's own `polygo/` there cannot
    run in our place."""
    parsed = urlparse(url)
    port = parsed.port or 8765
    home.mkdir(parents=True, exist_ok=True)
    log = open(home / "server.log", "ab")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-P", "-m", "polygo.client.server_guard",
        sys.executable, "-P", "-m", "polygo.server", "--host", parsed.hostname or "127.0.0.1", "--port", str(port),
        "--db", str(home / "local.db"), "--log-level", "WARNING",
        stdin=asyncio.subprocess.PIPE, stdout=log, stderr=log,
    )
    log.close()
    deadline = asyncio.get_running_loop().time() + START_WAIT
    while asyncio.get_running_loop().time() < deadline:
        if process.returncode is not None:
            break
        if await reachable(url):
            return process
        await asyncio.sleep(0.1)
    if process.returncode is None:
        process.terminate()
        await process.wait()
    raise ConnectionFailed(f"could not start a local server on {url}; see {home / 'server.log'}")


async def stop_local_server(process: asyncio.subprocess.Process) -> None:
    """Stop the guard, which stops the server (it waits for the server's last commits)."""
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 15.0)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()


@contextlib.asynccontextmanager
async def local_server(url: str, home: Path, say: Callable[[str], None], *,
                       only_with_games: bool = False) -> AsyncIterator[None]:
    """Run the block with a server at `url`: the one that answers there, or, for a URL of this
    machine, a local one started for the block on `home`'s database and stopped after it.
    `only_with_games`: start none when that database does not exist (nothing to read from it)."""
    server = None
    database = home / "local.db"
    if is_local(url) and not (only_with_games and not database.exists()) and not await reachable(url):
        say(f"no server at {url}; starting a local one (database {database})")
        server = await start_local_server(url, home)
    try:
        yield
    finally:
        if server is not None:
            await stop_local_server(server)
