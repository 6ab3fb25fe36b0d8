"""Group commit: concurrent record() calls from many rooms share transactions, and share failure."""

from __future__ import annotations

import asyncio

import pytest

from polygo.server.store import Store, StoreError


async def rooms(store: Store, count: int) -> list[str]:
    ids = [f"room-{i}" for i in range(count)]
    for room_id in ids:
        await store.create_room(room_id, {"board": "19"}, owner="t", invite=None)
    return ids


async def test_a_hundred_concurrent_records_share_a_few_transactions(db):
    store = await Store.open(db, group_window=0.005)
    try:
        ids = await rooms(store, 100)
        before = store.stats.transactions
        await asyncio.gather(*(store.record(r, 1, {"move": "D4"}, move=(0, "D4", 1)) for r in ids))
        transactions = store.stats.transactions - before
        assert transactions <= 3, transactions
        assert store.stats.largest_batch >= 34
        for room_id in ids:
            assert await store.events_since(room_id, 0) == [{"move": "D4"}]
    finally:
        await store.close()


async def test_records_arriving_during_a_commit_join_the_next_transaction(db):
    store = await Store.open(db, group_window=0)
    try:
        ids = await rooms(store, 60)
        before = store.stats.transactions
        first = asyncio.ensure_future(store.record(ids[0], 1, {}))
        await asyncio.sleep(0.0005)  # the first record's commit is under way
        await asyncio.gather(first, *(store.record(r, 1, {}) for r in ids[1:]))
        assert store.stats.transactions - before <= 3
    finally:
        await store.close()


async def test_one_transaction_per_record_without_grouping(db):
    store = await Store.open(db, max_batch=1)
    try:
        ids = await rooms(store, 100)
        before = store.stats.transactions
        await asyncio.gather(*(store.record(r, 1, {}) for r in ids))
        assert store.stats.transactions - before == 100
    finally:
        await store.close()


POISON = {
    "sqlite": ["CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.room_id = 'poison'"
               " BEGIN SELECT RAISE(ABORT, 'poisoned'); END"],
    "postgres": ["CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
                 " $$ BEGIN IF NEW.room_id = 'poison' THEN RAISE 'poisoned'; END IF; RETURN NEW; END $$",
                 "CREATE TRIGGER refuse BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse()"],
}


async def test_a_failed_write_fails_its_own_rooms_callers_and_none_of_its_neighbours(raw):
    store = await Store.open(raw.target, group_window=0.02)
    try:
        ids = await rooms(store, 20)
        await store.create_room("poison", {}, owner="t", invite=None)
        # A real failure inside the transaction: a trigger refuses the poison room's event.
        for sql in POISON[raw.dialect]:
            raw.execute(sql)
        before = store.stats.transactions
        outcomes = await asyncio.gather(*(store.record(r, 1, {"n": 1}, move=(0, "D4", 1))
                                          for r in [*ids, "poison"]), return_exceptions=True)
        assert outcomes[:-1] == [None] * len(ids), outcomes
        assert isinstance(outcomes[-1], StoreError) and outcomes[-1].code == "commit-failed"
        assert "poisoned" in str(outcomes[-1])
        assert store.stats.failed >= 1 and store.stats.transactions > before
        for room_id in ids:
            assert [e["n"] for e in await store.events_since(room_id, 0)] == [1]
            assert (await store.game(room_id))["moves"] == [[0, "D4", 1, False]]
        assert (await store.game("poison"))["moves"] == []
        # Nothing of the poison room stuck, so the same version and move number go in once it is cured.
        raw.execute("DROP TRIGGER refuse" + (" ON events" if raw.dialect == "postgres" else ""))
        await store.record("poison", 1, {"n": 1}, move=(0, "D4", 1))
        assert (await store.game("poison"))["moves"] == [[0, "D4", 1, False]]
        await asyncio.gather(*(store.record(r, 2, {"n": 2}, move=(1, "E5", 2)) for r in ids))
    finally:
        await store.close()


async def test_records_arriving_within_the_window_share_a_transaction(db):
    store = await Store.open(db, group_window=0.2)
    try:
        ids = await rooms(store, 3)
        await asyncio.gather(store.record(ids[0], 1, {}), store.record(ids[1], 1, {}))  # rooms are busy
        before = store.stats.transactions
        first = asyncio.ensure_future(store.record(ids[0], 2, {}))
        await asyncio.sleep(0.05)
        await asyncio.gather(first, store.record(ids[2], 1, {}))
        assert store.stats.transactions - before == 1
    finally:
        await store.close()


async def test_a_lone_room_does_not_wait_for_the_window(db):
    """A window of an hour: each record of a lone room is committed without waiting for it (the
    guard only turns a wait for the window into a failure instead of a hang)."""
    store = await Store.open(db, group_window=3600)
    try:
        await store.create_room("r", {}, owner="t", invite=None)
        for version in range(1, 11):
            await asyncio.wait_for(store.record("r", version, {}), 60)
        assert store.stats.transactions >= 10
    finally:
        await store.close()
