"""What a spectator's page shows of a game between two programs: Jasiek's ko analysis as the
server sends it, a bot's own `analysis`, and both players connected. The programs are scripted
clients on the protocol (websockets' sync client), as a bot author's program would be."""

from __future__ import annotations

import itertools
import json
from typing import Any

from playwright.sync_api import expect
from websockets.sync.client import connect

from polygo.protocol import PROTOCOL_VERSION

KO7 = [("C4", "D4"), ("B3", "E3"), ("C2", "D2"), ("pass", "C3")]   # White's C3 makes the ko


class Program:
    """A client program: `request` sends a message and returns its reply, passing events by."""

    def __init__(self, url: str, name: str) -> None:
        self.connection = connect(url.replace("http://", "ws://"), subprotocols=["polygo.json"])
        self.name = name
        self.ids = itertools.count(1)
        self.seq = itertools.count(1)

    def __enter__(self) -> "Program":
        self.ws = self.connection.__enter__()
        self.request("hello", protocol=PROTOCOL_VERSION, name=self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.connection.__exit__(*exc)

    def request(self, type: str, **fields: Any) -> dict[str, Any]:
        ident = next(self.ids)
        self.ws.send(json.dumps({"type": type, "id": ident, **fields}))
        while True:
            reply = json.loads(self.ws.recv(timeout=10))
            if reply.get("id") == ident:
                assert reply["type"] != "error", reply
                return reply

    def move(self, room: str, move: str) -> None:
        self.request("move", room=room, move=move, seq=next(self.seq))


def test_a_spectator_sees_the_ko_analysis_and_a_bots_analysis(open_page, web_server, shot):
    with Program(web_server.url, "kobot") as black, Program(web_server.url, "gnugo") as white:
        room = black.request("create", settings={"rules": "jasiek-nkr", "board": "7x5",
                                                 "options": {"ko_shapes": "two-point"}})["room"]
        black.request("sit", room=room, seat=0)
        white.request("sit", room=room, seat=1)
        sam = open_page("sam")
        sam.goto(web_server.url + f"#/room/{room}")
        for b, w in KO7:
            black.move(room, b)
            white.move(room, w)
        ko = sam.locator(".kos .ko[data-points='C3 D3']")
        expect(ko).to_have_text("C3 D3: fighting")
        expect(sam.locator("svg#board g.pt.ko")).to_have_count(2)
        expect(sam.locator("svg#board g.pt.ko[data-point='C3'] title")).to_contain_text("in a ko: fighting")
        black.move(room, "D3")
        expect(ko).to_have_text("C3 D3: fighting; white may not play in it at its next move")
        expect(sam.locator("svg#board g.pt.prohibited[data-point='C3']")).to_have_attribute("data-reason", "basic-ko")
        white.request("analysis", room=room, score=-2.5, winrate=0.4, pv=["F3", "C3", "pass"])
        analysis = sam.locator(".seat-row[data-seat='1'] .analysis")
        expect(analysis).to_have_text("analysis: lead -2.5 · win 40% · F3 C3 pass")
        for seat in (0, 1):
            expect(sam.locator(f".seat-row[data-seat='{seat}'] .online")).to_have_attribute("data-online", "true")
        expect(sam.locator(".watchers")).to_have_text("watching (1): sam")
        white.move(room, "F4")
        expect(analysis).to_have_text("analysis: lead -2.5 · win 40% · F3 C3 pass (1 move ago)")
        shot(sam, "ko-analysis")
