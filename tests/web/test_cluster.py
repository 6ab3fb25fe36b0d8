"""The web page behind HAProxy and three cluster nodes (issue 15): it follows `moved` to the node
serving a room, plays there, and after that node is killed with SIGKILL reconnects to `/`, where
a live node takes the room over, and plays on."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from polygo.client.session import Client
from polygo.protocol import RoomSettings
from tests.haproxy_cluster import NODES, start_cluster

from .conftest import TIMEOUT_MS
from .test_play import moves, point, stone

HOUSE = RoomSettings(rules="chinese", board="9", bots=1)


@pytest.fixture
def web_cluster(postgres_url):
    running = start_cluster(postgres_url)
    try:
        for node in NODES:
            running.ready_now(node)
        yield running
    finally:
        running.stop()


def play_against_the_house(page, move: str, count: int, timeout: float | None = None) -> None:
    """`page` (Black) plays `move` (again if the page was offline when it was clicked) and sees its
    stone and the history reach `count` with the house bot's answer. Not the history's count after the page's own move: a bot that answers at once
    (as after the takeover, its game already loaded) can show the answer in the same frame."""
    for _ in range(5):
        expect(page.locator(".turn.mine")).to_have_text("your turn", timeout=timeout)
        point(page, move).click()
        # during a takeover the page may go offline again between the turn and the click: then
        # it says nothing was sent, and the player plays again once it is back
        refused = page.locator(".notice", has_text="nothing was sent")
        expect(stone(page, move, 0).or_(refused)).to_have_count(1, timeout=timeout)
        if not refused.count():
            break
    expect(stone(page, move, 0)).to_have_count(1)
    expect(moves(page)).to_have_count(count, timeout=timeout)


def house_games(cluster, nodes: tuple[str, ...]) -> list[str]:
    """A room made at each of `nodes`, its last seat the house bot's (made from another thread:
    this one runs Playwright's loop)."""

    async def make() -> list[str]:
        rooms = []
        for node in nodes:
            async with Client(f"{cluster.url}/n/{node}/", name=f"host-{node}") as host:
                rooms.append((await host.create(HOUSE)).room)
        return rooms

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, make()).result()


def test_the_page_follows_moved_and_plays_on_after_its_node_is_killed(browser, web_cluster, postgres):
    at_a, at_b = house_games(web_cluster, ("a", "b"))
    site = f"http://127.0.0.1:{web_cluster.port}/"
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(site)                          # the page's files from any node, its websocket to /
        page.wait_for_selector("#conn[data-state=connected]")
        page.fill("#name", "ann")
        page.click("#name-form button")
        expect(page.locator("#who")).to_have_text("ann")
        # a's room, then b's: whichever node `/` reached, b's room is asked for at a (directly,
        # or after a moved to a), which answers moved to b
        page.goto(site + f"#/room/{at_a}")
        expect(page.locator(".seat-row[data-seat='1'] .name")).to_contain_text("bot")
        page.goto(site + f"#/room/{at_b}")
        page.click("button.sit >> nth=0")
        expect(page.locator(".seat-row[data-seat='0'] .name")).to_contain_text("ann (you)")
        assert page.evaluate("window.polygo.conn.ws.url") == f"ws://127.0.0.1:{web_cluster.port}/n/b/"
        play_against_the_house(page, "E5", 2)    # the house bot answered, at b

        web_cluster.kill("b")                    # the page reconnects to /, a or c takes the room over
        expect(page.locator("#conn")).to_have_attribute("data-state", "connected", timeout=30_000)
        play_against_the_house(page, "C3", 4, timeout=30_000)
        assert not page.evaluate("window.polygo.conn.ws.url").endswith("/n/b/")
    finally:
        context.close()
    database = web_cluster.db.rsplit("/", 1)[1]
    assert postgres.psql(f"SELECT owner_node FROM rooms WHERE room_id = '{at_b}'", database).strip() in ("a", "c")
    assert postgres.psql(f"SELECT count(*) FROM moves WHERE room_id = '{at_b}'", database).strip() == "4"
    assert not errors, errors
