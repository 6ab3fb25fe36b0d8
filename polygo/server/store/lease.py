"""Cluster mode's room ownership: each node's lease in PostgreSQL, and the fence that ends it.

A room has one owner, ``rooms.owner_node/owner_epoch``, and a node owns rooms only while its row
in ``nodes(node_id, epoch, url, expires_at)`` is live. Why it is built this way (docs/cluster.md):

- Every group commit first renews the lease, ``UPDATE nodes ... WHERE node_id = me AND epoch = e
  AND expires_at > clock_timestamp()``, in the same transaction as the moves. Zero rows means the
  node was fenced (its lease ran out, or another node bumped its epoch): the batch rolls back and
  nothing in it is acknowledged. Only PostgreSQL's clock is read, so a node paused for a minute
  cannot commit when it wakes, whatever its own clock says.
- Taking a room over locks the owner's row, and bumps the owner's epoch unless the owner is
  already fenced; the owner's next commit then finds zero rows. Row locks order the two: a renewal
  that committed first is seen by the taker (the lease is live again), a takeover that committed
  first is seen by the renewal (the epoch moved).
- The lease alone would leave a crashed node's rooms unplayable until it ran out. Each node holds
  a session advisory lock, keyed by its id, on its writing connection; PostgreSQL releases it when
  that connection's backend ends, which a killed process's does at once. A taker that can take the
  lock knows no commit of the owner can follow, and takes over without waiting for the lease.
- A node (re)joining takes its lock first (a second live process with the same id is refused) and
  gets a new epoch, so rooms it owned in an earlier life are orphans any node may claim.
- A PostgreSQL restart frees every node's lock at once, though no node died. A free lock counts
  as death only if the owner renewed its lease after PostgreSQL started (a live node takes its
  lock again before it renews); otherwise its lease decides.
- The lease says the node may write; ``OWNED`` says which rooms. Every transaction of the writer
  locks the rows of the rooms it writes, and only those whose owner is this node at this epoch:
  a room taken by another node meanwhile, or owned by an earlier life of this node, has its
  writes left out of the batch. The locks hold until COMMIT, so no claim changes the owner
  between the check and the commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import StoreError, Unavailable

NODE_KEY = "SELECT hashtextextended('polygo-node:' || $1, 0)"
"""The advisory lock key of a node id (64 bits; a collision would only delay a takeover)."""


@dataclass(frozen=True)
class Lease:
    """What a node says about itself when it joins: its id, where clients reach it, how long a
    renewal holds."""

    node_id: str
    url: str
    seconds: float = 10.0


class Fenced(Unavailable):
    """The node's lease is gone: nothing it tries to commit can commit until it rejoins."""

    def __init__(self, node_id: str, epoch: int) -> None:
        super().__init__("fenced", f"Node {node_id!r} (epoch {epoch}) was fenced: its lease expired or "
                                   f"another node took over its rooms; nothing more was committed.")


class OwnedElsewhere(StoreError):
    """The room's owner holds a live lease: ask there, or again after ``retry_after`` seconds."""

    def __init__(self, room_id: str, node_id: str, url: str, retry_after: float) -> None:
        super().__init__("owned-elsewhere", f"Room {room_id!r} is served by node {node_id!r}.")
        self.node_id = node_id
        self.url = url
        self.retry_after = retry_after


JOIN = ("INSERT INTO nodes (node_id, epoch, url, expires_at)"
        " VALUES ($1, 1, $2, clock_timestamp() + make_interval(secs => $3))"
        " ON CONFLICT (node_id) DO UPDATE SET epoch = nodes.epoch + 1, url = excluded.url,"
        " expires_at = excluded.expires_at RETURNING epoch")

RENEW = ("UPDATE nodes SET expires_at = clock_timestamp() + make_interval(secs => $1)"
         " WHERE node_id = $2 AND epoch = $3 AND expires_at > clock_timestamp()")

OWNER = "SELECT owner_node, owner_epoch FROM rooms WHERE room_id = $1 FOR UPDATE"

OWNER_LEASE = ("SELECT epoch, url, extract(epoch FROM expires_at - clock_timestamp()), expires_at"
               " FROM nodes WHERE node_id = $1 FOR UPDATE")

FENCE = "UPDATE nodes SET epoch = epoch + 1 WHERE node_id = $1"

LIVE = "SELECT expires_at > clock_timestamp() FROM nodes WHERE node_id = $1 AND epoch = $2"

CLAIM = "UPDATE rooms SET owner_node = $2, owner_epoch = $3 WHERE room_id = $1"

DEAD = ("pg_try_advisory_xact_lock(hashtextextended('polygo-node:' || {node}, 0))"
        " AND {expires} - make_interval(secs => {lease}) > pg_postmaster_start_time()")
"""The owner's process is gone: its lock is free, and it held it after PostgreSQL's start (it
renewed since; ``{lease}`` is the asker's own lease, the cluster's nodes sharing one)."""

DEAD_OWNER = "SELECT " + DEAD.format(node="$1", expires="$2::timestamptz", lease="$3")

ORPHANS = ("SELECT r.room_id FROM rooms r LEFT JOIN nodes n ON n.node_id = r.owner_node"
           " WHERE r.room_id NOT IN (SELECT room_id FROM results)"
           " AND (r.owner_node, r.owner_epoch) IS DISTINCT FROM ($2, $4::bigint)"
           " AND (r.owner_node IS NULL OR n.epoch IS DISTINCT FROM r.owner_epoch"
           " OR n.expires_at <= clock_timestamp() OR " + DEAD.format(node="r.owner_node", expires="n.expires_at",
                                                                    lease="$3") + ")"
           " ORDER BY r.updated_at LIMIT $1")
"""Unfinished rooms whose owner is gone: none, fenced since, out of lease, or its process dead.
The asking node's own rooms at its epoch are left out (it serves them already)."""

OWNED = ("SELECT room_id FROM rooms WHERE room_id = ANY($1::text[]) AND owner_node = $2 AND owner_epoch = $3"
         " FOR NO KEY UPDATE")
"""Of the rooms a batch writes, those this node owns at this epoch, locked until COMMIT."""
