"""`BotRunner`: plays one `Bot` in the rooms of one session, from the room events to the moves sent.

It follows each room through the session's changes, asks the bot whenever one of its seats must act
(a turn play, the marks, a ranking proposal, an undo request), sends the answer and waits for the
server's acknowledgement, and keeps the bot inside its clock. `run` plays the rooms joined to their
end; `async with runner:` and `play` play games that come and go (see `polygo.client.bot_service`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from typing import Any

from polygo.protocol import Leave

from polygo.client.bot import Bot, Turn, resolved
from polygo.client.errors import ConnectionFailed, ServerRefused
from polygo.client.room import RoomView
from polygo.client.seat_clock import seat_clock
from polygo.client.session import Client
from polygo.client.tasks import spawn

log = logging.getLogger("polygo.bot")

CLOCK_MARGIN = 1.0
"""Seconds kept in hand: a bot still thinking this close to its flag passes instead."""


class BotRunner:
    """Plays one bot in the rooms of one session until they end."""

    def __init__(self, bot: Bot, client: Client) -> None:
        self.bot = bot
        self.client = client
        bot.client = client
        self.results: dict[str, dict[str, Any] | None] = {}
        self._busy: set[str] = set()
        self._again: set[str] = set()
        self._wait_for: dict[str, int] = {}
        self._decided: dict[tuple[str, int], int] = {}
        self._started: set[str] = set()
        self._done: dict[str, asyncio.Event] = {}
        self._answered: set[tuple[str, int, tuple[int, ...]]] = set()
        self._answered_undo: set[tuple[str, int, int]] = set()
        self._failed = asyncio.Event()
        self._error: Exception | None = None
        self._playing: dict[str, asyncio.Event] = {}
        self._seen: dict[str, tuple[int, int]] = {}
        self._pump_task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> BotRunner:
        """Follow the session's rooms in the background, for `play` (several games at once)."""
        self._pump_task = asyncio.create_task(self._pump())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._pump_task is not None:
            self._pump_task.cancel()
            await asyncio.gather(self._pump_task, return_exceptions=True)

    async def play(self, room: str, seat: int | None = None, invite: str | None = None, *,
                   idle_timeout: float | None = None) -> dict[str, Any] | None:
        """Sit in `room` and play it to the end; its result. Inside `async with runner:`; many at once.

        With `idle_timeout`, a room still waiting for players that long is left (the seat given up)
        and None returned."""
        await self.join(room, seat, invite)
        self._kick(room)
        if idle_timeout is not None and not await self._wait_for_any(self._playing[room], idle_timeout) \
                and await self._leave(room):
            return None
        await self._wait_for_any(self._done[room], None)
        return self.results.get(room)

    async def _wait_for_any(self, event: asyncio.Event, timeout: float | None) -> bool:
        """Wait for `event` (True) or the timeout (False); a failure of the runner raises."""
        waiters = {asyncio.create_task(event.wait()), asyncio.create_task(self._failed.wait())}
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        if self._error is not None:
            raise self._error
        return event.is_set()

    async def _leave(self, room: str) -> bool:
        """Give up the seat in a room nobody came to; False when the game started meanwhile (the
        server keeps the seats of a game that has started: then the bot plays on)."""
        held = set(self.client.seats_in(room))
        try:
            await self.client.request(Leave(room=room))
            view = await self.client.watch(room)
        except ServerRefused as exc:
            log.info("room %s: leaving it: %s", room, exc)
            return False
        if view.status != "waiting" and all(view.seats[s].get("name") == self.client.name for s in held):
            return False
        log.info("room %s: nobody came; left it", room)
        self.client.held -= {(room, s) for s in held}
        try:
            await self.client.request(Leave(room=room))
        except ServerRefused as exc:
            log.info("room %s: leaving it: %s", room, exc)
        self._done[room].set()
        return True

    async def join(self, room: str, seat: int | None = None, invite: str | None = None) -> int:
        """Sit in `room` (the given seat, else the first free one) unless already seated there."""
        self._done.setdefault(room, asyncio.Event())
        self._playing.setdefault(room, asyncio.Event())
        held = self.client.seats_in(room)
        if held and (seat is None or seat in held):
            await self.client.watch(room, invite)
            return held[0] if seat is None else seat
        before = set(held)
        await self.client.sit(room, seat, invite)
        return seat if seat is not None else min(set(self.client.seats_in(room)) - before)

    async def run(self) -> dict[str, dict[str, Any] | None]:
        """Follow the rooms joined until every one has ended; the results by room.

        A lost server (after the reconnection attempts) or an exception from the bot ends the run
        with that error.
        """
        for room in list(self._done):
            self._kick(room)
        pump = asyncio.create_task(self._pump())
        ended = asyncio.gather(*(event.wait() for event in self._done.values()))
        failed = asyncio.create_task(self._failed.wait())
        try:
            await asyncio.wait({pump, ended, failed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (pump, ended, failed):
                waiter.cancel()
            await asyncio.gather(pump, ended, failed, return_exceptions=True)
        if self._error is not None:
            raise self._error
        return self.results

    async def _pump(self) -> None:
        try:
            while True:
                room = await self.client.changes.get()
                if room is None:
                    raise ConnectionFailed("the connection to the server was lost for good")
                if room in self._done:
                    self._kick(room)
        except ConnectionFailed as exc:
            self._fail(exc)

    def _fail(self, error: Exception) -> None:
        if self._error is None:
            self._error = error
        self._failed.set()

    def _kick(self, room: str) -> None:
        view = self.client.rooms.get(room)
        if view is not None and view.undo is not None:
            spawn(self._answer_undo(view))
        if view is not None:
            self._notify(view)
        if room in self._busy:
            self._again.add(room)
            return
        self._busy.add(room)
        spawn(self._act_loop(room))

    def _notify(self, view: RoomView) -> None:
        """Call the chat and opponent-move hooks for what is new in `view` since the last look."""
        moves, chats = self._seen.get(view.room, (len(view.game.history), view.chat_total))
        history = view.game.history
        mine = set(self.client.seats_in(view.room))
        new_moves = [(p.seat, p.move) for p in history[moves:] if p.seat not in mine] if moves <= len(history) else []
        new_chat = view.chat[len(view.chat) - min(len(view.chat), view.chat_total - chats):] if view.chat_total > chats else []
        self._seen[view.room] = (len(history), view.chat_total)
        if new_moves or new_chat:
            spawn(self._hooks(view, new_moves, [line for line in new_chat if line[0] != self.client.name]))

    async def _hooks(self, view: RoomView, moves: list[tuple[int, str]],
                     chat: list[tuple[str, str]]) -> None:
        try:
            for seat, move in moves:
                await self.bot.opponent_moved(view.room, seat, move, view)
            for name, text in chat:
                await self.bot.on_chat(view.room, name, text)
        except Exception:
            log.exception("room %s: a hook of the bot failed", view.room)

    async def _act_loop(self, room: str) -> None:
        try:
            while True:
                self._again.discard(room)
                await self._act(room)
                if room not in self._again:
                    return
        except Exception as exc:
            log.exception("room %s: the bot failed", room)
            self._fail(exc)
        finally:
            self._busy.discard(room)

    async def _act(self, room: str) -> None:
        view = self.client.rooms.get(room)
        if view is None or view.status == "waiting":
            return
        self._playing.setdefault(room, asyncio.Event()).set()
        if room not in self._started:
            self._started.add(room)
            await self.bot.game_started(room, view)
            if self.bot.greeting and view.status != "ended":
                await self.bot.say(room, self.bot.greeting)
        if view.status == "ended" or view.game.phase == "ended":
            if not self._done[room].is_set():
                self.results[room] = view.result
                await self.bot.game_ended(room, view)
                if self.bot.farewell:
                    await self.bot.say(room, self.bot.farewell)
                self._done[room].set()
            return
        if view.version < self._wait_for.get(room, 0):
            return
        for seat in self.client.seats_in(room):
            if self._decided.get((room, seat)) == view.version:
                continue
            self._decided[(room, seat)] = version = view.version
            turn = self._turn(view, seat)
            before = _state_key(view)
            move, is_turn_play = await self._decide(turn)
            if move is None:
                continue
            if _state_key(view) != before:
                self._decided.pop((room, seat), None)
                self._again.add(room)
                return
            await self._send(turn, move, is_turn_play, version, before)
            return

    async def _answer_undo(self, view: RoomView) -> None:
        """Answer a pending undo request of another seat, once per seat and request.

        It runs beside the bot's thinking: a bot busy with its move still answers."""
        request = view.undo
        if request is None:
            return
        for seat in self.client.seats_in(view.room):
            if seat == request["seat"] or seat in request.get("accepted", []):
                continue
            key = (view.room, seat, len(view.game.history))
            if key in self._answered_undo:
                continue
            self._answered_undo.add(key)
            accept = self.bot.answer_undo(self._turn(view, seat), request["seat"])
            try:
                await self.client.undo_reply(view.room, accept)
            except ServerRefused as exc:
                log.info("room %s: undo answer refused: %s", view.room, exc)

    def _turn(self, view: RoomView, seat: int) -> Turn:
        now = time.monotonic()
        clock = None if view.clocks is None else seat_clock(view.clocks, view.settings.get("clock"), seat, now)
        left = None if clock is None else clock.total
        return Turn(view.room, seat, view.game.copy(), view.clocks, left, view.settings, clock)

    async def _decide(self, turn: Turn) -> tuple[str | None, bool]:
        game = turn.game
        if game.phase == "scoring":
            if turn.seat in game.accepted:
                return None, False
            return await resolved(self.bot.mark_dead(turn)), False
        if game.proposal is not None:
            key = (turn.room, turn.seat, tuple(game.proposal))
            if key not in self._answered:
                self._answered.add(key)
                answer = self.bot.answer_proposal(turn)
                if answer is not None:
                    return answer, False
        if game.to_move != turn.seat:
            return None, False
        return await self._think(turn), True

    async def _think(self, turn: Turn) -> str:
        budget = None if turn.time_left is None else max(0.1, turn.time_left - CLOCK_MARGIN)
        if inspect.iscoroutinefunction(self.bot.choose_move):
            job = asyncio.ensure_future(self.bot.choose_move(turn))
        else:
            job = asyncio.ensure_future(asyncio.to_thread(self.bot.choose_move, turn))
        try:
            move = await asyncio.wait_for(job, budget)
        except asyncio.TimeoutError:
            log.warning("room %s seat %d: out of time, passing", turn.room, turn.seat)
            return "pass"
        if inspect.isawaitable(move):
            move = await move
        if move == "resign" and not self.bot.may_resign:
            log.info("room %s seat %d: the bot would resign; it plays on (pass)", turn.room, turn.seat)
            return "pass"
        return move

    async def _send(self, turn: Turn, move: str, is_turn_play: bool, version: int,
                    before: tuple[Any, ...]) -> None:
        try:
            ack = await self.client.move(turn.room, move, after=version if move == "done" else None)
        except ServerRefused as exc:
            if exc.code == "stale-marks":
                log.info("room %s seat %d: the marks changed before our done; looking again", turn.room, turn.seat)
                return
            if self._overtaken(turn, move, exc, before):
                return
            if exc.code != "illegal-move":
                log.warning("room %s seat %d: %r refused: %s", turn.room, turn.seat, move, exc)
                return
            await self.bot.move_refused(turn, move, exc)
            fallback = "pass" if is_turn_play else ("done" if turn.game.phase == "scoring" else None)
            if fallback is None or fallback == move:
                return
            try:
                ack = await self.client.move(turn.room, fallback, after=version if fallback == "done" else None)
            except ServerRefused as again:
                log.warning("room %s seat %d: fallback %r refused: %s", turn.room, turn.seat, fallback, again)
                return
        self._wait_for[turn.room] = ack.version
        self._kick(turn.room)

    def _overtaken(self, turn: Turn, move: str, exc: ServerRefused, before: tuple[Any, ...]) -> bool:
        """A move refused because the game moved on while it was on its way (another player resumed
        play, or marked a chain, or the phase ended): nothing is wrong, the bot looks again."""
        view = self.client.rooms.get(turn.room)
        if exc.code != "illegal-move" or view is None:
            return False
        if _state_key(view) == before and exc.reason not in PHASE_REASONS:
            return False
        log.info("room %s seat %d: %r came too late, the game moved on (%s); looking again",
                 turn.room, turn.seat, move, exc)
        self._decided.pop((turn.room, turn.seat), None)
        self._kick(turn.room)
        return True



PHASE_REASONS = frozenset({"not-scoring", "game-over", "not-your-turn", "no-proposal", "dropped-out"})
"""Reasons a move is refused for the phase or the turn it reached, not for what it is."""


def _state_key(view: RoomView) -> tuple[Any, ...]:
    """What a decision depends on: a move chosen for another state (after an undo, say) is dropped."""
    game = view.game
    return (len(game.history), game.phase, game.to_move, game.proposal, tuple(game.dead), tuple(game.accepted))
