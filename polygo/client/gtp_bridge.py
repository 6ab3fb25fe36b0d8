"""The GTP bridge: any GTP engine (GNU Go, KataGo, ...) as a polygo bot, one engine process per game.

Like OGS's gtp2ogs. `GtpBot.start` runs the engine once to learn its name, version and commands
(an engine that cannot start is an error there, not a silent substitute). Before taking a seat,
`check_room` asks the engine whether it takes the board (`boardsize`). For each game it starts the
engine (GNU Go with the ruleset's options), tells it the board, komi, rules, handicap and clock
(`polygo.client.gtp_game`, `polygo.client.gtp_time`), and before each `genmove` brings the engine's
position in line with the live game: the plays it has not seen are sent with `play`, plays that left
the live game (an undo, a Kee rescission, a late genmove given up on) are taken back with `undo`, or
the board is rebuilt.

The engine's answers are checked with polygo.rules before they are sent: "resign" resigns, "pass"
passes; a move the polygo rules refuse is taken back in the engine and replaced by an appeal where
the Kee rules allow one (the engine wanted a play prohibited by the cycle rule), else by the
built-in bot's move. An engine that dies or stops answering is replaced by the built-in bot for the
rest of that game, and the room is told so in its chat and by the seat's name. In the marking phase the engine's
`final_status_list dead` is the bot's view of the dead stones (`polygo.client.marking`): marks it
disagrees with are contested and played out, with `kgs-genmove_cleanup` where the engine has it.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import re
import shlex
from typing import Any

from polygo.rules import PRESETS, Game
from polygo.protocol.clock_settings import ClockSettings

from polygo.client.builtin_bot import choose_move as builtin_move
from polygo.client.errors import EngineCommandFailed, EngineError, UsageError
from polygo.client.gtp import DEFAULT_TIMEOUT, GtpEngine, LateReply
from polygo.client.gtp_game import (
    COLOURS,
    HANDICAP,
    engine_argv,
    engine_plays,
    grid_dims,
    grid_size,
    is_gnugo,
    rules_commands,
)
from polygo.client.gtp_time import time_left_args, time_settings_command, told_clock
from polygo.client.room import RoomView
from polygo.client.sdk import Bot, Turn
from polygo.client.tasks import spawn

__all__ = ["GtpBot", "EngineInfo", "engine_argv", "engine_plays", "grid_size", "score_for",
           "time_left_args", "time_settings_command"]

log = logging.getLogger("polygo.gtp")

PERIODS_AS_STONES = ("kgs-time_settings", "kata-time_settings")
"""Commands after which `time_left`'s stones in byo-yomi are the periods left."""


@dataclasses.dataclass(frozen=True)
class EngineInfo:
    """What the engine says of itself, asked once at start."""

    name: str
    version: str
    commands: frozenset[str]

    def __str__(self) -> str:
        return f"{self.name} {self.version}".strip()


@dataclasses.dataclass
class _Match:
    """One game's engine and what the engine has been told so far."""

    room: str
    engine: GtpEngine | None
    told: list[tuple[str, str]]
    rng: random.Random
    commands: frozenset[str] = frozenset()
    clock: ClockSettings | None = None
    """The time system the engine accepted; None when it has none (no clock, or it refused)."""
    periods_as_stones: bool = False


