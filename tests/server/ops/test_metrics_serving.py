"""/metrics is rendered at most once per `metrics_max_age` and served again in between: a
scrape costs the event loop one rendering a second whatever the number of scrapers, and is at
most that old. The clock is the test's own where ages matter; the live server is waited on. The
separate metrics port is served by a thread of its own: it answers while the game loop is busy."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from typing import Any

import pytest

from prometheus_client.parser import text_string_to_metric_families

from polygo.server.ops.metrics import MAX_AGE, PrometheusMetrics

CHINESE_9 = {"rules": "chinese", "board": "9"}
STARTED = ("polygo_games_started_total", (("rules", "chinese"),))


def scraped(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def scrape(port: int) -> dict[tuple[str, tuple], float]:
    def fetch() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
            return resp.read().decode()
    return scraped(await asyncio.to_thread(fetch))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_rendering_is_served_again_until_it_is_max_age_old():
    state: dict[str, Any] = {"connections": 1, "sessions": 0, "rooms": {}, "pending_writes": 0, "ready": True}
    clock = Clock()
    metrics = PrometheusMetrics(lambda: state, max_age=1.0, clock=clock)
    first = metrics.render()
    state["connections"] = 7
    clock.now += 0.999
    assert metrics.render() is first
    clock.now += 0.001
    assert scraped(metrics.render().decode())[("polygo_connections", ())] == 7


def test_max_age_zero_renders_every_scrape():
    state: dict[str, Any] = {"connections": 1, "sessions": 0, "rooms": {}, "pending_writes": 0, "ready": True}
    metrics = PrometheusMetrics(lambda: state, max_age=0, clock=Clock())
    metrics.render()
    state["connections"] = 3
    assert scraped(metrics.render().decode())[("polygo_connections", ())] == 3


async def test_a_new_game_reaches_the_served_metrics_within_their_age(make_server, players, seat):
    srv = await make_server(metrics_max_age=MAX_AGE)
    assert (await scrape(srv.port))[STARTED] == 0
    await seat(await players(2, port=srv.port), CHINESE_9)
    deadline = time.monotonic() + 30     # a bound for a stalled machine, not the staleness asserted
    while (await scrape(srv.port))[STARTED] == 0:
        assert time.monotonic() < deadline, "the game never reached /metrics"
        await asyncio.sleep(0.05)
    assert (await scrape(srv.port))[("polygo_rooms", (("status", "playing"),))] == 1


def fetch_now(port: int, path: str) -> tuple[int, str]:
    """A GET made on the calling thread: from a test, it holds the server's own loop until answered."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
        return resp.status, resp.read().decode()


async def test_the_metrics_port_answers_while_the_game_loop_is_held(make_server, players, seat):
    srv = await make_server(metrics_port=0)
    await seat(await players(2, port=srv.port), CHINESE_9)
    assert fetch_now(srv.metrics_port, "/healthz") == (200, "ok\n")
    assert fetch_now(srv.metrics_port, "/readyz") == (200, "ready\n")
    status, body = fetch_now(srv.metrics_port, "/metrics")
    assert status == 200
    assert scraped(body)[("polygo_rooms", (("status", "playing"),))] == 1
    assert scraped(body)[("polygo_connections", ())] == 2


async def test_a_metrics_port_in_use_stops_the_start(make_server):
    srv = await make_server(metrics_port=0)
    with pytest.raises(OSError):
        await make_server(metrics_port=srv.metrics_port, db=srv.config.db + "-other")
