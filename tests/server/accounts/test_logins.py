"""Password guessing is limited per user name from one address and per address; a failed login
is slowed down without holding up anyone else; guesses sent together are counted before they are
hashed; and a guesser cannot lock a name's owner out."""

from __future__ import annotations


from websockets.asyncio.client import connect

import pytest

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.accounts.logins import FailureCounter

from tests.server.conftest import Client


async def login(client, user: str, password: str) -> dict:
    return await client.request("hello", protocol=PROTOCOL_VERSION, user=user, password=password)


async def test_guesses_at_one_name_are_refused_after_the_limit(make_server, players, tmp_path, no_failure_delay):
    srv = await make_server(db=str(tmp_path / "guess.db"), login_failures=3)
    alice, guesser = await players(2, port=srv.port)
    await alice.ok("register", user="alice", password="correct horse")
    for i in range(3):   # all sent at once, answered in turn
        await guesser.send(type="hello", protocol=PROTOCOL_VERSION, user="alice", password=f"guess{i}")
    replies = [await guesser.reply() for _ in range(3)]
    assert [r["code"] for r in replies] == ["bad-login"] * 3
    refused = await login(guesser, "alice", "correct horse")     # even the right one, for now
    assert refused["code"] == "rate-limited" and "try again in" in refused["message"]
    (other,) = await players(1, port=srv.port)
    await other.ok("register", user="bob", password="hunter22")
    assert (await login(guesser, "bob", "hunter22"))["type"] == "welcome"     # other names still work
    owner = await from_address(srv.port, "127.0.0.2")
    assert (await login(owner, "alice", "correct horse"))["type"] == "welcome", "the guesser locked the owner out"
    await owner.close()


async def test_guesses_sent_together_are_counted_before_hashing(make_server, players, tmp_path, no_failure_delay):
    srv = await make_server(db=str(tmp_path / "together.db"), login_failures=3)
    (alice,) = await players(1, port=srv.port)
    await alice.ok("register", user="alice", password="correct horse")
    guessers = await players(12, port=srv.port)
    passwords = [f"guess{i}" for i in range(11)] + ["correct horse"]
    for i, (guesser, password) in enumerate(zip(guessers, passwords)):
        await guesser.send(type="hello", protocol=PROTOCOL_VERSION, user="alice", password=password, id=i)
    replies = [await guesser.reply() for guesser in guessers]
    codes = [r.get("code", r["type"]) for r in replies]
    assert codes.count("bad-login") <= 3 and "welcome" not in codes, codes
    assert codes[-1] == "rate-limited"


@pytest.mark.slow
async def test_guesses_from_one_address_are_refused_after_the_limit(make_server, players, tmp_path,
                                                                   no_failure_delay):
    srv = await make_server(db=str(tmp_path / "spray.db"), login_failures_per_address=4)
    (sprayer,) = await players(1, port=srv.port)
    replies = [await login(sprayer, f"user{i}", "123456") for i in range(5)]
    assert [r["code"] for r in replies] == ["bad-login"] * 4 + ["rate-limited"]


async def test_a_failed_login_does_not_hold_up_other_players(server, players):
    guesser, player = await players(2)
    await guesser.send(type="hello", protocol=PROTOCOL_VERSION, user="nobody", password="x", id=1)
    listed = await player.ok("list")             # answered while the failure waits out its delay
    assert listed["type"] == "rooms" and guesser.replies.empty()
    assert (await guesser.reply())["code"] == "bad-login"


def test_failures_are_forgotten_after_the_window():
    counter = FailureCounter(limit=2, window=60)
    counter.failed("alice", 0.0)
    counter.failed("alice", 10.0)
    assert counter.wait("alice", 20.0) == 40.0
    assert counter.wait("alice", 60.5) == 0.0 and counter.wait("bob", 20.0) == 0.0
    counter.failed("carol", 0.0)
    counter.succeeded("carol")
    assert counter.wait("carol", 1.0) == 0.0


async def from_address(port: int, address: str) -> Client:
    """A client connected from `address` (any of 127.0.0.0/8 reaches the loopback server)."""
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.json"], local_addr=(address, 0))
    return Client(ws, "polygo.json")


def test_a_login_that_proves_right_takes_back_its_reserved_failure():
    counter = FailureCounter(limit=2, window=60)
    counter.failed("a", 1.0)
    counter.failed("a", 2.0)
    counter.forgive("a", 2.0)
    assert counter.wait("a", 3.0) == 0.0 and "a" in counter
    counter.forgive("a", 1.0)
    assert "a" not in counter
