"""The seats the house bot holds: bound to tokens no client can present, named as the lists show them.

The room, the lobby and a player's list of games name the bot from its seat's token alone, so they
know it without the bot itself (polygo.server.house), which sits above the rooms.
"""

from __future__ import annotations

from typing import Any

from polygo.protocol.names import house_bot_name

PREFIX = "house:"
"""The start of a house seat's token: the server issues every token, and never one like it to a client."""


def bot_seats(settings: dict[str, Any]) -> range:
    """The seats the house bot plays in a room with these settings."""
    players, bots = settings["players"], settings.get("bots") or 0
    return range(players - bots, players)


def bot_name(token: str, settings: dict[str, Any]) -> str | None:
    """The name of the house bot holding a seat bound to `token`, None for a player's token."""
    if not token.startswith(PREFIX):
        return None
    seat = int(token.rsplit(":", 1)[1])
    return house_bot_name(seat - bot_seats(settings).start + 1)
