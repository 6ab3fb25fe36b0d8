"""What the wire tells a client so it needs no rules engine (issue 9, section 2): the legal moves
of the player to move, with reasons for the prohibited points; the effective settings; and what
the list of finished games counts."""

from __future__ import annotations

from polygo.rules import Board, Game


async def test_the_player_to_move_is_told_its_prohibited_points_and_appeals(players, seat):
    """Kee on a 2x1 board: after six captures Black's A1 would repeat a position (rule 11), so it
    is prohibited with reason `cycle` and may be named in an appeal; after the rescission Red's B1
    is excluded (rule 14)."""
    ann, bob, cy = await players(3)
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "2x1", "players": 3})
    start = await ann.event("start")
    assert start["legal"] == {"seat": 0, "pass": True, "prohibited": {}, "appeals": []}
    seqs = iter(range(1, 100))
    for client, move in zip([ann, bob, cy, ann, bob, cy], ["A1", "B1", "A1", "B1", "A1", "B1"]):
        assert (await client.move(room, move, next(seqs)))["type"] == "ack"
        event = await ann.event("move")
    assert event["to_move"] == 0
    assert event["legal"] == {"seat": 0, "pass": True, "prohibited": {"A1": "cycle"}, "appeals": ["A1"]}
    snapshot = await ann.ok("watch", room=room)
    assert snapshot["game"]["legal"] == event["legal"]

    for client, move in [(ann, "appeal A1"), (bob, "pass"), (cy, "pass")]:
        assert (await client.move(room, move, next(seqs)))["type"] == "ack"
        event = await ann.event("move")
    assert event["rescinded"] == [5, 6, 7, 8] and event["to_move"] == 2
    assert event["legal"] == {"seat": 2, "pass": True, "prohibited": {"B1": "rescinded"}, "appeals": []}
    assert (await cy.move(room, "B1", next(seqs)))["reason"] == "rescinded"


async def test_every_events_legal_moves_agree_with_the_engine(players, seat):
    """A mirror game replays the events; at each step the wire's view of the legal stone plays is
    exactly the engine's, and a suicide point shows with its reason."""
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "5"})
    mirror = Game(Board.grid(5, 5), rules="chinese")
    moves = ["E5", "A2", "pass", "B1"]
    for i, move in enumerate(moves):
        client = (black, white)[i % 2]
        assert (await client.move(room, move, i))["type"] == "ack"
        event = await black.event("move")
        mirror.play(move)
        legal = event["legal"]
        stones = mirror.stones()
        allowed = {p for p in mirror.board.points if p not in stones and p not in legal["prohibited"]}
        assert allowed == {m for m in mirror.legal_moves() if m in mirror.board.points}
        assert all(mirror.why_illegal(p) == reason for p, reason in legal["prohibited"].items())
    assert legal == {"seat": 0, "pass": True, "prohibited": {"A1": "suicide"}, "appeals": []}


async def test_every_events_changes_turn_the_last_position_into_the_engines(players, seat):
    """A client that applies each event's changes to the stones it holds has the engine's stones
    after every move: plays, a capture, passes and a suicide of two stones (tromp-taylor), whose
    changes clear the stones it took, not its own point, which was never set."""
    black, white = await players(2)
    room = await seat([black, white], {"rules": "tromp-taylor", "board": "3"})
    mirror = Game(Board.grid(3, 3), rules="tromp-taylor")
    held: dict[str, int] = {}
    moves = ["A2", "B1", "B2", "pass", "C1", "A1", "A1", "C3", "pass", "B3"]
    for i, move in enumerate(moves):
        client = (black, white)[i % 2]
        assert (await client.move(room, move, i + 1))["type"] == "ack"
        event = await black.event("move")
        for point in event["changes"]["clear"]:
            del held[point]
        held.update(event["changes"]["set"])
        mirror.play(move)
        assert held == mirror.stones(), move
        if move == "A1" and i == 5:
            assert event["changes"] == {"clear": ["B1"], "set": {}}


async def test_snapshot_and_export_hold_the_effective_settings(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    snapshot = await black.ok("watch", room=room)
    settings = snapshot["settings"]
    assert settings["komi"] == 7.5 and settings["superko"] == "positional"
    assert settings["clock"] == {"kind": "none"} and settings["handicap_mode"] == "fixed"
    assert (await black.move(room, "resign", 1))["type"] == "ack"
    record = (await black.ok("game", room=room))["record"]
    assert record["settings"] == settings
    assert record["record"]["options"] == {"komi": 7.5, "handicap": 0, "handicap_mode": "fixed",
                                           "superko": "positional"}
    assert Game.from_record(record["record"]).rules.komi == 7.5
    listed = (await black.ok("games"))["games"][0]
    assert listed["settings"] == settings

    kee = (await black.ok("create", settings={"rules": "kee", "board": "5", "players": 3}))["room"]
    settings = (await black.ok("sit", room=kee))["settings"]
    assert settings["komi"] == 0.0 and settings["superko"] is None      # kee has its own repetition rule


async def test_the_games_list_counts_history_entries_after_an_undo(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    for i, (client, move) in enumerate([(black, "E5"), (white, "C3"), (black, "G7")]):
        assert (await client.move(room, move, i))["type"] == "ack"
    await black.ok("undo", room=room)
    await white.ok("undo_reply", room=room, accept=True)
    assert (await black.move(room, "resign", 5))["type"] == "ack"
    record = (await black.ok("game", room=room))["record"]
    assert [h[1] for h in record["history"]] == ["E5", "C3", "resign"]
    listed = (await black.ok("games"))["games"][0]
    assert listed["room"] == room and listed["moves"] == 3
