"""What a bot author writes against: `Turn`, the view of one decision, and `Bot`, the class to subclass.

`Bot` holds the hooks the runner (`polygo.client.runner.BotRunner`) calls and their defaults, and the
helpers a bot uses to talk to the room (`say`, `rename_seat`, `send_analysis`). See docs/bots.md.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Collection
from typing import Any, Awaitable

from polygo.rules import Game
from polygo.protocol import Analysis, ProtocolError, SeatName
from polygo.protocol.messages import CHAT_MAX, NAME_MAX, PV_MAX

from polygo.client.builtin_bot import proposal_answer
from polygo.client.errors import ServerRefused
from polygo.client.marking import MAX_RESUMES, marking_move
from polygo.client.room import Clocks, RoomView
from polygo.client.seat_clock import SeatClock
from polygo.client.session import Client

log = logging.getLogger("polygo.bot")


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
        """The stones this bot calls dead, checked against the marks (see `polygo.client.marking`); None
        accepts any marks. The default trusts the marks on other seats' stones and calls its own stones
        alive, so marks on them are contested and played out. May be async."""
        return [point for point in turn.game.dead if turn.game.stone_at(point) != turn.seat]

    async def mark_dead(self, turn: Turn) -> str | None:
        """In the marking phase: `dead P` / `alive P`, `resume` or `done`, from `dead_stones`.

        Called again after every change of the marks."""
        answer = marking_move(turn.game, turn.seat, await resolved(self.dead_stones(turn)), self.max_resumes)
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


async def resolved(value: Any) -> Any:
    """A hook's answer, awaited when the hook was async."""
    return await value if inspect.isawaitable(value) else value