class GtpBot(Bot):
    """A GTP engine behind the SDK: `GtpBot("gnugo --mode gtp --level 1")`; `await start()` first."""

    def __init__(self, command: str | list[str], *, timeout: float = DEFAULT_TIMEOUT, seed: int = 0,
                 move_overhead: float = 0.0, analysis: bool = False) -> None:
        try:
            self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:
            raise UsageError(f"cannot read the GTP engine command {command!r}: {exc}") from None
        if not self.argv:
            raise UsageError("the GTP engine command is empty")
        self.command = self.argv
        self.name = self.argv[0].rsplit("/", 1)[-1][:32]
        self.timeout = timeout
        self.seed = seed
        self.move_overhead = move_overhead
        """Seconds taken off the time left told to the engine, for the network and the bridge."""
        self.analysis = analysis
        """After each move, relay the engine's `estimate_score` (where it lists it) to the room."""
        self.info: EngineInfo | None = None
        self._matches: dict[str, _Match] = {}
        self._sizes: dict[tuple[int, int], str | None] = {}

    async def start(self) -> EngineInfo:
        """Run the engine once: its name, version and commands. `EngineError` when it cannot start or
        does not speak GTP, with the engine's own words."""
        engine = await GtpEngine.popen(self.argv, timeout=self.timeout)
        try:
            name = await _optional(engine, "name") or self.name
            version = await _optional(engine, "version") or ""
            commands = frozenset((await _optional(engine, "list_commands") or "").split())
        finally:
            await engine.quit()
        self.info = EngineInfo(name, version, commands)
        log.info("engine %s (%s); %d commands", self.info, " ".join(self.argv), len(commands))
        return self.info

    def accepts(self, settings: dict[str, Any]) -> bool:
        """Two players, a grid, a ruleset this client's polygo.rules knows (the bridge judges the
        engine's moves with it, and tells the engine the rules it computes from it)."""
        return self.refusal(settings) is None

    def refusal(self, settings: dict[str, Any]) -> str | None:
        """Why the bridge cannot play a room with these settings, from the settings alone."""
        if settings.get("players", 2) != 2:
            return f"GTP engines play two-player games (this room has {settings.get('players')} players)"
        dims = grid_dims(settings)
        if dims is None:
            return f"GTP engines play on grids of 2 to 25 lines (this room's board is {settings.get('board')!r})"
        if settings.get("rules") not in PRESETS:
            return (f"this polygo does not know the {settings.get('rules')} rules (the server's may be newer: "
                    f"a polygo that has them can play them)")
        if dims[0] != dims[1] and self.info is not None and "rectangular_boardsize" not in self.info.commands:
            return f"{self.info} does not list rectangular_boardsize, so it plays square boards only"
        return None

    async def check_room(self, settings: dict[str, Any]) -> str | None:
        """Why the engine cannot play this room, asking the engine itself for the board size."""
        reason = self.refusal(settings)
        if reason is not None:
            return reason
        dims = grid_dims(settings)
        assert dims is not None
        if dims not in self._sizes:
            engine = await GtpEngine.popen(self.argv, timeout=self.timeout)
            try:
                await _board(engine, dims)
                self._sizes[dims] = None
            except EngineCommandFailed as exc:
                self._sizes[dims] = f"the engine refuses a {dims[0]}x{dims[1]} board: {exc.reply}"
            finally:
                await engine.quit()
        return self._sizes[dims]

    async def game_started(self, room: str, view: RoomView) -> None:
        rng = random.Random(f"{self.seed}:{room}")
        match = self._matches[room] = _Match(room, None, [], rng)
        game = view.game
        argv = engine_argv(self.argv, game.rules)
        try:
            match.engine = engine = await GtpEngine.popen(argv, timeout=self.timeout, game=room)
            match.commands = frozenset((await _optional(engine, "list_commands") or "").split())
            await _board(engine, (game.board.width, game.board.height))
            await engine.komi(game.rules.komi)
            for command in rules_commands(game.rules, set(match.commands)):
                await _optional(engine, *command)
            await engine.clear_board()
            await self._tell_time_settings(match, told_clock(view.settings.get("clock")))
        except EngineError as exc:
            await self._drop_engine(match, exc)

    async def game_ended(self, room: str, view: RoomView) -> None:
        match = self._matches.pop(room, None)
        if match is None or match.engine is None:
            return
        if not await self._sync(match, view.game):
            return  # the engine could not follow the last moves and has been stopped
        try:
            log.info("room %s: the engine counts %s; the server's result: %s",
                     room, await match.engine.final_score(), view.result)
        except EngineError as exc:
            log.info("room %s: no final score from the engine: %s", room, exc)
        await match.engine.quit()

    async def choose_move(self, turn: Turn) -> str:
        match = self._matches.get(turn.room)
        if match is None or match.engine is None or not await self._sync(match, turn.game):
            return self._fallback(turn, match)
        colour = COLOURS[turn.seat]
        cleanup = "kgs-genmove_cleanup" in match.commands and any(p.move == "resume" for p in turn.game.history)
        try:
            await self._tell_time_left(match, turn)
            if cleanup:
                reply = _vertex(await match.engine.command("kgs-genmove_cleanup", colour))
            else:
                reply = await match.engine.genmove(colour)
        except EngineError as exc:
            await self._drop_engine(match, exc)
            return self._fallback(turn, match)
        if reply == "resign":
            return "resign"
        match.told.append((colour, reply))
        reason = turn.game.why_illegal(reply)  # a pass too: the owner in a Nieminen play-out may not
        if reason is None:
            if self.analysis and "estimate_score" in match.commands:
                spawn(self._relay_estimate(match, turn.room, colour))
            return reply
        log.info("room %s: the engine's %s is %s under %s", turn.room, reply, reason, turn.game.rules.name)
        try:
            await self._take_back(match)
        except EngineError as exc:
            await self._drop_engine(match, exc)
        if reason == "cycle" and turn.game.why_illegal(f"appeal {reply}") is None:
            return f"appeal {reply}"
        return self._fallback(turn, match)

    async def dead_stones(self, turn: Turn) -> list[str] | None:
        """The engine's `final_status_list dead`; without a working engine, the SDK's default view."""
        match = self._matches.get(turn.room)
        if match is None or match.engine is None or not await self._sync(match, turn.game):
            return list(super().dead_stones(turn) or [])  # type: ignore[arg-type]
        try:
            return await match.engine.final_status_list("dead")
        except EngineCommandFailed as exc:
            log.info("room %s: no dead stones from the engine (%s); its own stones count as alive", turn.room, exc)
            return list(super().dead_stones(turn) or [])  # type: ignore[arg-type]
        except EngineError as exc:
            await self._drop_engine(match, exc)
            return list(super().dead_stones(turn) or [])  # type: ignore[arg-type]

    async def _relay_estimate(self, match: _Match, room: str, colour: str) -> None:
        """The engine's score estimate after its move, from its own side, as an `analysis` for the room."""
        if match.engine is None:
            return
        try:
            estimate = await match.engine.command("estimate_score")
        except EngineError as exc:
            log.debug("room %s: no score estimate: %s", room, exc)
            return
        score = score_for(estimate, colour)
        if score is not None:
            await self.send_analysis(room, score=score)

    async def _tell_time_settings(self, match: _Match, clock: ClockSettings | None) -> None:
        """Tell the engine the room's time system; a refusal is noted (no `time_left` follows)."""
        engine = match.engine
        if clock is None or engine is None:
            return
        name, *args = time_settings_command(clock, match.commands)
        try:
            await engine.command(name, *args)
        except EngineCommandFailed as exc:
            log.debug("room %s: the engine plays without the clock: %s", match.room, exc)
            return
        match.clock, match.periods_as_stones = clock, name in PERIODS_AS_STONES

    async def _tell_time_left(self, match: _Match, turn: Turn) -> None:
        """Tell the engine its own time left, as the SDK counts it down, less the move overhead."""
        if match.clock is None or match.engine is None or turn.clock is None:
            return
        seconds, stones = time_left_args(match.clock, turn.clock, periods_as_stones=match.periods_as_stones,
                                         overhead=self.move_overhead)
        try:
            await match.engine.time_left(COLOURS[turn.seat], seconds, stones)
        except EngineCommandFailed as exc:
            log.debug("room %s: the engine refused time_left, not sent again: %s", match.room, exc)
            match.clock = None

    def _fallback(self, turn: Turn, match: _Match | None) -> str:
        rng = match.rng if match is not None else random.Random(self.seed)
        return builtin_move(turn.game, turn.seat, rng) or "pass"

    async def _sync(self, match: _Match, game: Game) -> bool:
        """Bring the engine to the live position; False (engine dropped) when it cannot follow."""
        engine = match.engine
        if engine is None:
            return False
        wanted = engine_plays(game)
        try:
            for late in await engine.settle():
                _account_late(match, late)
            common = 0
            while common < min(len(wanted), len(match.told)) and wanted[common] == match.told[common]:
                common += 1
            while len(match.told) > common:
                if not await self._take_back(match):
                    await engine.clear_board()
                    match.told = []
                    common = 0
            for colour, vertex in wanted[common:]:
                if colour == HANDICAP:
                    await engine.command("set_free_handicap", vertex)
                else:
                    await engine.play(colour, vertex)
                match.told.append((colour, vertex))
        except EngineError as exc:
            await self._drop_engine(match, exc)
            return False
        return True

    async def _take_back(self, match: _Match) -> bool:
        """Undo the engine's last play; False when the engine cannot (nor a handicap, ever)."""
        assert match.engine is not None
        if match.told and match.told[-1][0] == HANDICAP:
            return False
        try:
            await match.engine.undo()
        except EngineCommandFailed:
            return False
        match.told.pop()
        return True

    async def _drop_engine(self, match: _Match, error: EngineError) -> None:
        """Stop an engine that failed; the built-in bot plays the rest of the game, and the room is told."""
        if isinstance(error, EngineCommandFailed):
            why = f"cannot follow the game ({error})"
        else:
            why = str(error)
        log.warning("room %s: %s %s; the built-in bot plays instead", match.room, self.name, why)
        if match.engine is not None:
            await match.engine.quit()
        match.engine = None
        await self.say(match.room, f"[{self.name} stopped: {why}. The built-in bot plays the rest of this "
                                   f"game for this seat.]")
        await self.rename_seat(match.room, f"{self.name} (built-in bot)")


