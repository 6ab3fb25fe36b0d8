"""Each store call writes what the next one reads back, through a real SQLite file."""

from __future__ import annotations

import asyncio

import pytest

from polygo.server.store import Store, StoreError

SETTINGS = {"rules": "kee", "board": "9x9", "players": 3, "clock": {"kind": "byoyomi", "main": 600,
                                                                     "periods": 5, "period": 30}}


async def test_sessions(store):
    assert await store.get_session("t1") is None
    await store.put_session("t1", "ann")
    assert await store.get_session("t1") == {"token": "t1", "name": "ann", "user": None}
    await store.put_session("t1", "Ann", user="ann")  # a session that logs in keeps its token
    assert await store.get_session("t1") == {"token": "t1", "name": "Ann", "user": "ann"}


async def test_users_and_taken_names(store):
    await store.put_user("ann", "scrypt$abc")
    assert await store.get_user("ann") == {"name": "ann", "password_hash": "scrypt$abc"}
    assert await store.get_user("bob") is None
    with pytest.raises(StoreError) as info:
        await store.put_user("ann", "scrypt$other")
    assert info.value.code == "name-taken" and "'ann'" in str(info.value)
    assert (await store.get_user("ann"))["password_hash"] == "scrypt$abc"


async def test_two_registrations_of_one_name_at_once(store):
    outcomes = await asyncio.gather(store.put_user("cy", "h1"), store.put_user("cy", "h2"),
                                    return_exceptions=True)
    assert sum(o is None for o in outcomes) == 1
    assert [o.code for o in outcomes if o is not None] == ["name-taken"]


async def test_room_seats_moves_events(store):
    await store.put_session("tA", "ann")
    await store.put_session("tB", "bob")
    await store.create_room("r1", SETTINGS, owner="tA", invite="XK3P")
    with pytest.raises(StoreError, match="already a room") as info:
        await store.create_room("r1", SETTINGS, owner="tB", invite=None)
    assert info.value.code == "room-exists"
    await store.set_seat("r1", 0, "tA")
    await store.set_seat("r1", 1, "tB")
    await store.set_seat("r1", 2, "tB")
    await store.set_seat("r1", 2, None)  # bob leaves the third seat
    await store.record("r1", 1, {"type": "seated", "seat": 0})
    await store.record("r1", 2, {"type": "move", "move": "D4"}, move=(0, "D4", 1), clocks={"seats": [1]})
    await store.record("r1", 3, {"type": "move", "move": "appeal D4"}, move=(1, "appeal D4", 1))
    await store.record("r1", 4, {"type": "move", "move": "pass", "rescinded": [0, 1, 2]},
                       move=(0, "pass", 2), rescinded=[0, 1, 2])  # the triggering pass is move 2
    await store.record("r1", 5, {"type": "rescinded-self"}, rescinded=[2])  # marking twice is harmless

    assert [e["type"] for e in await store.events_since("r1", 0)] == ["seated", "move", "move", "move",
                                                                      "rescinded-self"]
    assert await store.events_since("r1", 3) == [{"type": "move", "move": "pass", "rescinded": [0, 1, 2]},
                                                 {"type": "rescinded-self"}]
    assert await store.events_since("r1", 5) == []
    assert await store.events_since("nowhere", 0) == []

    game = await store.game("r1")
    assert game["settings"] == SETTINGS and game["owner"] == "tA" and game["invite"] == "XK3P"
    assert game["seats"] == {0: "tA", 1: "tB", 2: None}
    assert game["names"] == {0: "ann", 1: "bob", 2: None}
    assert game["moves"] == [[0, "D4", 1, True], [1, "appeal D4", 1, True], [0, "pass", 2, True]]
    assert game["rescinded"] == [0, 1, 2]
    assert game["clocks"] == {"seats": [1]}  # a record without clocks keeps the last ones
    assert game["version"] == 5 and game["result"] is None and game["finished_at"] is None
    assert await store.game("nowhere") is None


async def test_the_chat_tail_is_the_last_lines_oldest_first(store):
    await store.put_session("tA", "ann")
    await store.create_room("r1", SETTINGS, owner="tA", invite=None)
    for version in range(1, 6):
        line = {"seat": 0, "name": "ann", "user": None, "text": f"line {version}"}
        await store.record("r1", version, {"version": version, "kind": "chat", **line})
    await store.record("r1", 6, {"version": 6, "kind": "move", "seat": 0, "move": "D4"}, move=(0, "D4", 1))
    assert [e["text"] for e in await store.chat_tail("r1", 3)] == ["line 3", "line 4", "line 5"]
    assert (await store.chat_tail("r1", 1))[0] == {"version": 5, "seat": 0, "name": "ann", "user": None, "text": "line 5"}
    assert await store.chat_tail("nowhere", 3) == []


