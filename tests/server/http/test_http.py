"""/healthz, /readyz and /metrics over real HTTP on a live server: the metrics move as a game is
played, readiness turns 503 while draining, /metrics may live on a port of its own, and the
server runs without prometheus_client (501 and a log line)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
import sys
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.server.app import Server
from polygo.server.hub import Hub

CHINESE_9 = {"rules": "chinese", "board": "9"}


async def get(port: int, path: str) -> tuple[int, dict[str, str], str]:
    """A plain HTTP GET, in a thread so the server's loop keeps running."""
    def fetch() -> tuple[int, dict[str, str], str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
                return resp.status, dict(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read().decode()
    return await asyncio.to_thread(fetch)


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """Every sample of a scrape, keyed by (name, sorted labels)."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def scrape(port: int) -> dict[tuple[str, tuple], float]:
    status, headers, body = await get(port, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return samples(body)


async def test_health_and_readiness_answer_plain_gets(server):
    status, headers, body = await get(server.port, "/healthz")
    assert (status, body) == (200, "ok\n") and headers["Cache-Control"] == "no-store"
    status, _, body = await get(server.port, "/readyz?verbose")
    assert (status, body) == (200, "ready\n")


async def test_metrics_move_as_a_game_is_played(server, players, seat):
    before = await scrape(server.port)
    assert before[("polygo_connections", ())] == 0
    assert before[("polygo_moves_acknowledged_total", ())] == 0
    assert before[("polygo_ready", ())] == 1
    black, white = await players(2)
    room = await seat([black, white], CHINESE_9)
    mid = await scrape(server.port)
    assert mid[("polygo_connections", ())] == 2 and mid[("polygo_sessions", ())] == 2
    assert mid[("polygo_rooms", (("status", "playing"),))] == 1
    assert mid[("polygo_rooms", (("status", "waiting"),))] == 0
    for i, move in enumerate(["E5", "C3", "G7"]):
        assert (await (black, white)[i % 2].move(room, move, i // 2 + 1))["type"] == "ack"
    assert (await white.move(room, "E5", 2))["code"] == "illegal-move"
    await black.send(type="move", room=room, move="G7", seq=2)   # a resend: acknowledged again
    await black.send(type="nonsense")
    replies = [await black.reply(), await black.reply()]    # the ack waits for its commit: any order
    assert sorted(r.get("code", r["type"]) for r in replies) == ["ack", "unknown-type"]
    after = await scrape(server.port)
    assert after[("polygo_moves_acknowledged_total", ())] == 4
    assert after[("polygo_ack_latency_seconds_count", ())] == 4
    assert after[("polygo_ack_latency_seconds_sum", ())] > 0
    assert after[("polygo_errors_total", (("code", "illegal-move"),))] == 1
    assert after[("polygo_errors_total", (("code", "unknown-type"),))] == 1
    commits = after[("polygo_commits_total", ())]
    assert commits >= 4 + 2 + 2   # the moves, the sessions, the seats (more if they went apart)
    assert after[("polygo_commit_latency_seconds_count", ())] == commits
    assert after[("polygo_commit_batch_size_sum", ())] >= commits
    assert after[("polygo_commit_failures_total", ())] == 0
    assert after[("polygo_last_commit_timestamp_seconds", ())] > 0
    await asyncio.sleep(0.6)      # one heartbeat: the loop's lag has been measured
    lag = await scrape(server.port)
    assert lag[("polygo_event_loop_lag_seconds_count", ())] >= 1
    assert ("process_resident_memory_bytes", ()) in lag


async def test_no_token_and_no_room_reaches_the_metrics(server, players, seat):
    black, white = await players(2)
    room = await seat([black, white], CHINESE_9)
    await black.move(room, "E5", 1)
    _, _, body = await get(server.port, "/metrics")
    assert black.token not in body and white.token not in body and room not in body
    labels = {name for family in text_string_to_metric_families(body) for s in family.samples
              for name in s.labels if s.name.startswith("polygo_")}
    assert labels <= {"le", "code", "status", "reason", "rules", "version"}   # closed sets, all of them


async def test_rate_limit_refusals_are_counted_by_code(make_server, connect_client, tmp_path):
    srv = await make_server(rate=1.0, burst=2, db=str(tmp_path / "rate.db"))
    client = await connect_client(port=srv.port)
    for _ in range(5):
        await client.send(type="list")
    codes = [(await client.reply()).get("code") for _ in range(5)]
    refused = codes.count("rate-limited")
    assert refused >= 2
    assert (await scrape(srv.port))[("polygo_errors_total", (("code", "rate-limited"),))] == refused


async def test_draining_turns_readiness_and_new_handshakes_away(server, connect_client):
    client = await connect_client()
    await client.hello("early")
    drain = asyncio.create_task(server.drain())
    await asyncio.wait_for(client.ws.wait_closed(), 10)
    assert client.ws.close_code == 1012 and client.ws.close_reason == "server restarting"
    await drain
    assert server.phase.value == "draining"


async def test_readyz_and_handshakes_answer_503_while_draining(server, connect_client):
    server.phase = type(server.phase).DRAINING      # the state drain() sets first, held still
    status, headers, body = await get(server.port, "/readyz")
    assert (status, body, headers["Retry-After"]) == (503, "draining\n", "5")
    assert (await get(server.port, "/healthz"))[0] == 200
    with pytest.raises(Exception) as refused:
        await connect_client()
    assert "503" in str(refused.value)


async def test_metrics_on_their_own_port(make_server, players, seat, tmp_path):
    srv = await make_server(metrics_port=0, db=str(tmp_path / "metrics.db"))
    assert srv.metrics_port not in (None, srv.port)
    status, _, _ = await get(srv.port, "/metrics")
    assert status == 404
    black, white = await players(2, port=srv.port)
    room = await seat([black, white], CHINESE_9)
    await black.move(room, "E5", 1)
    assert (await scrape(srv.metrics_port))[("polygo_moves_acknowledged_total", ())] == 1
    assert (await get(srv.metrics_port, "/readyz"))[0] == 200
    assert (await get(srv.metrics_port, "/"))[0] == 404


async def test_without_prometheus_client_the_server_runs_and_metrics_answer_501(
        config, tmp_path, monkeypatch, caplog, players, seat):
    monkeypatch.setitem(sys.modules, "prometheus_client", None)    # import prometheus_client fails
    with caplog.at_level(logging.WARNING, logger="polygo.metrics"):
        srv = await Server(dataclasses.replace(config, db=str(tmp_path / "bare.db"))).start()
    try:
        assert "metrics are off: prometheus_client is not installed" in caplog.text
        status, _, body = await get(srv.port, "/metrics")
        assert status == 501 and "pip install 'polygo[metrics]'" in body
        black, white = await players(2, port=srv.port)
        room = await seat([black, white], CHINESE_9)
        assert (await black.move(room, "E5", 1))["type"] == "ack"
        assert (await get(srv.port, "/readyz"))[0] == 200
    finally:
        await srv.close()


async def test_while_games_are_rebuilt_the_server_is_healthy_but_not_ready(config, tmp_path, monkeypatch):
    srv = Server(dataclasses.replace(config, db=str(tmp_path / "starting.db")))
    seen: dict[str, tuple] = {}
    rebuild = Hub.restore

    async def restore_and_look(hub: Hub) -> int:
        seen["healthz"] = await get(srv.port, "/healthz")
        seen["readyz"] = await get(srv.port, "/readyz")
        try:
            await connect(f"ws://127.0.0.1:{srv.port}/")
        except InvalidStatus as exc:
            seen["handshake"] = exc.response.status_code, exc.response.body.decode()
        return await rebuild(hub)

    monkeypatch.setattr(Hub, "restore", restore_and_look)
    await srv.start()
    try:
        assert seen["healthz"][0] == 200
        assert (seen["readyz"][0], seen["readyz"][2]) == (503, "starting\n")
        assert seen["handshake"] == (503, "the server is starting; try again in a few seconds\n")
        assert (await get(srv.port, "/readyz"))[0] == 200
    finally:
        await srv.close()


async def test_a_failed_commit_is_counted(server, players, seat, monkeypatch):
    black, white = await players(2)
    room = await seat([black, white], CHINESE_9)
    writer = server.store._db
    transaction = writer.transaction

    failures = []

    async def disk_error(build, rooms=(), steps=None):     # the batch fails, and so does its room's part alone
        failures.append(rooms)
        if len(failures) == 2:
            monkeypatch.setattr(writer, "transaction", transaction)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(writer, "transaction", disk_error)
    assert (await black.move(room, "E5", 1))["code"] == "internal"
    assert (await black.move(room, "E5", 2))["type"] == "ack"
    after = await scrape(server.port)
    assert after[("polygo_commit_failures_total", ())] == 1
    assert after[("polygo_errors_total", (("code", "internal"),))] == 1
    assert after[("polygo_moves_acknowledged_total", ())] == 1
