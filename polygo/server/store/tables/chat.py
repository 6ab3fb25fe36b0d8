"""Chat lines: events of kind ``chat`` in the ``events`` table, marked by ``chat_at`` (when they
were said), so that they can be read apart, removed by the operator and dropped after their
retention.
"""

from __future__ import annotations

import json

from ..commits import GroupCommit
from ..values import check_int, check_text

WRITES: dict[str, str] = {
    "drop_chat": "DELETE FROM events WHERE chat_at < ?",
    "remove_chat": "DELETE FROM events WHERE room_id = ? AND version = ? AND chat_at IS NOT NULL",
}


class ChatQueries(GroupCommit):
    """The store's queries of chat lines."""

    async def chat_line(self, room_id: str, version: int) -> dict | None:
        """The chat event at `version` of the room, or None (no such line, or not a chat line)."""
        row = await self._one("SELECT body FROM events WHERE room_id = ? AND version = ? AND chat_at IS NOT NULL",
                              (room_id, version))
        return None if row is None else json.loads(row[0])

    async def remove_chat(self, room_id: str, version: int) -> None:
        """Delete the chat line at `version` of the room (a resync over it then finds a gap)."""
        check_text("room", room_id)
        check_int("version", version)
        await self._write([("remove_chat", (room_id, version))])

    async def drop_chat(self, said_before: float) -> dict[str, int]:
        """Forget the chat lines said before ``said_before`` (a time.time()): the retention of chat.
        A client resyncing over them finds a gap in the versions, as after any event it may skip.
        Returns each room's last version dropped, so that live rooms can drop them from memory too
        (a line said now is never before the cutoff, so the rows read are the rows deleted)."""
        rows = await self._all("SELECT room_id, max(version) FROM events WHERE chat_at < ? GROUP BY room_id",
                               (said_before,))
        if rows:
            await self._write([("drop_chat", (said_before,))])
        return {room_id: version for room_id, version in rows}

    async def chat_tail(self, room_id: str, lines: int) -> list[dict]:
        """The room's last ``lines`` chat lines still kept, oldest first, as their events less the kind."""
        rows = await self._all("SELECT body FROM events WHERE room_id = ? AND chat_at IS NOT NULL"
                               " ORDER BY version DESC LIMIT ?", (room_id, lines))
        tail = [json.loads(body) for (body,) in reversed(rows)]
        for line in tail:
            del line["kind"]
        return tail
