"""The house bot in its seats: seated when the room is made, moving whenever it has something to do.

A bot that lives in a player's program dies with it, and the game waits for ever; a bot the server
runs lives as long as the room, so a game against bots is resumed like any other (after the
player's program is killed, and after a server restart or an adjournment: when a player names
the game again, the hub rebuilds the room from the store).
A room created with `bots: N` gets the house bot in its last N seats, named bot1, bot2, ...

The bot's seats are bound to tokens that begin with `house:`. No client can present one: the
server issues every session token itself, and `hello` refuses a token it did not issue. The bot is
nudged after every committed event of its room (`changed`) and for every room rebuilt from the store,
and it acts through `Room.call` like a client, one action at a time, after a short pause so a
human sees the moves come one by one. It answers undo requests with yes (its policy: a player who
asks a bot to take back a move gets it); the room lets a player ask to take back a move that only
the house bot has answered since, and takes the bot's answers back with it.

In the marking phase it judges the marks (`polygo.server.house.marking`) against the stones it calls dead
(`polygo.server.house.life`'s play-outs, read once per position in a worker thread, outside the room's
lock, so the room and the others stay quick).
"""

from __future__ import annotations

import asyncio
import logging
import random

from polygo.protocol import ProtocolError

from ..accounts.sessions import Session
from ..rooms.house_seats import PREFIX, bot_name, bot_seats
from ..rooms.room import Room, Seat
from ..store.errors import StoreError
from .life import Question, dead_stones
from .marking import house_marking
from .play import choose

log = logging.getLogger("polygo.house")

PAUSE = 0.3
"""Seconds between the event that gives the bot something to do and its action."""
RETRY_FIRST, RETRY_CAP = 0.2, 2.0
"""Seconds before the bot tries again an action the store could not take: doubling to the cap."""


class HouseBots:
    """Drives the house bot's seats of every room of one hub."""

    def __init__(self, pause: float = PAUSE) -> None:
        self.pause = pause
        self._driving: dict[Room, asyncio.Task[None]] = {}   # by the room itself: a room taken back
        self._again: set[Room] = set()                      # after a fence is a new Room, driven anew
        self._life: dict[str, tuple[int, set[str]]] = {}
        """Per room in its marking phase: the position's hash and the stones the bot calls dead."""

    @staticmethod
    def holds(seat: Seat | None) -> bool:
        """Whether the house bot holds this seat."""
        return seat is not None and seat.token.startswith(PREFIX)

    async def seat(self, room: Room) -> None:
        """Take the bot's seats of a room just created (before anyone else can see it)."""
        if bot_seats(room.settings):
            await room.call(self._seat_all, room)

    async def _seat_all(self, room: Room) -> None:
        for seat in bot_seats(room.settings):
            token = f"{PREFIX}{room.id}:{seat}"
            name = bot_name(token, room.settings)
            assert name is not None
            await room.seat_house_bot(seat, token, name)

    def changed(self, room: Room) -> None:
        """Something happened in `room`: let its bots look at it (from a task of their own)."""
        if not room.settings.get("bots") or room.status != "playing":   # no bot seats (bot_seats); asked every move
            self._life.pop(room.id, None)
            return
        if room in self._driving:
            self._again.add(room)
            return
        self._driving[room] = asyncio.get_running_loop().create_task(self._drive(room))

    async def _drive(self, room: Room) -> None:
        try:
            while True:
                self._again.discard(room)
                await asyncio.sleep(self.pause)
                if room.hub.rooms.get(room.id) is not room:
                    return
                await self._read_life(room)
                acted = await self._act_until_stored(room)
                if not acted and room not in self._again:
                    return
        except Exception:
            log.exception("room %s: the house bot failed", room.id)
        finally:
            self._driving.pop(room, None)
            self._again.discard(room)

    async def _act_until_stored(self, room: Room) -> bool:
        """`_act`, tried again while the store refuses it (the database away, a commit failed: the
        player would be told `unavailable` or `internal`), as long as the room is this server's.
        Nothing of a refused move was stored, so the bot's seat has the same last seq and the game
        the same history: the retry is the same move with the same seq."""
        delay = RETRY_FIRST
        while True:
            try:
                return await room.call(self._act, room)
            except StoreError as exc:
                log.warning("room %s: the house bot's action was not stored (%s); trying again in %.1f s",
                            room.id, exc, delay)
            await asyncio.sleep(delay)
            delay = min(RETRY_CAP, delay * 2)
            if room.hub.rooms.get(room.id) is not room:
                return False

    async def _act(self, room: Room) -> bool:
        """One action of one of the room's bots (under the room's lock); False when none has any."""
        if room.status != "playing":
            return False
        for seat in bot_seats(room.settings):
            undo = room.undo
            if undo is not None and undo["seat"] != seat and seat not in undo["accepted"] \
                    and room.game.active[seat]:
                await room.reply_undo(self._session(room, seat), True)
                return True
        for seat in bot_seats(room.settings):
            rng = random.Random(f"{room.id}/{seat}/{len(room.game.history)}")
            move = choose(room.game, seat, rng) or await self._marking(room, seat)
            if move is None:
                continue
            last = room.last_seq[seat]
            for attempt in dict.fromkeys([move, "pass" if room.game.to_move == seat else move]):
                try:
                    await room.move(self._session(room, seat), attempt, 0 if last is None else last + 1)
                    return True
                except ProtocolError as exc:
                    log.warning("room %s: the house bot's %r for seat %d was refused: %s",
                                room.id, attempt, seat, exc)
            return False
        return False

    async def _read_life(self, room: Room) -> None:
        """In the marking phase, read which stones are dead, once per position: the play-outs take
        far longer than a move, so they run in a worker thread while the room goes on."""
        game = room.game
        if room.status != "playing" or game.phase != "scoring":
            self._life.pop(room.id, None)
            return
        key = game.position_hash
        if self._life.get(room.id, (None,))[0] == key:
            return
        dead = await asyncio.to_thread(dead_stones, Question.of(game), random.Random(f"{room.id}/{key}"))
        self._life[room.id] = (key, dead)

    async def _marking(self, room: Room, seat: int) -> str | None:
        """The bot's marking move for `seat` (`polygo.server.house.marking`), once the dead stones are read;
        marks it accepts under protest, it says so in the room's chat first."""
        game = room.game
        life = self._life.get(room.id)
        if game.phase != "scoring" or life is None or life[0] != game.position_hash or not game.active[seat]:
            return None
        marking = house_marking(game, seat, life[1])
        if marking is None:
            return None
        if marking.protest:
            log.info("room %s seat %d: %s", room.id, seat, marking.protest)
            try:
                await room.chat(None, self._session(room, seat), marking.protest)
            except ProtocolError as exc:
                log.info("room %s: the house bot's chat was refused: %s", room.id, exc)
        return marking.move

    @staticmethod
    def _session(room: Room, seat: int) -> Session:
        holder = room.seats[seat]
        assert holder is not None and holder.token.startswith(PREFIX)
        return Session(holder.token, holder.name)

    async def close(self) -> None:
        for task in list(self._driving.values()):
            task.cancel()
        await asyncio.gather(*self._driving.values(), return_exceptions=True)
        self._driving.clear()
        self._life.clear()
