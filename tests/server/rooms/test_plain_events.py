"""A room's move events are stored as plain JSON (`Store.record(plain=True)`): no read-back of their
text, because they hold only JSON's own values by construction. The conftest's autouse fixture
checks every plain event of every server test; these tests make sure it can fail, that the kinds of
move event are met (a capture, a pass, dead marks, a result, clocks, kos), and that what is stored
reads back as the event the watchers got."""

from __future__ import annotations

import enum
import json

import pytest

from polygo.server.store import Store, StoreError
from polygo.server.store.values import dumps, plain_dumps

from tests.server.conftest import not_plain


class Colour(enum.Enum):
    BLACK = 0


@pytest.mark.parametrize("value", [
    {"prisoners": (0, 1)}, {"clocks": {"seats": [float("nan")]}}, {"main": float("inf")},
    {"set": {3: 0}}, {"dead": {"A1"}}, {"seat": Colour.BLACK}, {"body": b"D4"}, [[[("deep",)]]],
])
def test_the_check_finds_what_json_does_not_give_back(value):
    assert not_plain(value) is not None


def test_a_move_event_is_plain_and_its_text_is_what_the_read_back_kept():
    event = {"version": 7, "kind": "move", "seat": 0, "move": "D4", "seq": 4, "index": 5, "rescinded": [],
             "changes": {"clear": ["C4"], "set": {"D4": 0}}, "to_move": 1, "phase": "play", "prisoners": [1, 0],
             "clocks": {"running": 1, "seats": [{"main": 12.5, "periods": 0, "period_left": None, "stones_left": 0}]},
             "legal": {"seat": 1, "pass": True, "prohibited": {"C4": "ko"}, "appeals": []}}
    assert not_plain(event) is None
    assert plain_dumps(event, "the event") == dumps(event, "the event")
    assert json.loads(plain_dumps(event, "the event")) == event


async def test_a_plain_event_with_a_lone_surrogate_is_still_refused(tmp_path):
    store = await Store.open(str(tmp_path / "s.db"))
    try:
        await store.create_room("r1", {"rules": "chinese"}, owner="t", invite=None)
        with pytest.raises(StoreError) as refused:
            await store.record("r1", 1, {"move": "D\ud800"}, plain=True)
        assert refused.value.code == "bad-value"
        await store.record("r1", 1, {"move": "D4"}, plain=True)
        assert await store.events_since("r1", 0) == [{"move": "D4"}]
    finally:
        await store.close()


async def stored_as_sent(server, client, room: str) -> list[dict]:
    """The room's move events as stored, after checking each equals the one `client` got."""
    stored = [e for e in await server.hub.store.events_since(room, 0) if e["kind"] == "move"]
    for event in stored:
        got = await client.event("move")
        got.pop("type"), got.pop("room")
        assert got == event
    return stored


async def test_every_kind_of_move_event_reads_back_as_sent(server, players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "japanese", "board": "5", "clock": "byoyomi:600+3x30"})
    moves = [(black, "B1"), (white, "A2"), (black, "C2"), (white, "B2"), (black, "B3"), (white, "E5"),
             (black, "A3"), (white, "D5"), (black, "A1"), (white, "pass"), (black, "pass")]  # A1 takes A2 and B2
    seqs = {black: 0, white: 0}
    for client, move in moves:
        seqs[client] += 1
        assert (await client.move(room, move, seqs[client]))["type"] == "ack", move
    for client, move in [(black, "dead E5"), (black, "done"), (white, "done")]:   # E5 and D5 are dead
        seqs[client] += 1
        assert (await client.move(room, move, seqs[client]))["type"] == "ack", move
    stored = await stored_as_sent(server, black, room)
    assert any(e["changes"]["clear"] for e in stored)
    assert any(e["move"] == "pass" for e in stored)
    assert any(e.get("dead") for e in stored)
    assert stored[-1]["result"]["score"] and all(e["clocks"] for e in stored)
    assert any(type(s["main"]) is float for s in stored[-1]["clocks"]["seats"])


async def test_a_jasiek_move_event_with_its_kos_reads_back_as_sent(server, players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "jasiek-nkr", "board": "5"})
    # White's B2 takes C2: a ko
    moves = [(black, "B1"), (white, "C1"), (black, "A2"), (white, "D2"), (black, "B3"), (white, "C3"),
             (black, "C2"), (white, "B2")]
    seqs = {black: 0, white: 0}
    for client, move in moves:
        seqs[client] += 1
        assert (await client.move(room, move, seqs[client]))["type"] == "ack", move
    stored = await stored_as_sent(server, black, room)
    assert any(e.get("kos") for e in stored)
