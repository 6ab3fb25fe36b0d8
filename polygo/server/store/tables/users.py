"""The ``users`` table: registered names, their password hashes, and each name's skeleton
(``polygo.protocol.names.skeleton``), so that a name that looks like a registered one is refused.
"""

from __future__ import annotations

import time
from typing import Any

from polygo.protocol.names import skeleton

from ..commits import GroupCommit
from ..errors import StoreError
from ..values import check_text

WRITES: dict[str, str] = {
    "user": "INSERT INTO users (name, password_hash, created_at, skeleton) VALUES (?, ?, ?, ?)",
    "password": "UPDATE users SET password_hash = ? WHERE name = ?",
}


class UserQueries(GroupCommit):
    """The store's queries of ``users``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._users_reserved: set[str] = set()   # skeletons of the names being registered

    async def put_user(self, name: str, password_hash: str) -> None:
        """Register ``name``; StoreError("name-taken") if it, or a name that looks like it (the same
        ``polygo.protocol.names.skeleton``), is registered or being registered."""
        self._check_open()
        check_text("name", name)
        check_text("password_hash", password_hash)
        key = skeleton(name)
        if key in self._users_reserved:
            raise StoreError("name-taken", f"The name {name!r} is being registered.")
        self._users_reserved.add(key)
        try:
            like = await self.registered_like(name)
            if like is not None:
                raise StoreError("name-taken", f"The name {name!r} is already registered." if like == name else
                                 f"The name {name!r} looks like the registered name {like!r}.")
            await self._write([("user", (name, password_hash, time.time(), key))])
        finally:
            self._users_reserved.discard(key)

    async def registered_like(self, name: str) -> str | None:
        """The registered name that ``name`` is or looks like, or None."""
        row = await self._one("SELECT name FROM users WHERE skeleton = ? ORDER BY name = ? DESC LIMIT 1",
                              (skeleton(name), name))
        return None if row is None else row[0]

    async def get_user(self, name: str) -> dict | None:
        row = await self._one("SELECT name, password_hash FROM users WHERE name = ?", (name,))
        return None if row is None else {"name": row[0], "password_hash": row[1]}

    async def set_password(self, user: str, password_hash: str) -> None:
        """Replace a registered user's password hash (the user exists: `get_user`)."""
        check_text("user", user)
        check_text("password_hash", password_hash)
        await self._write([("password", (password_hash, user))])
