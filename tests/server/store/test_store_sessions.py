"""Issue 16's store calls (look-alike names, logout, idle sessions, chat retention) on both
databases: PostgreSQL reserves `user`, has no `json_extract`, and types parameters strictly, so
each query is run there as well as on SQLite."""

from __future__ import annotations

import time

import pytest

from polygo.server.store import StoreError


async def test_look_alikes_of_a_registered_name_are_found_and_refused(store):
    await store.put_user("Alice", "h")
    assert await store.registered_like("Alice") == "Alice"
    assert await store.registered_like("\u0430lice") == "Alice"      # a Cyrillic а
    assert await store.registered_like("bob") is None
    with pytest.raises(StoreError) as info:
        await store.put_user("ALICE", "h2")
    assert info.value.code == "name-taken" and "looks like the registered name 'Alice'" in str(info.value)


async def test_logout_everywhere_revokes_every_session_of_the_user(store):
    await store.put_session("t1", "ann", user="ann")
    await store.put_session("t2", "ann", user="ann")
    await store.put_session("t3", "bob")
    await store.revoke_sessions("t1", user="ann")
    assert await store.get_session("t1") is None and await store.get_session("t2") is None
    assert await store.get_session("t3") == {"token": "t3", "name": "bob", "user": None}
    assert await store.session_name("t1") == ("ann", "ann")       # finished games still name him


async def test_idle_sessions_expire_unless_seated_in_an_unfinished_game(store):
    await store.put_session("idle", "ann")
    await store.put_session("seated", "bob")
    await store.create_room("r1", {"rules": "chinese", "board": "9"}, owner="seated", invite=None)
    await store.set_seat("r1", 0, "seated")
    assert sorted(await store.expire_sessions(time.time() + 1)) == ["idle"]
    assert await store.get_session("idle") is None
    assert await store.session_name("idle") is None                # it never sat: deleted
    assert await store.get_session("seated") is not None


async def test_chat_past_its_retention_is_deleted_and_its_versions_reported(store):
    await store.put_session("t", "ann")
    await store.create_room("r1", {"rules": "chinese", "board": "9"}, owner="t", invite=None)
    await store.record("r1", 1, {"kind": "seat", "seat": 0})
    await store.record("r1", 2, {"kind": "chat", "text": "hi"})
    await store.record("r1", 3, {"kind": "chat", "text": "again"})
    assert await store.drop_chat(time.time() - 3600) == {}
    assert await store.drop_chat(time.time() + 1) == {"r1": 3}
    assert [e["kind"] for e in await store.events_since("r1", 0)] == ["seat"]
