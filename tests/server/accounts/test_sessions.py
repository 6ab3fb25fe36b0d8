"""Sessions: a bounded memory of recent ones over the store that keeps them all."""

from polygo.server.accounts.sessions import Sessions
from polygo.server.store import Store


async def test_session_cache_is_bounded_and_evicted_sessions_come_back_from_the_store(tmp_path):
    store = await Store.open(str(tmp_path / "s.db"))
    try:
        sessions = Sessions(store, cached=3)
        made = [await sessions.new(f"guest{i}") for i in range(5)]
        assert len(sessions._cache) == 3
        first = await sessions.resume(made[0].token)        # evicted, read back from SQLite
        assert (first.token, first.name) == (made[0].token, "guest0")
        assert len(sessions._cache) == 3 and made[1].token not in sessions._cache
        assert await sessions.lookup("no-such-token") is None
    finally:
        await store.close()


def test_room_ids_and_invitations_are_safe_on_a_command_line():
    from polygo.server.rooms.table import CODE_LETTERS, code

    ids = {code(8) for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) == 8 and set(i) <= set(CODE_LETTERS) for i in ids)
    assert not set("-_0O1lI") & set(CODE_LETTERS)
