"""Challenges on a live server: accepted by every invitee, the room starts with all seats filled;
a decline tells the challenger; bad challenges and late answers are refused with their codes."""

from __future__ import annotations

import asyncio

from tests.server.finding.test_seeks import matched, registered

WAIT = 5.0


async def next_of(client, kind: str) -> dict:
    while True:
        message = await asyncio.wait_for(client.replies.get(), WAIT)
        if message["type"] == kind:
            return message


async def test_a_challenge_accepted_by_two_of_two_invitees_starts_the_room(players):
    ann, bob, cy = await registered(players, ["ann", "bob", "cy"])
    await bob.ok("challenges")
    made = await ann.ok("challenge", players=["bob", "cy"], pool="kee-3p-hex5")
    challenge = made["challenge"]
    assert challenge["status"] == "open" and challenge["rated"] is True
    assert [p["name"] for p in challenge["players"]] == ["bob", "cy"]
    told = await next_of(bob, "challenge")
    assert told["challenge"]["id"] == challenge["id"]
    listed = await cy.ok("challenges")          # on connecting: the standing challenge is there
    assert [c["id"] for c in listed["challenges"]] == [challenge["id"]]
    await bob.ok("challenge_reply", challenge=challenge["id"], accept=True)
    await cy.ok("challenge_reply", challenge=challenge["id"], accept=True)
    found = [await matched(c) for c in (ann, bob, cy)]
    assert len({m["room"] for m in found}) == 1 and sorted(m["seat"] for m in found) == [0, 1, 2]
    assert {m["via"] for m in found} == {"challenge"}
    snapshot = await cy.ok("watch", room=found[0]["room"])
    assert snapshot["status"] == "playing"
    late = await bob.request("challenge_reply", challenge=challenge["id"], accept=True)
    assert late["code"] == "challenge-closed"


async def test_a_declined_challenge_tells_the_challenger(players):
    ann, bob = await registered(players, ["ann", "bob"])
    challenge = (await ann.ok("challenge", players=["bob"], settings={"rules": "chinese", "board": "9x9"}))["challenge"]
    assert challenge["rated"] is False
    await bob.ok("challenge_reply", challenge=challenge["id"], accept=False)
    told = await next_of(ann, "challenge")
    assert told["challenge"]["status"] == "declined"


async def test_bad_challenges_are_refused(players):
    ann, bob = await registered(players, ["ann", "bob"])
    guest, = await players(1)
    assert (await ann.request("challenge", players=["ann"], pool="chinese-9x9"))["code"] == "bad-challenge"
    assert (await ann.request("challenge", players=["nobody"], pool="chinese-9x9"))["code"] == "no-such-player"
    assert (await ann.request("challenge", players=["bob", "bob"], pool="kee-3p-hex5"))["code"] == "bad-challenge"
    assert (await ann.request("challenge", players=["bob"], pool="kee-3p-hex5"))["code"] == "bad-challenge"
    assert (await guest.request("challenge", players=["bob"], pool="chinese-9x9"))["code"] == "not-registered"
    assert (await bob.request("challenge_reply", challenge="nope", accept=True))["code"] == "no-such-challenge"


async def test_an_expired_challenge_cannot_be_accepted(config, make_server, connect_client, players):
    srv = await make_server(challenge_expiry=0.2)
    ann, bob = await registered(lambda n: players(n, port=srv.port), ["ann", "bob"])
    challenge = (await ann.ok("challenge", players=["bob"], settings={"rules": "chinese", "board": "9x9"}))["challenge"]
    told = await next_of(ann, "challenge")
    assert told["challenge"]["status"] == "expired"
    refused = await bob.request("challenge_reply", challenge=challenge["id"], accept=True)
    assert refused["code"] == "challenge-closed"
