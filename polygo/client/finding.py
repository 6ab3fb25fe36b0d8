"""A bot that finds its games through the server: seeks, challenges and the arena.

`find_games` keeps a bot playing the games the server arranges for it, as lichess-bot does with
lichess's challenges and seeks and as a CGOS client does in its arena: it joins a pool's arena
(`Finding.arena`), or keeps one seek standing for its pools in turn (`Finding.seek`) while it has a
free slot, and answers challenges by its `Accept` filters (pools, rated or not, rules, boards,
clocks) and its free slots. Each `matched` notice starts a `BotRunner.play` of that room. Seeks and
arena membership end with a connection, so after a reconnection they are said again. It stops
after `total` games (0: never).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from polygo.protocol import ChallengeState, Matched

from polygo.client.bot_config import Accept
from polygo.client.errors import ServerRefused
from polygo.client.sdk import BotRunner

log = logging.getLogger("polygo.bot")

POLL = 1.0
"""Seconds between two looks at the games and the connection when no notice comes."""


@dataclass(frozen=True)
class Finding:
    """How a bot finds games: pools to seek in turn, an arena to join, whether to take challenges."""

    seek: tuple[str, ...] = ()
    arena: str | None = None
    challenges: bool = True


async def find_games(runner: BotRunner, finding: Finding, *, accept: Accept = Accept(), max_games: int = 1,
                     total: int = 0, poll: float = POLL) -> int:
    """Play the games found until `total` have been played (0: for ever); the number played."""
    client = runner.client
    active: dict[asyncio.Task[dict[str, Any] | None], str] = {}
    played, generation, seeking, turn, in_arena = 0, -1, False, 0, False
    async with runner:
        try:
            while True:
                for task in [t for t in active if t.done()]:
                    log.info("room %s ended: %s", active.pop(task), task.result())
                    played += 1
                if total and played >= total:
                    return played
                free = max_games - len(active)
                if total:
                    free = min(free, total - played - len(active))
                arena = finding.arena is not None and not (total and played + len(active) >= total)
                if client.generation != generation:     # what ended with a connection is said again
                    generation, seeking, in_arena = client.generation, False, False
                    if finding.challenges:
                        for challenge in await client.challenges():
                            await _answer(runner, accept, challenge, free > 0)
                if arena != in_arena:           # join, or leave once the last game wanted has started
                    await client.arena(finding.arena, join=arena)
                    in_arena = arena
                if finding.seek and not seeking and free > 0:
                    pool = finding.seek[turn % len(finding.seek)]
                    turn += 1
                    try:
                        await client.seek(pool=pool)
                    except ServerRefused as exc:
                        if exc.code != "already-seeking":
                            raise
                    seeking = True
                notice = await _next_notice(client.notices, active, poll)
                if isinstance(notice, Matched):
                    seeking = seeking and notice.via != "seek"
                    log.info("room %s found (%s), seat %d", notice.room, notice.via, notice.seat)
                    active[asyncio.create_task(runner.play(notice.room, notice.seat))] = notice.room
                elif isinstance(notice, ChallengeState):
                    await _answer(runner, accept, notice.challenge, free > 0)
        finally:
            for task in active:
                task.cancel()
            await asyncio.gather(*active, return_exceptions=True)


async def _next_notice(notices: asyncio.Queue, active: dict[asyncio.Task, str], poll: float) -> Any:
    """The next notice, or None once a game ends or `poll` seconds pass."""
    getting = asyncio.ensure_future(notices.get())
    try:
        await asyncio.wait({getting, *active}, timeout=poll, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not getting.done():
            getting.cancel()
    return getting.result() if getting.done() and not getting.cancelled() else None


async def _answer(runner: BotRunner, accept: Accept, challenge: dict[str, Any], room_for_it: bool) -> None:
    """Accept a challenge to this bot that its filters and free slots allow; decline the others."""
    client = runner.client
    me = client.welcome.user if client.welcome else None
    mine = next((p for p in challenge.get("players", []) if p.get("name") == me), None)
    if challenge.get("status") != "open" or mine is None or mine.get("accepted") is not None:
        return
    settings = dict(challenge.get("settings") or {}, pool=challenge.get("pool"), rated=challenge.get("rated"))
    reason = accept.refusal(settings) or await runner.bot.check_room(settings) \
        or (None if room_for_it else "no free slot for another game")
    log.info("challenge %s from %s: %s", challenge.get("id"), challenge.get("by"), reason or "accepted")
    try:
        await client.challenge_reply(challenge["id"], reason is None)
    except ServerRefused as exc:
        log.info("challenge %s: %s", challenge.get("id"), exc)
