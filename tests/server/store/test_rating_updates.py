"""Rating updates as steps of the transaction that stores a result, on SQLite and PostgreSQL: two
games that share a player and end at the same moment through two stores (two cluster nodes on one
PostgreSQL database) are both applied, one after the other; a game's update is applied once however
often its result is written; the stored ratings equal a replay of the rated games in order."""

from __future__ import annotations

import asyncio

from polygo.server.finding.pool_store import PoolQueries
from polygo.server.finding.ratings import RatedGame, replay, update_step
from polygo.server.store import Store


async def end(store: Store, room: str, game: RatedGame, version: int = 2) -> None:
    await store.record(room, version, {"kind": "move"}, result={"reason": "resignation", "ranking": list(game.ranks)},
                       step=update_step(game, 1.0))


async def test_two_games_sharing_a_player_end_at_once_on_two_stores(db):
    one, two = await Store.open(db), await Store.open(db)
    try:
        games = [RatedGame("r1", "p", ("ann", "bob"), (1, 2)), RatedGame("r2", "p", ("cy", "ann"), (1, 2))]
        for store, game in zip((one, two), games):
            await store.create_room(game.room, {"players": 2}, owner="t", invite=None)
            await store.record(game.room, 1, {"kind": "start"})
        await asyncio.gather(end(one, "r1", games[0]), end(two, "r2", games[1]))
        order = [room for (room,) in await one.query("SELECT room_id FROM rated_games ORDER BY seq")]
        expected, _ = replay(sorted(games, key=lambda g: order.index(g.room)))
        stored = await PoolQueries(one).ratings_of("ann")
        assert stored["p"] == expected[("p", "ann")] and stored["p"].games == 2
        await end(one, "r1", games[0], version=3)       # the same game's result written again: no second update
        assert (await PoolQueries(one).ratings_of("ann"))["p"] == expected[("p", "ann")]
        report = await PoolQueries(one).rebuild(write=False)
        assert (report.games, report.differed) == (2, [])
    finally:
        await one.close()
        await two.close()
