"""The per-address tables forget addresses that hold nothing (issue 16's exhaustion items, a gap of
the first fix): connection counts, unstarted rooms, create rates and failed-login counters kept one
entry per distinct address ever seen, so a flood from many addresses (an IPv6 subnet has 2^64)
grew the server's memory without end. The tables are tested with given instants, then on a live
server whose clients connect from distinct loopback addresses (127.0.0.2, 127.0.0.3, ...)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.accounts import logins
from polygo.server.accounts.logins import FailureCounter
from polygo.server.limits.ratelimit import Buckets, Tally

from tests.server.conftest import WAIT, Client

ADDRESSES = [f"127.0.0.{n}" for n in range(2, 26)]


def test_a_tally_forgets_a_key_back_at_zero():
    tally = Tally()
    assert (tally.add("a"), tally.add("a"), tally.add("b")) == (1, 2, 1)
    tally.remove("a")
    tally.remove("b")
    assert "b" not in tally and tally["a"] == 1 and len(tally) == 1
    tally.remove("a")
    assert len(tally) == 0


def test_buckets_forget_the_refilled_ones_and_keep_at_most_their_bound():
    buckets = Buckets(rate=1.0, burst=2, most=3)
    assert buckets.allow("a", 0.0) and buckets.allow("a", 0.0) and not buckets.allow("a", 0.0)
    assert buckets.allow("b", 1.5)       # "b" full again at 2.5
    assert buckets.allow("c", 2.2)       # "a" refilled by 2.0, "b" not yet
    assert "a" not in buckets and "b" in buckets and len(buckets) == 2
    for key in "defg":
        buckets.allow(key, 2.2)
    assert len(buckets) == 3 and "b" not in buckets and "g" in buckets


def test_failure_counters_forget_keys_whose_window_passed_and_keep_at_most_their_bound(monkeypatch):
    counter = FailureCounter(limit=3, window=10)
    counter.failed("a", 0.0)
    counter.failed("b", 5.0)
    counter.failed("a", 6.0)             # "a" is now the last to fail: "b" is the oldest
    counter.failed("c", 15.5)
    assert "b" not in counter and "a" in counter and len(counter) == 2
    monkeypatch.setattr(logins, "TRACKED", 2)
    counter.failed("d", 15.5)
    assert "a" not in counter and len(counter) == 2


async def from_address(port: int, address: str) -> Client:
    """A client connected from `address` (any of 127.0.0.0/8 reaches the loopback server)."""
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.json"], local_addr=(address, 0))
    return Client(ws, "polygo.json")


async def come_and_go(port: int, address: str, n: int) -> None:
    """From `address`: a guest makes a room against the house bot and resigns, fails a login, leaves."""
    client = await from_address(port, address)
    await client.hello(f"guest{n}")
    room = (await client.ok("create", settings={"rules": "chinese", "board": "9", "bots": 1}))["room"]
    await client.ok("sit", room=room, seat=0)
    await client.ok("move", room=room, move="resign", seq=1)
    failed = await client.request("hello", protocol=PROTOCOL_VERSION, user=f"nobody{n}", password="x")
    assert failed["code"] == "bad-login"
    await client.close()


async def until(condition, what: str) -> None:
    """Wait for the server to see what the client did (a close reaches it a moment later)."""
    for _ in range(int(WAIT / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail(what)


async def test_addresses_that_went_away_leave_no_entry_behind(make_server, tmp_path, no_failure_delay):
    """Rates and windows are set so that an idle address holds nothing at once: every table should
    then keep only the address still here."""
    srv = await make_server(db=str(tmp_path / "addresses.db"), create_rate=1e12, login_window=1e-9)
    for n, address in enumerate(ADDRESSES):
        await come_and_go(srv.port, address, n)
    stayer = await from_address(srv.port, "127.0.0.1")
    await stayer.hello("stayer")
    await stayer.ok("create", settings={"rules": "chinese", "board": "9"})
    assert (await stayer.request("hello", protocol=PROTOCOL_VERSION, user="nobody", password="x"))["code"] == "bad-login"
    await until(lambda: srv.gate.open == 1, "the server still counts connections that closed")
    hub, sessions = srv.hub, srv.hub.sessions
    tables = {"connections": srv.gate.by_address, "unstarted rooms": hub.table.waiting_by_address,
              "create rates": hub.table.create_rates, "failed logins": sessions.failures_by_address}
    for what, table in tables.items():
        kept = [address for address in ADDRESSES if address in table]
        assert not kept and "127.0.0.1" in table and len(table) == 1, f"{what}: {len(table)} entries"
    assert len(sessions.failures_by_name) == 1 and "127.0.0.1 nobody" in sessions.failures_by_name
    assert hub.table._seats == {} and list(hub.table._owned) == [stayer.token], "sessions that hold nothing stay indexed"
    await stayer.close()
