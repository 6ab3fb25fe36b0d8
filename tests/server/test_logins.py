"""Issue 16, item 7: password guessing is limited per user name and per address; a failed login
is slowed down without holding up anyone else."""

from __future__ import annotations


from protocol import PROTOCOL_VERSION
from server.logins import FailureCounter


async def login(client, user: str, password: str) -> dict:
    return await client.request("hello", protocol=PROTOCOL_VERSION, user=user, password=password)


async def test_guesses_at_one_name_are_refused_after_the_limit(make_server, players, tmp_path):
    srv = await make_server(db=str(tmp_path / "guess.db"), login_failures=3)
    alice, guesser = await players(2, port=srv.port)
    await alice.ok("register", user="alice", password="correct horse")
    for i in range(3):   # all sent at once; each answer waits out its own delay after the one before
        await guesser.send(type="hello", protocol=PROTOCOL_VERSION, user="alice", password=f"guess{i}")
    replies = [await guesser.reply() for _ in range(3)]
    assert [r["code"] for r in replies] == ["bad-login"] * 3
    refused = await login(guesser, "alice", "correct horse")     # even the right one, for now
    assert refused["code"] == "rate-limited" and "try again in" in refused["message"]
    (other,) = await players(1, port=srv.port)
    await other.ok("register", user="bob", password="hunter22")
    assert (await login(guesser, "bob", "hunter22"))["type"] == "welcome"     # other names still work


async def test_guesses_from_one_address_are_refused_after_the_limit(make_server, players, tmp_path):
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
