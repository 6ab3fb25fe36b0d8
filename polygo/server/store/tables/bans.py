"""The ``bans`` table: the operator's bans (``bans.py`` decides what they match)."""

from __future__ import annotations

import time

from ..commits import GroupCommit
from ..values import check_text

WRITES: dict[str, str] = {
    "ban": "INSERT INTO bans (kind, value, shown, reason, created_at) VALUES (?, ?, ?, ?, ?)"
           " ON CONFLICT (kind, value) DO UPDATE SET shown = excluded.shown, reason = excluded.reason",
    "unban": "DELETE FROM bans WHERE kind = ? AND value = ?",
}


class BanQueries(GroupCommit):
    """The store's queries of ``bans``."""

    async def bans(self) -> list[dict]:
        """Every ban, oldest first: `kind`, `value` (what is matched), `shown`, `reason`, `created_at`."""
        rows = await self._all("SELECT kind, value, shown, reason, created_at FROM bans ORDER BY created_at")
        return [{"kind": k, "value": v, "shown": s, "reason": r, "created_at": t} for k, v, s, r, t in rows]

    async def ban(self, kind: str, value: str, shown: str, reason: str) -> None:
        for what, text in (("kind", kind), ("value", value), ("shown", shown), ("reason", reason)):
            check_text(what, text)
        await self._write([("ban", (kind, value, shown, reason, time.time()))])

    async def unban(self, kind: str, value: str) -> None:
        await self._write([("unban", (kind, value))])
