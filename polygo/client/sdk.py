"""The bot SDK: implement `Bot.choose_move`, the SDK does the rest.

A bot author writes one method that picks a move from a `Turn` (the room, the seat, a private copy
of the `polygo.rules.Game`, the time left). `BotRunner` connects, keeps the session token, takes seats,
follows each room through events, asks the bot for a move whenever one of its seats must act,
sends it and waits for the server's acknowledgement, resends it after a reconnection, and plays a
safe move when the bot would overrun its clock or the server refuses its move. The marking phase
and ranking proposals have sensible defaults (`mark_dead`, `answer_proposal`) a bot may override.

    class MyBot(Bot):
        def choose_move(self, turn):
            return random.choice(turn.game.legal_moves())

    asyncio.run(run_bot(MyBot(), room="Xk2bT9aQ"))

The parts: `polygo.client.bot` (`Bot`, `Turn`), `polygo.client.runner` (`BotRunner`), `polygo.client.marking`,
`polygo.client.seat_clock`; this module gathers them for bot authors.
"""

from __future__ import annotations

from typing import Any

from polygo.protocol import RoomSettings

from polygo.client.bot import Bot, Turn
from polygo.client.errors import UsageError
from polygo.client.runner import CLOCK_MARGIN, BotRunner
from polygo.client.seat_clock import SeatClock
from polygo.client.session import DEFAULT_URL, Client, TokenStore

__all__ = ["Bot", "BotRunner", "CLOCK_MARGIN", "SeatClock", "Turn", "run_bot"]


async def run_bot(bot: Bot, url: str = DEFAULT_URL, *, room: str | None = None, seat: int | None = None,
                  invite: str | None = None, settings: RoomSettings | None = None,
                  tokens: TokenStore | None = None, name: str | None = None) -> dict[str, Any] | None:
    """Connect, join `room` (or create one with `settings`), play it to the end, return its result."""
    async with Client(url, name=name or bot.name, tokens=tokens, program=f"polygo-sdk/{bot.name}") as client:
        runner = BotRunner(bot, client)
        if room is None:
            if settings is None:
                raise UsageError("run_bot needs a room to join or settings to create one")
            room = (await client.create(settings)).room
        await runner.join(room, seat, invite)
        results = await runner.run()
        return results.get(room)
