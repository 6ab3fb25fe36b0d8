"""Sessions end (issue 16, items 10 and 12): a logout revokes a token, idle tokens expire, and chat
is kept for its retention only. Idleness is set in the real SQLite file, then one housekeeping
sweep runs, so nothing here waits for a clock."""

from __future__ import annotations

import sqlite3

from polygo.protocol import PROTOCOL_VERSION

from tests.server.conftest import Client, seat_all

LOGIN = {"protocol": PROTOCOL_VERSION, "password": "correct horse"}


def age(db: str, sql: str, *params: object) -> None:
    """Move stored times into the past, as if that much time had gone by."""
    with sqlite3.connect(db) as con:
        con.execute(sql, params)


async def game(connect_client, black: str, white: str, port: int | None = None) -> tuple[Client, Client, str]:
    """Two guests named `black` and `white` seated in a new 9x9 room (its game started)."""
    players = []
    for name in (black, white):
        client = await connect_client(port=port)
        await client.hello(name)
        players.append(client)
    room = await seat_all(players, {"rules": "chinese", "board": "9"})
    return players[0], players[1], room


async def test_logout_revokes_the_token_on_every_connection(connect_client):
    first = await connect_client()
    await first.hello("dora")
    second, third = await connect_client(), await connect_client()
    await second.ok("hello", protocol=PROTOCOL_VERSION, token=first.token)
    await third.ok("hello", protocol=PROTOCOL_VERSION, token=first.token)
    assert (await first.ok("logout"))["ref"] == "logout"
    assert (await third.ok("hello", protocol=PROTOCOL_VERSION, name="dora"))["token"] != first.token
    assert (await first.request("list"))["code"] == "no-session"
    ended = await second.request("list")
    assert ended["code"] == "no-session" and "ended" in ended["message"]
    again = await connect_client()
    assert (await again.request("hello", protocol=PROTOCOL_VERSION, token=first.token))["code"] == "bad-token"
    await first.hello("dora")


async def test_logout_everywhere_ends_every_session_of_the_user(connect_client):
    guest = await connect_client()
    await guest.hello("guest")
    await guest.ok("register", user="erin", password="correct horse")
    phone = await connect_client()
    phone_token = (await phone.ok("hello", user="erin", **LOGIN))["token"]
    laptop = await connect_client()
    await laptop.ok("hello", user="erin", **LOGIN)
    await laptop.ok("logout", everywhere=True)
    assert (await phone.request("list"))["code"] == "no-session"
    assert (await guest.request("list"))["code"] == "no-session"
    again = await connect_client()
    for token in (guest.token, phone_token):
        assert (await again.request("hello", protocol=PROTOCOL_VERSION, token=token))["code"] == "bad-token"
    await again.ok("hello", user="erin", **LOGIN)


async def test_idle_sessions_expire_unless_seated_in_a_game(server, connect_client):
    idle, seated, opponent = await connect_client(), await connect_client(), await connect_client()
    await idle.hello("idle")
    await seated.hello("seated")
    await opponent.hello("opponent")
    room = (await seated.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await seated.ok("sit", room=room, seat=0)
    await opponent.ok("sit", room=room, seat=1)
    age(server.config.db, "UPDATE sessions SET last_seen = last_seen - ?", server.config.session_idle + 60)
    await server.housekeep()
    assert (await idle.request("list"))["code"] == "no-session"
    fresh = await connect_client()
    assert (await fresh.request("hello", protocol=PROTOCOL_VERSION, token=idle.token))["code"] == "bad-token"
    welcome = await fresh.ok("hello", protocol=PROTOCOL_VERSION, token=seated.token)
    assert welcome["seats"] == [{"room": room, "seat": 0, "last_seq": None}]
    with sqlite3.connect(server.config.db) as con:
        assert con.execute("SELECT count(*) FROM sessions WHERE token = ?", (idle.token,)).fetchone() == (0,)


async def test_a_finished_games_players_keep_their_names_when_their_sessions_expire(server, connect_client):
    black, white, room = await game(connect_client, "black", "white")
    await black.ok("move", room=room, move="resign", seq=1)
    age(server.config.db, "UPDATE sessions SET last_seen = last_seen - ?", server.config.session_idle + 60)
    await server.housekeep()
    assert (await black.request("list"))["code"] == "no-session"
    reader = await connect_client()
    await reader.hello("reader")
    games = (await reader.ok("games"))["games"]
    assert [g["seats"] for g in games if g["room"] == room] == [["black", "white"]]


async def test_chat_is_deleted_after_its_retention(make_server, config, connect_client):
    srv = await make_server()
    black, white, room = await game(connect_client, "black", "white", srv.port)
    await black.ok("chat", room=room, text="an old line")
    await black.move(room, "E5", 1)
    await white.ok("chat", room=room, text="a new line")
    age(config.db, "UPDATE events SET chat_at = chat_at - ? WHERE body LIKE '%an old line%'",
        config.chat_retention + 60)
    await srv.housekeep()
    with sqlite3.connect(config.db) as con:
        texts = [row[0] for row in con.execute("SELECT json_extract(body, '$.text') FROM events"
                                               " WHERE json_extract(body, '$.kind') = 'chat'")]
    assert texts == ["a new line"]
    await srv.close()
    srv = await make_server()
    again = await connect_client(port=srv.port)
    await again.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
    resync = await again.ok("watch", room=room, since=0)
    assert resync["type"] == "snapshot", "a resync over a deleted line must not skip it silently"


async def test_a_seat_keeps_its_name_after_its_session_logged_out_and_a_restart(make_server, connect_client):
    srv = await make_server()
    gina, _, room = await game(connect_client, "gina", "hal", srv.port)
    await gina.ok("logout")
    await srv.close()
    srv = await make_server()
    again = await connect_client(port=srv.port)
    await again.hello("reader")
    snapshot = await again.ok("watch", room=room)
    assert [s["name"] for s in snapshot["seats"]] == ["gina", "hal"]


async def test_chat_past_its_retention_leaves_a_live_rooms_resync_window(server, connect_client):
    """The room is not restarted: its in-memory window of recent events must lose the line too, or
    a resync would serve a line the store deleted."""
    black, white, room = await game(connect_client, "black", "white")
    await black.ok("chat", room=room, text="an old line")
    old = (await black.event("chat"))["version"]
    await black.move(room, "E5", 1)
    await white.ok("chat", room=room, text="a new line")
    age(server.config.db, "UPDATE events SET chat_at = chat_at - ? WHERE body LIKE '%an old line%'",
        server.config.chat_retention + 60)
    await server.housekeep()
    again = await connect_client()
    await again.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
    for since in (0, old - 1):
        resync = await again.ok("watch", room=room, since=since)
        assert resync["type"] == "snapshot", f"a resync from {since} served a deleted line: {resync}"
        assert [line["text"] for line in resync["chat"]] == ["a new line"], "the chat tail kept a deleted line"
    after = await again.ok("watch", room=room, since=old)
    assert [e["kind"] for e in after["events"]] == ["move", "chat"]
    assert after["events"][-1]["text"] == "a new line"
