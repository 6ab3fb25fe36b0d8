"""Finished games over the protocol: listed newest first, fetched as JSON (replayable) and as SGF
that sgfmill loads with the same moves."""

from __future__ import annotations

from sgfmill import sgf

from polygo.rules import Game


async def test_finished_game_as_json_and_sgf(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "komi": 7.5})
    moves = [(black, "E5"), (white, "C3"), (black, "G7"), (white, "pass"), (black, "pass")]
    for i, (client, move) in enumerate(moves):
        assert (await client.move(room, move, i))["type"] == "ack"
    for client in (black, white):
        assert (await client.move(room, "done", 10))["type"] == "ack"

    listed = await white.ok("games", limit=5)
    assert listed["games"][0]["room"] == room and listed["games"][0]["seats"] == ["p0", "p1"]
    assert listed["games"][0]["result"]["reason"] == "passes"

    record = (await black.ok("game", room=room))["record"]
    replayed = Game.from_record(record["record"])
    assert replayed.result is not None and list(replayed.result.ranking) == record["result"]["ranking"]
    assert [h[1] for h in record["history"]] == ["E5", "C3", "G7", "pass", "pass", "done", "done"]

    text = (await black.ok("game", room=room, format="sgf"))["record"]
    game = sgf.Sgf_game.from_string(text)
    assert game.get_size() == 9 and game.get_komi() == 7.5
    assert game.get_player_name("b") == "p0" and game.get_player_name("w") == "p1"
    played = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert [(c, p) for c, p in played if p is not None] == [("b", (4, 4)), ("w", (2, 2)), ("b", (6, 6))]

    assert (await black.request("game", room="missing"))["code"] == "no-such-game"
    assert (await black.request("game", room=room, format="pdf"))["code"] == "bad-field"


async def test_private_games_do_not_take_places_in_a_page(players, seat):
    black, white = await players(2)
    public = await seat([black, white], {"rules": "chinese", "board": "9"})
    assert (await black.move(public, "resign", 0))["type"] == "ack"
    private = (await black.ok("create", settings={"rules": "chinese", "board": "9", "private": True}))
    await black.ok("sit", room=private["room"], seat=0)
    await white.ok("sit", room=private["room"], seat=1, invite=private["invite"])
    assert (await black.move(private["room"], "resign", 0))["type"] == "ack"

    page = (await white.ok("games", limit=1))["games"]
    assert [g["room"] for g in page] == [public]
    assert (await white.ok("games", limit=1, offset=1))["games"] == []
