"""Cluster mode: one node at a time finds games for the whole cluster (seeks, challenges, arenas).

Matching needs every waiting player in one place, so in a cluster one node, the finder, holds them
all: the others answer a seek, a challenge, an answer to one, `challenges` and `arena` with
`moved` to the finder's path (clients follow it as they do for a room), or `unavailable` while no
node is the finder. The rooms the finder starts are its own; their players reach them by `moved`
as any room's.

The role is a lease in the database, like a room's (``lease.py``): the ``finder`` row names a node
and its epoch, and a node takes it when the row names nobody live (no node with that epoch and a
lease in force, or whose process is gone: its advisory lock is free). Each node asks every third
of a lease, in a step of a group commit (``Store.run_step``), which renews the node's own lease
first: a fenced node cannot hold it. A node that loses the role forgets its seeks and arena members
and closes their connections with 1012, so the clients reconnect and seek again at the new finder.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from polygo.protocol import ErrorCode, ProtocolError

from ..finding.arena import Arena
from ..finding.challenges import Challenges
from ..finding.seeks import Seeks
from ..net.peer import send_elsewhere
from ..store import Store
from ..store.errors import StoreError
from ..store.values import Step
from .takeover import RETRY

log = logging.getLogger("polygo.finder")

CLAIM = ("INSERT INTO finder (id, node_id, epoch) VALUES (1, ?, ?)"
         " ON CONFLICT (id) DO UPDATE SET node_id = excluded.node_id, epoch = excluded.epoch"
         " WHERE (finder.node_id = excluded.node_id AND finder.epoch = excluded.epoch)"
         " OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = finder.node_id AND n.epoch = finder.epoch"
         " AND n.expires_at > clock_timestamp())"
         " OR pg_try_advisory_xact_lock(hashtextextended('polygo-node:' || finder.node_id, 0))"
         " RETURNING node_id")
HOLDER = "SELECT f.node_id, n.url FROM finder f LEFT JOIN nodes n ON n.node_id = f.node_id"


def claim_step(node_id: str, epoch: int, holder: list[tuple[str, str | None]]) -> Step:
    """Take the finder's role if nobody live holds it; `holder` gets (node id, url) of who has it."""
    if not (yield (CLAIM, (node_id, epoch))):
        holder.extend((yield (HOLDER, ())))
    else:
        holder.append((node_id, None))


class FinderHost(Protocol):
    """What the finder's role needs of the hub: the store that holds the role, and the games
    being found here, given up when another node takes the role."""

    store: Store
    seeks: Seeks
    challenges: Challenges
    arena: Arena


class Finder:
    """This node's view of the finder's role."""

    def __init__(self, hub: FinderHost) -> None:
        self.hub = hub
        self.me = hub.store.lease.node_id
        self.holder: tuple[str, str | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def here(self) -> bool:
        return self.holder is not None and self.holder[0] == self.me

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep(), name="finder")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def ask(self) -> None:
        """Take the role if it is free, or learn who has it."""
        holder: list[tuple[str, str | None]] = []
        try:
            await self.hub.store.run_step(claim_step(self.me, self.hub.store.epoch, holder))
        except StoreError as exc:       # fenced, or the database is away: nobody known
            log.warning("the finder's role cannot be asked for now: %s", exc)
        was_here = self.here
        self.holder = holder[0] if holder else None
        if was_here and not self.here:
            self._let_go()
        elif self.here and not was_here:
            log.info("node %s finds games for the cluster", self.me)

    def check(self) -> None:
        """Nothing if this node finds games; else the refusal that sends the client to the one that does."""
        if self.here:
            return
        if self.holder is None or self.holder[1] is None:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "no node finds games just now; ask again",
                                retry_after=RETRY)
        node, url = self.holder
        raise ProtocolError(ErrorCode.MOVED, f"games are found by node {node!r}", node=node, url=url)

    async def _keep(self) -> None:
        period = self.hub.store.lease.seconds / 3
        while True:
            await self.ask()
            await asyncio.sleep(period)

    def _let_go(self) -> None:
        """Another node finds games now: this node's seekers and arena members reconnect there."""
        log.warning("node %s no longer finds games for the cluster", self.me)
        for conn in self.hub.seeks.forget_all() | self.hub.arena.forget_all() | self.hub.challenges.forget_all():
            task = asyncio.create_task(send_elsewhere(conn, "games are found by another node now"))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
