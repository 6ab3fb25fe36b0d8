"""The lists of rooms and games a client asks for: the lobby's page of public rooms (`list`) and
the public finished games (`games`)."""

from __future__ import annotations

from typing import Any

from polygo.protocol import Games, Rooms

from ..store import Store
from .games import effective_settings
from .house_seats import bot_name
from .lobby import Lobby, listed


async def rooms_page(lobby: Lobby, store: Store, limit: int, offset: int, *, shared: bool) -> Rooms:
    """The lobby: from memory on a single server; from the database when the rooms are `shared`
    by the nodes of a cluster, so that every node lists every node's rooms."""
    if not shared:
        return lobby.page(limit, offset)
    rows, total = await store.public_rooms(limit, offset)
    return Rooms(rooms=[listed(row) for row in rows], total=total,
                 next=offset + limit if offset + limit < total else None)


async def finished_games(store: Store, limit: int, offset: int) -> Games:
    """The public finished games, a page of them, from the store."""
    rows = await store.finished_games(limit, offset, public=True)
    games = [{"room": r["room_id"], "settings": effective_settings(r["settings"]),
              "seats": seat_names(r["names"], r["settings"], r["seats"]),
              "registered": [user is not None for user in seat_names(r["users"], r["settings"])],
              "result": r["result"], "moves": r["moves"], "created": r["created_at"],
              "finished": r["finished_at"]}
             for r in rows]
    return Games(games=games)


def seat_names(names: dict[Any, str | None], settings: dict[str, Any],
               tokens: dict[Any, str | None] | None = None) -> list[str | None]:
    """Seat names in seat order (the store's maps may have string or integer keys); with the seats'
    `tokens`, the house bot's seats (which have no session row) get the bot's name."""
    by_seat = {int(k): v for k, v in names.items()}
    for k, token in (tokens or {}).items():
        house = None if token is None else bot_name(token, settings)
        if house is not None:
            by_seat[int(k)] = house
    return [by_seat.get(i) for i in range(settings["players"])]
