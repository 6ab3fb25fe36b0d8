"""`polygo play` starts its local server by module path in the user's current folder: a folder
of the user's own named like ours (`polygo/server/__main__.py`) must not run instead."""

from __future__ import annotations

import socket

from polygo.client.local_server import reachable, start_local_server, stop_local_server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_folder_named_like_the_server_in_the_current_folder_does_not_shadow_it(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "polygo" / "server").mkdir(parents=True)
    (work / "polygo" / "__init__.py").write_text("")
    (work / "polygo" / "server" / "__init__.py").write_text("")
    (work / "polygo" / "server" / "__main__.py").write_text("raise SystemExit('the user\\'s own file ran')\n")
    monkeypatch.chdir(work)
    url = f"ws://127.0.0.1:{free_port()}/"
    process = await start_local_server(url, tmp_path / "home")
    try:
        assert await reachable(url)
    finally:
        await stop_local_server(process)
    assert "the user's own file ran" not in (tmp_path / "home" / "server.log").read_text()