async def _board(engine: GtpEngine, dims: tuple[int, int]) -> None:
    """`boardsize N`, or `rectangular_boardsize W H` for a board that is not square."""
    if dims[0] == dims[1]:
        await engine.boardsize(dims[0])
    else:
        await engine.command("rectangular_boardsize", dims[0], dims[1])


async def _optional(engine: GtpEngine, name: str, *args: object) -> str | None:
    """A command the engine may not know: its reply, or None when it refuses."""
    try:
        return await engine.command(name, *args)
    except EngineCommandFailed as exc:
        log.debug("%s refused %s: %s", engine.tag, name, exc.reply)
        return None


def score_for(estimate: str, colour: str) -> float | None:
    """`colour`'s lead in a GTP score ("W+3.5 (upper bound: ...)", "B+12", "0"); None if unreadable.

    >>> score_for("W+3.5 (upper bound: -2.5, lower: -4.5)", "b"), score_for("B+12", "b"), score_for("0", "w")
    (-3.5, 12.0, 0.0)
    """
    match = re.match(r"\s*([BW])\+(\d+(?:\.\d+)?)", estimate)
    if match is None:
        return 0.0 if estimate.strip() == "0" else None
    lead = float(match.group(2))
    return lead if match.group(1).lower() == colour else -lead


def _vertex(reply: str) -> str:
    reply = reply.strip()
    return reply.lower() if reply.lower() in ("pass", "resign") else reply.upper()


def _account_late(match: _Match, late: LateReply) -> None:
    """Note on `match.told` what a command given up on (a genmove out of time) did to the engine's board."""
    words = late.command.split()
    if not late.success:
        return
    if words[0] == "play" and len(words) == 3:
        match.told.append((words[1], words[2]))
    elif words[0] in ("genmove", "kgs-genmove_cleanup") and _vertex(late.text) != "resign":
        match.told.append((words[1], _vertex(late.text)))
    elif words[0] == "undo" and match.told:
        match.told.pop()
    elif words[0] == "clear_board":
        match.told.clear()
    elif words[0] == "set_free_handicap":
        match.told.append((HANDICAP, " ".join(words[1:])))
