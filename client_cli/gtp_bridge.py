"""The GTP bridge: any GTP engine (GNU Go, KataGo, ...) as a polygo bot, one engine process per game.

Like OGS's gtp2ogs. For each two-player game on a square grid under a ruleset the engine can play,
`GtpBot` starts the engine (with the ruleset's options where the engine has them, e.g. GNU Go's
`--positional-superko`), sets the board size and komi, and before each `genmove` brings the engine's
position in line with the live game: the plays it has not seen are sent with `play`, plays that left
the live game (an undo, a Kee rescission) are taken back with `undo`, or the board is rebuilt.

The engine's answers are checked with gorules before they are sent: "resign" resigns, "pass"
passes; a move the polygo rules refuse is taken back in the engine and replaced by an appeal where
the Kee rules allow one (the engine wanted a play prohibited by the cycle rule), else by the
built-in bot's move. An engine that dies or stops answering is replaced by the built-in bot for the
rest of that game. In the marking phase the engine's `final_status_list dead` chains are marked.

In a room with a clock the engine is told the time system once (`time_settings`, or KGS's
`kgs-time_settings byoyomi` for byo-yomi where the engine lists it) and its own time left before each
`genmove` (`time_left`). GTP has no increment and no Japanese byo-yomi, so Fischer clocks are told as
absolute time and byo-yomi (without the KGS command) as one stone per period; an engine that refuses
these commands plays on without them.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import random
import re
import shlex
import time
from typing import Any

from gorules import Game

from client_cli.builtin_bot import choose_move as builtin_move
from client_cli.errors import EngineCommandFailed, EngineError, UsageError
from client_cli.gtp import DEFAULT_TIMEOUT, GtpEngine, LateReply
from client_cli.room import Clocks, RoomView
from client_cli.sdk import Bot, Turn

log = logging.getLogger("polygo.gtp")

GNUGO_FLAGS: dict[str, list[str]] = {
    "tromp-taylor": ["--chinese-rules", "--positional-superko", "--allow-suicide", "--capture-all-dead"],
    "chinese": ["--chinese-rules", "--positional-superko"],
    "aga": ["--chinese-rules", "--situational-superko"],
    "japanese": ["--japanese-rules"],
    "kee": ["--chinese-rules", "--positional-superko", "--allow-suicide"],
    "lasker-maas": ["--japanese-rules", "--situational-superko"],
    "nieminen": ["--japanese-rules"],
}
"""GNU Go's options per polygo ruleset: scoring, repetition and suicide as near as GNU Go has them.
The rulesets listed are the ones the bridge plays; the bridge itself handles Kee appeals."""

COLOURS = ("b", "w")
_GRID = re.compile(r"^(\d+)(?:x(\d+))?$")


def is_gnugo(argv: list[str]) -> bool:
    return bool(argv) and argv[0].rsplit("/", 1)[-1].startswith("gnugo")


def engine_argv(command: str, rules: str, superko: str | None = None) -> list[str]:
    """The engine's command line for a game under `rules`, GNU Go's rule options added.

    >>> engine_argv("gnugo --mode gtp", "chinese")
    ['gnugo', '--mode', 'gtp', '--chinese-rules', '--positional-superko']
    """
    argv = shlex.split(command)
    if not is_gnugo(argv):
        return argv
    flags = list(GNUGO_FLAGS.get(rules, []))
    if superko is not None:
        flags = [f for f in flags if not f.endswith("-superko")] + [f"--{superko}-superko"]
    return argv + [f for f in flags if f not in argv]


def grid_size(settings: dict[str, Any]) -> int | None:
    """The side of a square grid board named by a room's settings, else None (GTP boards are square)."""
    board = settings.get("board")
    match = _GRID.match(board.strip().lower()) if isinstance(board, str) else None
    if match is None:
        return None
    width = int(match.group(1))
    height = int(match.group(2) or width)
    return width if width == height and 2 <= width <= 25 else None


def engine_plays(game: Game) -> list[tuple[str, str]]:
    """What the engine must have been told to reach the live position: (colour, vertex) in order.

    Initial stones (handicap, set-up) come first as plays of their colour; appeals are passes;
    rescinded plays and actions (dead marks, rankings) are not plays.
    """
    record = game.to_record()
    record["moves"] = []
    start = Game.from_record(record)
    plays = [(COLOURS[seat], point) for point, seat in sorted(start.stones().items())]
    for play in game.history:
        if play.rescinded or play.seat > 1:
            continue
        move = play.move
        if move == "pass" or move.startswith("appeal "):
            plays.append((COLOURS[play.seat], "pass"))
        elif move in game.board:
            plays.append((COLOURS[play.seat], move))
    return plays


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """A room's clock as the bridge reads it from the settings' map form (see docs/protocol.md)."""

    kind: str
    main: float = 0
    period: float = 0
    periods: int = 0
    stones: int = 0

    @classmethod
    def of(cls, clock: Any) -> TimeControl | None:
        """The clock of a room's settings (the server sends its map form), None without one.

        >>> TimeControl.of({"kind": "canadian", "main": 600, "period": 300, "stones": 25})
        TimeControl(kind='canadian', main=600.0, period=300.0, periods=0, stones=25)
        >>> TimeControl.of(None) is None and TimeControl.of({"kind": "none"}) is None
        True
        """
        kind = clock.get("kind") if isinstance(clock, dict) else clock
        if kind in (None, "none"):
            return None
        try:
            if kind not in ("absolute", "byoyomi", "fischer", "canadian"):
                raise ValueError(kind)
            return cls(kind, float(clock.get("main") or 0), float(clock.get("period") or 0),
                       int(clock.get("periods") or 0), int(clock.get("stones") or 0))
        except (TypeError, ValueError):
            log.debug("a clock the bridge cannot read is not told to the engine: %r", clock)
            return None