async def test_result_finishes_the_room(store):
    await store.create_room("r1", SETTINGS, owner="t", invite=None)
    await store.create_room("r2", SETTINGS, owner="t", invite=None)
    await store.record("r1", 1, {"type": "move"}, move=(0, "resign", 3),
                       result={"reason": "resignation", "ranking": [2, 1]})
    assert [r["room_id"] for r in await store.unfinished_rooms()] == ["r2"]
    [summary] = await store.finished_games()
    assert summary["room_id"] == "r1" and summary["result"]["ranking"] == [2, 1] and summary["moves"] == 1
    game = await store.game("r1")
    assert game["finished_at"] >= game["created_at"]


async def test_finished_games_latest_first_and_paged(store):
    for i in range(5):
        await store.create_room(f"g{i}", {"n": i}, owner="t", invite=None)
        await store.record(f"g{i}", 1, {"end": i}, result={"reason": "passes"})
    assert [g["room_id"] for g in await store.finished_games()] == ["g4", "g3", "g2", "g1", "g0"]
    assert [g["room_id"] for g in await store.finished_games(limit=2, offset=1)] == ["g3", "g2"]
    assert await store.finished_games(limit=2, offset=9) == []
    await store.create_room("secret", {"n": 5}, owner="t", invite="code")
    await store.record("secret", 1, {"end": 5}, result={"reason": "passes"})
    assert [g["room_id"] for g in await store.finished_games(limit=2)] == ["secret", "g4"]
    assert [g["room_id"] for g in await store.finished_games(limit=2, public=True)] == ["g4", "g3"]
    with pytest.raises(StoreError) as info:
        await store.finished_games(limit=0)
    assert info.value.code == "bad-value"


async def test_refused_writes_name_the_problem_and_change_nothing(store):
    await store.create_room("r1", SETTINGS, owner="t", invite=None)
    await store.record("r1", 1, {"n": 1}, move=(0, "D4", 1))
    cases = [
        (store.record("nowhere", 1, {}), "no-room"),
        (store.set_seat("nowhere", 0, "t"), "no-room"),
        (store.record("r1", 1, {"n": "again"}), "stale-version"),
        (store.record("r1", 0, {}), "stale-version"),
        (store.record("r1", 2, {}, rescinded=[1]), "bad-rescission"),
        (store.record("r1", 2, {}, move=(1, "E5", 1), rescinded=[2]), "bad-rescission"),
        (store.record("r1", 2, {}, rescinded=[-1]), "bad-rescission"),
        (store.record("r1", 2, {"bad": {1, 2}}), "bad-value"),
        (store.record("r1", 2, {"nan": float("nan")}), "bad-value"),
        (store.create_room("r2", {"bad": object()}, owner="t", invite=None), "bad-value"),
        (store.set_seat("r1", -1, "t"), "bad-value"),
        (store.set_seat("r1", 0, 42), "bad-value"),
        (store.record("r1", 2, {}, move=(0, {"not": "text"}, 1)), "bad-value"),
        (store.record("r1", 2, {}, move=(True, "D4", 1)), "bad-value"),
        (store.record("r1", 2, {}, move=(0, "D4", 2**70)), "bad-value"),
        (store.record("r1", 2**64, {}), "bad-value"),
        (store.put_session("t", None), "bad-value"),
        (store.put_user("ann", b"bytes"), "bad-value"),
        (store.put_session("t", "lone \ud800"), "bad-value"),
        (store.record("r1", 2, {"text": "lone \udfff"}), "bad-value"),
        (store.record("r1", 2, {}, move=(0, "D\ud800", 1)), "bad-value"),
    ]
    for call, code in cases:
        with pytest.raises(StoreError) as info:
            await call
        assert info.value.code == code
        assert info.value.message.endswith(".")
    assert await store.events_since("r1", 0) == [{"n": 1}]
    assert await store.game("r2") is None
    await store.record("r1", 2, {"n": 2}, move=(1, "E5", 1), rescinded=[0])  # the store still works
    assert (await store.game("r1"))["rescinded"] == [0]


