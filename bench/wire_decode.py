"""What a move frame costs the server before it reaches the room: decode + validate, per frame.

`polygo.protocol.decode_client` turns a frame into a checked message. Its peer in the same run is the
bare decoder with no checking at all (the `msgpack` package's `unpackb` for binary frames, the
standard library's `json.loads` for text frames): the ratio says what validation adds on top of
reading the bytes. Run it by hand (a benchmark, not a test):

    python bench/wire_decode.py                 # 200,000 frames of each kind, best of 5
    python bench/wire_decode.py --frames 50000 --repeat 3

Times are CPU time of this process, the best of `--repeat` runs, each codec's two contenders
measured alternately. docs/performance.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polygo.protocol import decode_client  # noqa: E402

MOVE = {"type": "move", "room": "Xk2bT9aQ", "move": "appeal D4", "seq": 1_700_000_000_123, "id": 4711}
CREATE = {"type": "create", "id": 2, "settings": {"rules": "kee", "board": "19", "players": 3,
                                                  "clock": "fischer:300+10", "title": "a game"}}


def per_frame(fn: Callable[[Any], Any], frame: Any, count: int) -> float:
    """CPU nanoseconds per call of `fn(frame)`, over `count` calls."""
    start = time.process_time_ns()
    for _ in range(count):
        fn(frame)
    return (time.process_time_ns() - start) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases = [
        ("move, msgpack", msgpack.packb(MOVE), lambda f: msgpack.unpackb(f, raw=False), "msgpack.unpackb"),
        ("move, JSON", json.dumps(MOVE), json.loads, "json.loads"),
        ("create, msgpack", msgpack.packb(CREATE), lambda f: msgpack.unpackb(f, raw=False), "msgpack.unpackb"),
        ("create, JSON", json.dumps(CREATE), json.loads, "json.loads"),
    ]
    print(f"{'frame':<16} {'decode_client':>14} {'peer':>10}  {'ratio':>6}  peer")
    for name, frame, peer, peer_name in cases:
        assert decode_client(frame).TYPE == json.loads(json.dumps(peer(frame)))["type"]
        ours, theirs = [], []
        for _ in range(args.repeat):
            ours.append(per_frame(decode_client, frame, args.frames))
            theirs.append(per_frame(peer, frame, args.frames))
        best, base = min(ours), min(theirs)
        print(f"{name:<16} {best:>11.0f} ns {base:>7.0f} ns  {best / base:>5.2f}x  {peer_name} (no checks)")


if __name__ == "__main__":
    main()