def time_settings_command(clock: TimeControl, *, kgs: bool = False) -> tuple[str, ...]:
    """The GTP command that tells an engine the time system: (name, arguments...).

    GTP's `time_settings` is Canadian overtime only (stones 0: absolute time). Byo-yomi goes as
    `kgs-time_settings byoyomi` when the engine has it (`kgs`), else as one stone per period (the
    engine then counts on a single period); Fischer goes as absolute time, the increments showing in
    each `time_left`. Settings are rounded up to whole seconds.

    >>> time_settings_command(TimeControl("canadian", main=600, period=300, stones=25))
    ('time_settings', '600', '300', '25')
    >>> time_settings_command(TimeControl("byoyomi", main=600, period=30, periods=5), kgs=True)
    ('kgs-time_settings', 'byoyomi', '600', '30', '5')
    >>> time_settings_command(TimeControl("byoyomi", main=600, period=30, periods=5))
    ('time_settings', '600', '30', '1')
    >>> time_settings_command(TimeControl("fischer", main=300))
    ('time_settings', '300', '0', '0')
    """
    main, period = math.ceil(clock.main), math.ceil(clock.period)
    if clock.kind == "byoyomi" and kgs:
        return ("kgs-time_settings", "byoyomi", str(main), str(period), str(clock.periods))
    if clock.kind == "byoyomi":
        return ("time_settings", str(main), str(period), "1")
    if clock.kind == "canadian":
        return ("time_settings", str(main), str(period), str(clock.stones))
    return ("time_settings", str(main), "0", "0")  # absolute; fischer without its increment


def time_left_args(clock: TimeControl, clocks: Clocks, seat: int, now: float, *,
                   kgs: bool = False) -> tuple[int, int]:
    """`time_left`'s (seconds, stones) for `seat` at local time `now`, from the reported `clocks`.

    Seconds are those of `Clocks.left`, rounded down. Stones are 0 in main time; in overtime the
    stones still owed in the Canadian block, 1 for byo-yomi told as one stone per period, and with
    the KGS byo-yomi the periods left (the current one included), as KGS and the engines that
    follow it read them.

    >>> canadian = TimeControl("canadian", main=0, period=300, stones=25)
    >>> time_left_args(canadian, Clocks(0, [{"main": 0, "period_left": 290.5, "stones_left": 7}], 0.0), 0, 10.0)
    (280, 7)
    >>> byoyomi = TimeControl("byoyomi", main=600, period=30, periods=5)
    >>> time_left_args(byoyomi, Clocks(0, [{"main": 12.5, "periods": 5, "period_left": 30}], 0.0), 0, 2.0)
    (10, 0)
    >>> time_left_args(byoyomi, Clocks(0, [{"main": 0, "periods": 3, "period_left": 30}], 0.0), 0, 4.0, kgs=True)
    (26, 3)
    """
    seconds = math.floor(clocks.left(seat, now))
    if clock.kind in ("absolute", "fischer") or clocks.in_main_time(seat, now):
        return seconds, 0
    reported = clocks.seats[seat]
    if clock.kind == "canadian":
        return seconds, int(reported.get("stones_left") or 0)
    return seconds, (int(reported.get("periods") or 0) if kgs else 1)


def _account_late(match: _Match, late: LateReply) -> None:
    """Note on `match.told` what a command given up on (a genmove out of time) did to the engine's board."""
    words = late.command.split()
    if not late.success:
        return
    if words[0] == "play" and len(words) == 3:
        match.told.append((words[1], words[2]))
    elif words[0] in ("genmove", "kgs-genmove_cleanup") and late.text.strip().lower() != "resign":
        vertex = late.text.strip()
        match.told.append((words[1], vertex.lower() if vertex.lower() == "pass" else vertex.upper()))
    elif words[0] == "undo" and match.told:
        match.told.pop()
    elif words[0] == "clear_board":
        match.told.clear()


@dataclasses.dataclass
class _Match:
    """One game's engine and what the engine has been told so far."""

    room: str
    engine: GtpEngine | None
    told: list[tuple[str, str]]
    rng: random.Random
    clock: TimeControl | None = None
    """The time system the engine accepted; None when it has none (no clock, or it refused)."""
    kgs_byoyomi: bool = False


