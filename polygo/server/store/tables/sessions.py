"""The ``sessions`` table: a token issued on first contact (or at login), its name and user,
when it was last used, and its revocation (logout, expiry). A seat names its player through it,
so a session that ever sat is revoked, never deleted.
"""

from __future__ import annotations

import time

from ..commits import GroupCommit
from ..values import check_text

WRITES: dict[str, str] = {
    "session": 'INSERT INTO sessions (token, name, "user", created_at, last_seen) VALUES (?, ?, ?, ?, ?)'
               ' ON CONFLICT (token) DO UPDATE SET name = excluded.name, "user" = excluded."user"',
    "touch": "UPDATE sessions SET last_seen = ? WHERE token = ?",
    "forget_session": "DELETE FROM sessions WHERE token = ? AND NOT EXISTS (SELECT 1 FROM seats WHERE token = ?)"
                      " AND NOT EXISTS (SELECT 1 FROM rooms WHERE owner = ?)",
    "revoke": "UPDATE sessions SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL",
    "revoke_user": 'UPDATE sessions SET revoked_at = ? WHERE "user" = ? AND revoked_at IS NULL',
}


class SessionQueries(GroupCommit):
    """The store's queries of ``sessions``."""

    async def put_session(self, token: str, name: str, user: str | None = None) -> None:
        check_text("token", token)
        check_text("name", name)
        check_text("user", user, optional=True)
        now = time.time()
        await self._write([("session", (token, name, user, now, now))])

    async def get_session(self, token: str) -> dict | None:
        """The session of ``token``; None if there is none, or it was revoked or expired."""
        row = await self._one('SELECT token, name, "user" FROM sessions WHERE token = ? AND revoked_at IS NULL',
                              (token,))
        return None if row is None else {"token": row[0], "name": row[1], "user": row[2]}

    async def session_name(self, token: str) -> tuple[str, str | None] | None:
        """The name and user of the session ``token``, also a revoked one (a seat keeps its name)."""
        row = await self._one('SELECT name, "user" FROM sessions WHERE token = ?', (token,))
        return None if row is None else (row[0], row[1])

    async def touch_session(self, token: str) -> None:
        """The session was used now (its idle time starts again)."""
        await self._write([("touch", (time.time(), token))])

    async def revoke_sessions(self, token: str, user: str | None = None) -> None:
        """End the session ``token`` (logout), and with ``user`` every session of that user."""
        check_text("token", token)
        check_text("user", user, optional=True)
        now = time.time()
        statements: list[tuple[str, tuple]] = [("revoke", (now, token))]
        if user is not None:
            statements.append(("revoke_user", (now, user)))
        await self._write(statements)

    async def expire_sessions(self, idle_since: float, limit: int = 10_000) -> list[str]:
        """End the sessions unused since ``idle_since`` (a time.time()) that hold no seat in an
        unfinished game; returns their tokens. A session that never sat nor created a room is
        deleted; the others are revoked and kept, because finished games name their players
        through them."""
        rows = await self._all(
            "SELECT token FROM sessions WHERE revoked_at IS NULL AND last_seen < ? AND token NOT IN"
            " (SELECT token FROM seats WHERE token IS NOT NULL AND room_id NOT IN (SELECT room_id FROM results))"
            " LIMIT ?", (idle_since, limit))
        tokens = [token for (token,) in rows]
        if tokens:
            now = time.time()
            await self._write([("forget_session", (t, t, t)) for t in tokens] + [("revoke", (now, t)) for t in tokens])
        return tokens