async def test_everything_survives_reopening(db):
    store = await Store.open(db)
    await store.put_session("tA", "ann")
    await store.create_room("r1", SETTINGS, owner="tA", invite=None)
    await store.set_seat("r1", 0, "tA")
    await store.record("r1", 1, {"v": 1}, move=(0, "D4", 7), clocks={"running": 1})
    await store.record("r1", 2, {"v": 2}, move=(1, "pass", 3))
    await store.close()

    store = await Store.open(db)
    try:
        [room] = await store.unfinished_rooms()
        assert room["room_id"] == "r1" and room["settings"] == SETTINGS
        assert room["seats"] == {0: "tA"}
        assert room["moves"] == [[0, "D4", 7, 1], [1, "pass", 3, 2]]   # seat, move, seq, version
        assert room["rescinded"] == [] and room["clocks"] == {"running": 1} and room["version"] == 2
        assert room["updated_at"] >= room["created_at"]
        with pytest.raises(StoreError) as info:
            await store.record("r1", 2, {"v": "dup"})
        assert info.value.code == "stale-version"  # versions and move numbers come back from the file
        await store.record("r1", 3, {"v": 3}, move=(0, "E5", 8), rescinded=[1])
        assert (await store.game("r1"))["moves"][-2:] == [[1, "pass", 3, True], [0, "E5", 8, False]]
        assert await store.get_session("tA") == {"token": "tA", "name": "ann", "user": None}
    finally:
        await store.close()


async def test_a_closed_store_refuses_calls(db):
    store = await Store.open(db)
    await store.close()
    await store.close()
    with pytest.raises(StoreError) as info:
        await store.put_session("t", "x")
    assert info.value.code == "closed"
    with pytest.raises(StoreError):
        await store.get_session("t")


async def test_close_commits_what_is_queued(db):
    store = await Store.open(db, group_window=0.5)
    await store.create_room("r1", {}, owner="t", invite=None)
    await store.create_room("r2", {}, owner="t", invite=None)
    await asyncio.gather(store.record("r1", 1, {}), store.record("r2", 1, {}))  # the window is on
    pending = asyncio.ensure_future(store.record("r1", 2, {"late": True}))
    await asyncio.sleep(0.01)  # the writer waits out the window
    await store.close()
    await pending
    store = await Store.open(db)
    assert await store.events_since("r1", 1) == [{"late": True}]
    await store.close()


async def test_public_rooms_are_the_unfinished_rooms_without_an_invitation_oldest_first(store):
    await store.put_session("tA", "ann", user="ann")
    for room_id, invite in (("r1", None), ("secret", "code"), ("r2", None), ("r3", None)):
        await store.create_room(room_id, {"players": 2}, owner="tA", invite=invite)
    await store.set_seat("r2", 0, "tA")
    await store.record("r3", 1, {"end": True}, result={"reason": "passes"})
    rooms, total = await store.public_rooms(1, 0)
    assert total == 2 and [r["room_id"] for r in rooms] == ["r1"]
    [room] = (await store.public_rooms(5, 1))[0]
    assert room == {"room_id": "r2", "settings": {"players": 2}, "version": 0, "seats": {0: ("tA", "ann", "ann")}}
    assert await store.public_rooms(5, 2) == ([], 2)


async def test_held_seats_by_session_and_by_user_with_the_last_seq(store):
    await store.put_session("tA", "ann", user="ann")
    await store.put_session("tA2", "ann", user="ann")      # ann logged in elsewhere too
    await store.put_session("tB", "bob")
    for room_id in ("r1", "r2", "done"):
        await store.create_room(room_id, {}, owner="tA", invite=None)
    await store.set_seat("r1", 0, "tA")
    await store.set_seat("r1", 1, "tB")
    await store.set_seat("r2", 1, "tA2")
    await store.set_seat("done", 0, "tA")
    await store.record("r1", 1, {}, move=(0, "D4", 7))
    await store.record("r1", 2, {}, move=(1, "E5", 3))
    await store.record("done", 1, {}, result={"reason": "passes"})
    assert [tuple(r) for r in await store.held_seats("tA", "ann")] == [("r1", 0, 7), ("r2", 1, None)]
    assert [tuple(r) for r in await store.held_seats("tA", None)] == [("r1", 0, 7)]
    assert [tuple(r) for r in await store.held_seats("tB", None)] == [("r1", 1, 3)]


async def test_unfinished_seats_are_the_players_and_taken_seats_without_the_moves(store):
    await store.put_session("tA", "ann", user="ann")
    await store.put_session("tB", "bob")
    for room_id, players in (("r1", 2), ("r2", 3), ("done", 2)):
        await store.create_room(room_id, {"players": players}, owner="tA", invite=None)
    await store.set_seat("r1", 0, "tA")
    await store.set_seat("r1", 1, "tB")
    await store.set_seat("r2", 0, "tB")
    await store.set_seat("r2", 2, "house:1")
    await store.set_seat("r2", 1, "tA")
    await store.set_seat("r2", 1, None)                     # ann left that seat
    await store.record("r1", 1, {}, move=(0, "D4", 7))
    await store.record("done", 1, {}, result={"reason": "passes"})
    assert await store.unfinished_seats() == [
        {"room_id": "r1", "players": 2, "seats": {0: ("tA", "ann"), 1: ("tB", None)}},
        {"room_id": "r2", "players": 3, "seats": {0: ("tB", None), 2: ("house:1", None)}},
    ]