class GtpBot(Bot):
    """A GTP engine behind the SDK: `GtpBot("gnugo --mode gtp --level 1")`."""

    def __init__(self, command: str, *, timeout: float = DEFAULT_TIMEOUT, seed: int = 0) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"cannot read the GTP engine command {command!r}: {exc}") from None
        if not self.argv:
            raise UsageError("the GTP engine command is empty")
        self.command = command
        self.name = self.argv[0].rsplit("/", 1)[-1][:32]
        self.timeout = timeout
        self.seed = seed
        self._matches: dict[str, _Match] = {}

    def accepts(self, settings: dict[str, Any]) -> bool:
        """Two players, a square grid, a ruleset the bridge maps (any, for engines other than GNU Go)."""
        if settings.get("players", 2) != 2 or grid_size(settings) is None:
            return False
        return settings.get("rules") in GNUGO_FLAGS or not is_gnugo(self.argv)

    async def game_started(self, room: str, view: RoomView) -> None:
        rng = random.Random(f"{self.seed}:{room}")
        match = self._matches[room] = _Match(room, None, [], rng)
        argv = engine_argv(self.command, view.game.rules.name, view.settings.get("superko"))
        try:
            match.engine = await GtpEngine.popen(argv, timeout=self.timeout)
            await match.engine.boardsize(view.game.board.width)
            await match.engine.komi(view.game.rules.komi)
            await match.engine.clear_board()
            await self._tell_time_settings(match, TimeControl.of(view.settings.get("clock")))
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
        try:
            await self._tell_time_left(match, turn)
            reply = await match.engine.genmove(colour)
        except EngineError as exc:
            await self._drop_engine(match, exc)
            return self._fallback(turn, match)
        if reply == "resign":
            return "resign"
        match.told.append((colour, reply))
        if reply == "pass":
            return "pass"
        reason = turn.game.why_illegal(reply)
        if reason is None:
            return reply
        log.info("room %s: the engine's %s is %s under %s", turn.room, reply, reason, turn.game.rules.name)
        try:
            await self._take_back(match)
        except EngineError as exc:
            await self._drop_engine(match, exc)
        if reason == "cycle" and turn.game.why_illegal(f"appeal {reply}") is None:
            return f"appeal {reply}"
        return self._fallback(turn, match)

    async def mark_dead(self, turn: Turn) -> str:
        """Mark the chains the engine calls dead (never unmarking), then accept."""
        match = self._matches.get(turn.room)
        if match is None or match.engine is None or not await self._sync(match, turn.game):
            return "done"
        try:
            dead = await match.engine.final_status_list("dead")
        except EngineError:
            return "done"
        marked = set(turn.game.dead)
        for point in dead:
            if point not in marked and turn.game.stone_at(point) is not None:
                return f"dead {point}"
        return "done"

    async def _tell_time_settings(self, match: _Match, clock: TimeControl | None) -> None:
        """Tell the engine the room's time system; a refusal is noted (no `time_left` follows)."""
        engine = match.engine
        if clock is None or engine is None:
            return
        kgs = False
        if clock.kind == "byoyomi":
            try:
                kgs = "kgs-time_settings" in await engine.list_commands()
            except EngineCommandFailed as exc:
                log.debug("room %s: no list of commands from the engine: %s", match.room, exc)
        name, *args = time_settings_command(clock, kgs=kgs)
        try:
            await engine.command(name, *args)
        except EngineCommandFailed as exc:
            log.debug("room %s: the engine plays without the clock: %s", match.room, exc)
            return
        match.clock, match.kgs_byoyomi = clock, kgs

    async def _tell_time_left(self, match: _Match, turn: Turn) -> None:
        """Tell the engine its own time left, as the SDK counts it down from the last report."""
        clocks = turn.clocks
        if match.clock is None or match.engine is None or clocks is None or turn.seat >= len(clocks.seats):
            return
        seconds, stones = time_left_args(match.clock, clocks, turn.seat, time.monotonic(), kgs=match.kgs_byoyomi)
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
        except EngineError as exc:
            await self._drop_engine(match, exc)
            return False
        common = 0
        while common < min(len(wanted), len(match.told)) and wanted[common] == match.told[common]:
            common += 1
        try:
            while len(match.told) > common:
                if not await self._take_back(match):
                    await engine.clear_board()
                    match.told = []
                    common = 0
            for colour, vertex in wanted[common:]:
                await engine.play(colour, vertex)
                match.told.append((colour, vertex))
        except EngineError as exc:
            await self._drop_engine(match, exc)
            return False
        return True

    async def _take_back(self, match: _Match) -> bool:
        """Undo the engine's last play; False when the engine cannot."""
        assert match.engine is not None
        try:
            await match.engine.undo()
        except EngineCommandFailed:
            return False
        match.told.pop()
        return True

    async def _drop_engine(self, match: _Match, error: EngineError) -> None:
        """Stop an engine that failed; the built-in bot plays the rest of the game."""
        if isinstance(error, EngineCommandFailed):
            log.warning("room %s: the engine cannot follow the game (%s); the built-in bot plays instead",
                        match.room, error)
        else:
            log.warning("room %s: %s; the built-in bot plays instead", match.room, error)
        if match.engine is not None:
            await match.engine.quit()
        match.engine = None
