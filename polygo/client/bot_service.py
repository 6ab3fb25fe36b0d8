"""A bot in service: it looks for rooms it accepts and plays several games at once.

`serve` keeps up to `max_games` games going on one session, one `BotRunner.play` task each (the
GTP bridge starts one engine process per game), sits in a listed waiting room whenever a slot is
free, and gives up a room where nobody came within `idle_timeout`. It stops after `total` games
(0: never) and ends at the first failure of the runner (a lost server, an exception from the bot).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from polygo.client.bot_config import Accept
from polygo.client.errors import ServerRefused
from polygo.client.sdk import Bot, BotRunner

log = logging.getLogger("polygo.bot")

POLL = 2.0
"""Seconds between two looks at the room list when no room was found."""


async def serve(runner: BotRunner, *, accept: Accept = Accept(), max_games: int = 1, total: int = 0,
                idle_timeout: float | None = None, poll: float = POLL) -> int:
    """Play listed rooms until `total` games have been played (0: for ever); the number played."""
    active: dict[asyncio.Task[dict[str, Any] | None], str] = {}
    played = 0
    refused: set[str] = set()
    async with runner:
        try:
            while True:
                for task in [t for t in active if t.done()]:
                    room_id = active.pop(task)
                    if task.result() is None:
                        refused.add(room_id)  # left idle: not sat in again
                    else:
                        played += 1
                wanted = max_games - len(active)
                if total:
                    wanted = min(wanted, total - played - len(active))
                if total and played >= total:
                    return played
                room = await find_room(runner, accept, refused) if wanted > 0 else None
                if room is not None:
                    active[asyncio.create_task(runner.play(room, idle_timeout=idle_timeout))] = room
                    continue
                if active:
                    await asyncio.wait(active, timeout=poll, return_when=asyncio.FIRST_COMPLETED)
                else:
                    await asyncio.sleep(poll)
        finally:
            for task in active:
                task.cancel()
            await asyncio.gather(*active, return_exceptions=True)


async def find_room(runner: BotRunner, accept: Accept, refused: set[str]) -> str | None:
    """A listed waiting room where someone waits for players, with a free seat that the config and
    the bot accept, sat in; else None. An empty room is nobody's invitation: a bot that took it
    would wait there alone (players find bots by seeks, challenges and the arena, docs/pools.md).

    Rooms refused once are remembered in `refused` and not asked about again."""
    client, bot = runner.client, runner.bot
    for room in await client.list_rooms():
        room_id = room.get("room")
        seats = room.get("seats", [])
        if room.get("status") != "waiting" or None not in seats or room_id in refused \
                or client.seats_in(room_id) or not any(seats):   # nobody waits there for a game
            continue
        reason = await _refusal(bot, accept, room.get("settings", {}))
        if reason is not None:
            log.info("room %s is not for %s: %s", room_id, bot.name, reason)
            refused.add(room_id)
            continue
        try:
            await runner.join(room_id)
        except ServerRefused as exc:
            log.info("room %s: %s", room_id, exc)
            continue
        log.info("sitting in room %s", room_id)
        return room_id
    return None


async def _refusal(bot: Bot, accept: Accept, settings: dict[str, Any]) -> str | None:
    return accept.refusal(settings) or await bot.check_room(settings)
