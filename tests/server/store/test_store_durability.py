"""A process SIGKILLed right after an acknowledgment loses nothing that was acknowledged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from polygo.server.store import Store

WRITER = Path(__file__).with_name("crash_writer.py")
ROOT = Path(__file__).resolve().parents[3]


def writer(db: str, rooms: int, mode: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, str(WRITER), db, str(rooms), mode],
                            stdout=subprocess.PIPE, text=True, env=env)


def acknowledged(lines: list[str]) -> dict[str, int]:
    """The highest acknowledged version of each room (acks of one room come in order)."""
    last: dict[str, int] = {}
    for line in lines:
        word, room_id, version = line.split()
        assert word == "ack"
        last[room_id] = int(version)
    return last


async def check_nothing_lost(db: str, acks: dict[str, int]) -> None:
    store = await Store.open(db)
    try:
        rooms = {room["room_id"]: room for room in await store.unfinished_rooms()}
        for room_id, version in acks.items():
            room = rooms[room_id]
            assert room["version"] >= version
            events = await store.events_since(room_id, 0)
            assert [e["v"] for e in events] == list(range(1, room["version"] + 1))
            assert len(room["moves"]) == room["version"]
            assert room["moves"][version - 1] == [version % 2, f"move {version}", version, version]
            assert room["clocks"] == {"at": room["version"]}
    finally:
        await store.close()


async def test_killed_by_itself_right_after_an_acknowledgment(db):
    child = writer(db, 1, "self-kill")
    out, _ = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    lines = out.split()
    assert lines[0] == "ready"
    acks = acknowledged([" ".join(lines[i:i + 3]) for i in range(1, len(lines), 3)])
    assert acks == {"room-0": 25}
    await check_nothing_lost(db, acks)


async def test_killed_from_outside_under_load_from_many_rooms(db):
    child = writer(db, 50, "run")
    assert child.stdout.readline().strip() == "ready"
    lines = []
    while len(lines) < 500:
        lines.append(child.stdout.readline().strip())
    child.send_signal(signal.SIGKILL)  # the child is mid-flight: more batches queued and committing
    rest, _ = child.communicate(timeout=60)
    lines += rest.split("\n")[:-1]  # whole lines only: the kill may cut the last one short
    assert child.returncode == -signal.SIGKILL
    acks = acknowledged(lines)
    assert len(acks) == 50
    await check_nothing_lost(db, acks)
