"""The bot SDK: implement `Bot.choose_move`, the SDK does the rest.

A bot author writes one method that picks a move from a `Turn` (the room, the seat, a private copy
of the `gorules.Game`, the time left). `BotRunner` connects, keeps the session token, takes seats,
follows each room through events, asks the bot for a move whenever one of its seats must act,
sends it and waits for the server's acknowledgement, resends it after a reconnection, and plays a
safe move when the bot would overrun its clock or the server refuses its move. The marking phase
and ranking proposals have sensible defaults (`mark_dead`, `answer_proposal`) a bot may override.

    class MyBot(Bot):
        def choose_move(self, turn):
            return random.choice(turn.game.legal_moves())

    asyncio.run(run_bot(MyBot(), room="Xk2bT9aQ"))
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import time
from collections.abc import Collection
from typing import Any, Awaitable

from gorules import Game
from protocol import Analysis, Leave, ProtocolError, RoomSettings, SeatName
from protocol.messages import CHAT_MAX, NAME_MAX, PV_MAX

from client_cli.builtin_bot import proposal_answer
from client_cli.errors import ConnectionFailed, ServerRefused, UsageError
from client_cli.marking import MAX_RESUMES, marking_move
from client_cli.room import Clocks, RoomView
from client_cli.seat_clock import SeatClock, seat_clock
from client_cli.session import DEFAULT_URL, Client, TokenStore
from client_cli.tasks import spawn

log = logging.getLogger("polygo.bot")

CLOCK_MARGIN = 1.0
"""Seconds kept in hand: a bot still thinking this close to its flag passes instead."""


@dataclasses.dataclass(frozen=True)
class Turn:
    """What a bot sees when it must act: `game` is its own copy, free to play moves on."""

    room: str
    seat: int
    game: Game
    clocks: Clocks | None
    time_left: float | None
    """Seconds before the seat's flag falls: main time and all the overtime still to come (the
    current and the later byo-yomi periods, the Canadian block); None without a clock."""
    settings: dict[str, Any]
    clock: SeatClock | None = None
    """The seat's clock in parts (main time, periods, stones owed, the overtime's shape), as of now."""


class Bot:
    """Subclass and implement `choose_move`; the other hooks have defaults."""

    name = "bot"
    client: Client | None = None
    """The session the bot plays on, set by `BotRunner`."""
    greeting = ""
    """Said in the room's chat when a game starts (nothing when empty)."""
    farewell = ""
    """Said in the room's chat when a game ends."""
    accept_undo = True
    """The default `answer_undo`: let the opponent take back a move or not."""
    may_resign = True
    """False: a "resign" from `choose_move` is sent as a pass instead (the bot plays games out)."""

    def choose_move(self, turn: Turn) -> str | Awaitable[str]:
        """The turn play (a point, "pass", "appeal P" or "resign") for `turn.seat`. May be async."""
        raise NotImplementedError

    def accepts(self, settings: dict[str, Any]) -> bool:
        """Whether the bot can play a room with these settings (used when it looks for rooms)."""
        return True

    async def start(self) -> Any:
        """Called once before the bot connects: fail here (raise) when it cannot play at all."""
        return None

    async def check_room(self, settings: dict[str, Any]) -> str | None:
        """Why the bot cannot play a room with these settings (None: it can), asked before it sits.
        The default asks `accepts`; a bot with an engine may ask the engine."""
        return None if self.accepts(settings) else f"{self.name} does not accept these settings"

    max_resumes: int | None = MAX_RESUMES
    """Play-outs asked for (`resume`) over disputed marks before accepting them under protest; None: never."""

    def dead_stones(self, turn: Turn) -> Collection[str] | None | Awaitable[Collection[str] | None]:
        """The stones this bot calls dead, checked against the marks (see `client_cli.marking`); None
        accepts any marks. The default trusts the marks on other seats' stones and calls its own stones
        alive, so marks on them are contested and played out. May be async."""
        return [point for point in turn.game.dead if turn.game.stone_at(point) != turn.seat]

    async def mark_dead(self, turn: Turn) -> str | None:
        """In the marking phase: `dead P` / `alive P`, `resume` or `done`, from `dead_stones`.

        Called again after every change of the marks."""
        answer = marking_move(turn.game, turn.seat, await _resolved(self.dead_stones(turn)), self.max_resumes)
        if answer.protest is not None:
            log.warning("room %s seat %d: %s", turn.room, turn.seat, answer.protest)
            await self.say(turn.room, answer.protest)
        return answer.move

    async def say(self, room: str, text: str) -> None:
        """Say `text` in the room's chat (nothing when the bot is not run by a `BotRunner`)."""
        if self.client is not None:
            try:
                await self.client.chat(room, text[:CHAT_MAX])
            except ServerRefused as exc:
                log.info("room %s: chat refused: %s", room, exc)

    def answer_proposal(self, turn: Turn) -> str | None:
        """Answer a ranking proposal: accept one that places the seat no worse than the board does."""
        return None if turn.game.proposal is None else proposal_answer(turn.game, turn.seat)

    def answer_undo(self, turn: Turn, requester: int) -> bool:
        """Whether to let seat `requester` take back its last move (default: `accept_undo`)."""
        return self.accept_undo

    async def on_chat(self, room: str, name: str, text: str) -> None:
        """A line of chat from someone else in the room (a player or a spectator)."""

    async def opponent_moved(self, room: str, seat: int, move: str, view: RoomView) -> None:
        """Another seat's move has just been applied (`view.game` holds it): start pondering here.
        It runs beside the bot's own thinking; return quickly or spawn your own task."""

    async def rename_seat(self, room: str, name: str) -> None:
        """Show `name` on the bot's seat in `room` for the rest of the game (the session keeps its name)."""
        if self.client is None:
            return
        try:
            await self.client.request(SeatName(room=room, name=name[:NAME_MAX]))
        except (ServerRefused, ProtocolError) as exc:
            log.info("room %s: seat name refused: %s", room, exc)

    async def send_analysis(self, room: str, *, score: float | None = None, winrate: float | None = None,
                            pv: list[str] | None = None) -> None:
        """Tell the room (spectators) the bot's view: its lead in points, its win rate (0..1), the
        principal variation; the server relays it as an `analysis` event. Refusals are logged."""
        if self.client is None:
            return
        try:
            await self.client.request(Analysis(room=room, score=score, winrate=winrate, pv=pv[:PV_MAX] if pv else None))
        except (ServerRefused, ProtocolError) as exc:
            log.info("room %s: analysis refused: %s", room, exc)

    async def game_started(self, room: str, view: RoomView) -> None:
        """Called once per room when the bot first sees it being played."""

    async def game_ended(self, room: str, view: RoomView) -> None:
        """Called once per room when its game has ended."""

    async def move_refused(self, turn: Turn, move: str, error: ServerRefused) -> None:
        """Told when the server refused a move; the SDK then passes (or accepts the marks)."""
        log.warning("room %s seat %d: %r refused: %s", turn.room, turn.seat, move, error)


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
        if idle_timeout is not None and not await self._wait_for_any(self._playing[room], idle_timeout):
            await self._leave(room)
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

    async def _leave(self, room: str) -> None:
        log.info("room %s: nobody came; leaving it", room)
        try:
            await self.client.request(Leave(room=room))
        except ServerRefused as exc:
            log.info("room %s: leave refused: %s", room, exc)
        self.client.held -= {(r, s) for r, s in self.client.held if r == room}
        self._done[room].set()

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
            await self._send(turn, move, is_turn_play, version)
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
            return await _resolved(self.bot.mark_dead(turn)), False
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

    async def _send(self, turn: Turn, move: str, is_turn_play: bool, version: int) -> None:
        try:
            ack = await self.client.move(turn.room, move, after=version if move == "done" else None)
        except ServerRefused as exc:
            if exc.code == "stale-marks":
                log.info("room %s seat %d: the marks changed before our done; looking again", turn.room, turn.seat)
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


def _state_key(view: RoomView) -> tuple[Any, ...]:
    """What a decision depends on: a move chosen for another state (after an undo, say) is dropped."""
    game = view.game
    return (len(game.history), game.phase, game.to_move, game.proposal, tuple(game.dead), tuple(game.accepted))


async def _resolved(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


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
