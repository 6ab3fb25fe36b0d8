"""Every example exchange of docs/protocol.md, replayed against a live server, so the page cannot
drift from the server again.

The page's ```exchange blocks are read as the page describes ("How to read the examples"): each
block is a scenario of its own with fresh connections named on the left; `→` lines are sent as
they are written (after `$name` substitution; `msgpack HEX` as a binary frame of those bytes), `←`
lines must match a message that connection receives. Every message received must also be as polygo/protocol/views.py (the JSON Schema) describes it.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from websockets.asyncio.client import connect

from polygo.protocol import views

PAGE = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
BLOCK = re.compile(r"^```exchange\n(.*?)^```", re.M | re.S)
LINE = re.compile(r"^(\w+)\s+(→|←)\s+(\{.*\}|msgpack [0-9a-f]+)\s*$")
ANY = "…"
WAIT = 5.0


def blocks() -> list[tuple[int, list[tuple[int, str, str, Any]]]]:
    """(line number, [(line number, who, arrow, message)]) for each exchange block of the page."""
    text = PAGE.read_text()
    found = []
    for match in BLOCK.finditer(text):
        first = text.count("\n", 0, match.start()) + 2
        steps = []
        for offset, line in enumerate(match.group(1).splitlines()):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parsed = LINE.match(line)
            assert parsed, f"docs/protocol.md:{first + offset}: not an exchange line: {line!r}"
            sent = parsed[3]
            if sent.startswith("msgpack "):
                assert parsed[2] == "→", f"docs/protocol.md:{first + offset}: only a sent frame may be msgpack"
                steps.append((first + offset, parsed[1], parsed[2], bytes.fromhex(sent.split()[1])))
            else:
                steps.append((first + offset, parsed[1], parsed[2], json.loads(sent)))
        found.append((first, steps))
    return found


def substitute(value: Any, names: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        return names[value[1:]]
    if isinstance(value, dict):
        return {k: substitute(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, names) for v in value]
    return value


def matches(expected: Any, actual: Any, names: dict[str, Any], bound: dict[str, Any]) -> bool:
    """Maps match when every key shown matches (more keys may come); an empty map only matches an
    empty map; lists match element by element; "…" matches any value; "$x" binds x or must equal it."""
    if expected == ANY:
        return True
    if isinstance(expected, str) and expected.startswith("$"):
        name = expected[1:]
        known = names.get(name, bound.get(name))
        if known is None:
            bound[name] = actual
            return True
        return known == actual
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or (not expected and actual):
            return False
        return all(k in actual and matches(v, actual[k], names, bound) for k, v in expected.items())
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(matches(e, a, names, bound) for e, a in zip(expected, actual)))
    return type(expected) is type(actual) and expected == actual


class Peer:
    """One named connection: what it received and not yet matched, in order."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.inbox: list[Any] = []
        self.undescribed: list[str] = []
        self.arrived = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            message = json.loads(frame)
            try:
                views.check(message)
            except msgspec.ValidationError as exc:
                self.undescribed.append(f"{exc}: {message}")
            self.inbox.append(message)
            self.arrived.set()

    async def expect(self, expected: Any, names: dict[str, Any], where: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while True:
            for i, message in enumerate(self.inbox):
                bound: dict[str, Any] = {}
                if matches(expected, message, names, bound):
                    del self.inbox[i]
                    names.update(bound)
                    return
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                pytest.fail(f"{where}: no message matches {json.dumps(expected)}; "
                            f"received and unmatched: {json.dumps(self.inbox)}")


EXCHANGES = blocks()


def test_the_page_has_examples_to_replay():
    assert len(EXCHANGES) >= 3 and all(steps for _, steps in EXCHANGES)


@pytest.mark.parametrize("first,steps", EXCHANGES, ids=[f"line-{first}" for first, _ in EXCHANGES])
async def test_example_exchange(server, first, steps):
    peers: dict[str, Peer] = {}
    names: dict[str, Any] = {}
    try:
        for line, who, arrow, message in steps:
            if who not in peers:
                ws = await connect(f"ws://127.0.0.1:{server.port}/", subprotocols=["polygo.json"])
                peers[who] = Peer(ws)
            where = f"docs/protocol.md:{line}"
            if arrow == "→" and isinstance(message, bytes):
                await peers[who].ws.send(message)
            elif arrow == "→":
                await peers[who].ws.send(json.dumps(substitute(message, names)))
            else:
                await peers[who].expect(message, names, where)
        for who, peer in peers.items():
            assert not peer.undescribed, f"{who} got messages polygo/protocol/views.py does not describe"
    finally:
        for peer in peers.values():
            await peer.ws.close()
            peer.reader.cancel()
