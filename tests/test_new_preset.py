"""A preset added to `PRESETS` and nowhere else (tests/new_preset.py) is served by the server, in
`welcome` and over HTTP, played and exported as its parts say, and taken and mapped by the GTP
bridge. The web page's side is tests/web/test_rulesets.py; GNU Go playing it through the bridge,
tests/client/test_gtp_bridge.py."""

from __future__ import annotations

import asyncio
import json
import urllib.request

from polygo.client.gtp_bridge import GtpBot, engine_argv
from polygo.client.gtp_game import rules_commands
from polygo.client.session import Client
from polygo.protocol import RoomSettings
from polygo.rules import PRESETS
from polygo.server.app import Server
from polygo.server.config import Config
from tests.new_preset import DESCRIBED, NAME, NEW

GNUGO = ["/usr/games/gnugo", "--mode", "gtp"]


def get_json(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
        return json.loads(resp.read())


async def test_a_preset_added_to_presets_alone_is_served_played_exported_and_bridged(monkeypatch, tmp_path):
    monkeypatch.setitem(PRESETS, NAME, NEW)
    server = await Server(Config(host="127.0.0.1", port=0, db=str(tmp_path / "polygo.db"),
                                 group_window=0.001)).start()
    url = f"ws://127.0.0.1:{server.port}/"
    try:
        async with Client(url, name="ann") as ann, Client(url, name="bob") as bob:
            # served: in every welcome and at /api/rulesets, in PRESETS' order
            assert ann.welcome is not None and DESCRIBED in ann.welcome.rulesets
            served = (await asyncio.to_thread(get_json, server.port, "/api/rulesets"))["rulesets"]
            assert [r["name"] for r in served] == list(PRESETS) and served[-1] == DESCRIBED
            assert served == ann.welcome.rulesets

            # the GTP bridge takes the room, GNU Go included, and tells each engine the parts' rules
            settings = {"rules": NAME, "board": "5x5", "players": 2}
            assert GtpBot(GNUGO).refusal(settings) is None
            room = (await ann.create(RoomSettings(**settings))).room
            view = await ann.sit(room, 0)
            await bob.sit(room, 1)
            assert view.game.rules == NEW
            assert engine_argv(GNUGO, view.game.rules) == GNUGO + DESCRIBED["gtp"]["gnugo"]
            assert rules_commands(view.game.rules, {"kgs-rules"}) == [("kgs-rules", "new_zealand")]
            assert rules_commands(view.game.rules, {"kgs-rules", "kata-set-rules"}) == [
                ("kata-set-rules", "new-zealand")]

            # played and counted by its parts: area scoring with the preset's komi; SGF says NZ
            for client, move in ((ann, "C3"), (bob, "pass"), (ann, "pass"), (bob, "done"), (ann, "done")):
                await client.move(room, move)
            record = await ann.game_record(room, "json")
            assert (record["result"]["reason"], record["result"]["score"]) == ("passes", [25, 7])
            sgf = await ann.game_record(room, "sgf")
            assert "RU[NZ]" in sgf and "KM[7]" in sgf
    finally:
        await server.close()


def test_a_ruleset_this_client_does_not_know_is_refused_with_the_reason():
    """A newer server's preset: the bridge judges every engine answer with its own polygo.rules,
    so it cannot play a ruleset that polygo.rules lacks, and says so before sitting."""
    assert NAME not in PRESETS
    reason = GtpBot(GNUGO).refusal({"rules": NAME, "board": "9x9", "players": 2})
    assert reason is not None and "does not know the test-nz rules" in reason
