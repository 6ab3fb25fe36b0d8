"""Finding games in a cluster, behind HAProxy: one node finds games for all (polygo/server/cluster/finder.py), so
two seekers connected to two other nodes are sent to it (`moved`), meet there, and play the room
it started; when that node is killed another takes the role and seeking goes on."""

from __future__ import annotations

import asyncio

from polygo.protocol import Matched

from polygo.client.session import Client

from .test_clients import stored

GUARD = 60.0


async def matched(client: Client) -> Matched:
    while True:
        notice = await asyncio.wait_for(client.notices.get(), GUARD)
        if isinstance(notice, Matched):
            return notice


async def seek_pair(cluster, nodes: tuple[str, str], names: tuple[str, str]) -> tuple[Matched, Matched]:
    async with Client(f"{cluster.url}/n/{nodes[0]}/", name=names[0], user=names[0], password="pw") as one, \
            Client(f"{cluster.url}/n/{nodes[1]}/", name=names[1], user=names[1], password="pw") as two:
        for client in (one, two):
            await client.seek(pool="chinese-9x9")
        found = (await matched(one), await matched(two))
        assert found[0].room == found[1].room and {m.seat for m in found} == {0, 1}
        for client, m in zip((one, two), found):
            view = await client.sit(m.room, m.seat)
            assert view.status == "playing"
        return found


async def test_seekers_at_two_nodes_meet_at_the_finder_and_a_new_finder_takes_over(cluster, postgres):
    finder = stored(postgres, cluster, "SELECT node_id FROM finder")
    others = tuple(node for node in "abc" if node != finder)
    first, _ = await seek_pair(cluster, others, ("ann", "bob"))
    assert stored(postgres, cluster, f"SELECT owner_node FROM rooms WHERE room_id = '{first.room}'") == finder
    cluster.kill(finder)
    for _ in range(200):
        now = stored(postgres, cluster, "SELECT node_id FROM finder")
        if now != finder:
            break
        await asyncio.sleep(0.1)
    assert now in others
    second, _ = await seek_pair(cluster, others, ("cy", "dan"))
    assert stored(postgres, cluster, f"SELECT owner_node FROM rooms WHERE room_id = '{second.room}'") == now
