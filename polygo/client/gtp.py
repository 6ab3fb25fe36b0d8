"""An asyncio client of a GTP engine subprocess (GNU Go, KataGo, Leela Zero, ...).

Modelled on python-chess's ``chess.engine``: each request is a `GtpCommand` object holding its
text and a future; one command is on the wire at a time; a reader task parses the engine's
``= ...`` / ``? ...`` responses and settles the future of the command in flight. An engine that dies
or does not answer in time fails the pending command with `EngineTerminated` / `EngineTimeout`
instead of hanging the caller, and every later command fails at once.

A caller cancelled while its command is on the wire (a bot out of time cancels its `genmove`)
leaves the command in flight: GTP cannot stop a command, so its reply is still coming. The next
command first waits for that reply (within the engine's timeout, else the engine is stopped), so
replies never get out of step, and keeps it as a `LateReply` for `settle()`: the engine may have
played a move on its own board that its caller never saw.

Only the protocol lives here; mapping a polygo game onto GTP commands is `gtp_bridge`'s job.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
import shlex
from typing import Sequence

from polygo.client.errors import (
    EngineCommandFailed,
    EngineError,
    EngineProtocolError,
    EngineTerminated,
    EngineTimeout,
)

log = logging.getLogger("polygo.gtp.engine")

DEFAULT_TIMEOUT = 30.0
"""Seconds an engine may take to answer a command before it is declared hung and stopped."""

_STDERR_TAIL = 20
"""Lines of the engine's stderr kept for the message when it dies."""


@dataclasses.dataclass
class GtpCommand:
    """One request to the engine: its text and the future that receives the response."""

    text: str
    result: asyncio.Future[tuple[bool, str]]
    id: int


@dataclasses.dataclass(frozen=True)
class LateReply:
    """The reply to a command whose caller was cancelled before it arrived."""

    command: str
    success: bool
    text: str


def parse_response_line(line: str) -> tuple[bool, int | None, str]:
    """Split the first line of a GTP response into (success, id, text).

    >>> parse_response_line("=3 D4")
    (True, 3, 'D4')
    >>> parse_response_line("? illegal move")
    (False, None, 'illegal move')
    """
    if not line or line[0] not in "=?":
        raise EngineProtocolError(f"expected a GTP response ('=' or '?'), the engine wrote {line!r}")
    success = line[0] == "="
    rest = line[1:]
    digits = len(rest) - len(rest.lstrip("0123456789"))
    ident = int(rest[:digits]) if digits else None
    return success, ident, rest[digits:].strip()


class GtpEngine:
    """A running GTP engine. Create with `GtpEngine.popen`; use as an async context manager."""

    def __init__(self, process: asyncio.subprocess.Process, argv: Sequence[str], timeout: float,
                 game: str | None = None) -> None:
        self.process = process
        self.argv = list(argv)
        self.timeout = timeout
        self.game = game
        self._lock = asyncio.Lock()
        self._pending: GtpCommand | None = None
        self._abandoned: GtpCommand | None = None
        self._late: list[LateReply] = []
        self._lines: list[str] = []
        self._next_id = 1
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL)
        self._failure: EngineError | None = None
        self._reader = asyncio.create_task(self._read_stdout())
        self._err_reader = asyncio.create_task(self._read_stderr())

    @classmethod
    async def popen(cls, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                    game: str | None = None) -> GtpEngine:
        """Start an engine from a command line (a string is split like a shell would); `game` (a
        room id) begins every log line of this engine, so that several engines' lines can be told
        apart, as lichess-bot and gtp2ogs do."""
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise EngineTerminated("no engine command given")
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise EngineTerminated(f"cannot start the engine {argv[0]!r}: {exc.strerror or exc}") from exc
        return cls(process, argv, timeout, game)

    @property
    def name(self) -> str:
        """The program's file name, for messages."""
        return self.argv[0].rsplit("/", 1)[-1]

    @property
    def tag(self) -> str:
        """The start of this engine's log lines: its game (``room Xk2bT9aQ``) and its name."""
        return self.name if self.game is None else f"room {self.game}: {self.name}"

    @property
    def alive(self) -> bool:
        """Whether commands can still be sent."""
        return self._failure is None

    async def __aenter__(self) -> GtpEngine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.quit()

    async def command(self, name: str, *args: object, timeout: float | None = None) -> str:
        """Send one command and return the text of its success response.

        Raises `EngineCommandFailed` for a ``?`` response (the engine lives on), `EngineTimeout` when
        no answer came in time and `EngineTerminated` when the process is gone (both leave the engine
        unusable).
        """
        text = " ".join([name, *map(str, args)])
        if "\n" in text or "\r" in text:
            raise EngineProtocolError(f"a GTP command is one line, got {text!r}")
        async with self._lock:
            await self._consume_abandoned()
            if self._failure is not None:
                raise self._failure
            loop = asyncio.get_running_loop()
            cmd = GtpCommand(text, loop.create_future(), self._next_id)
            self._next_id += 1
            self._pending = cmd
            log.debug("%s <- %d %s", self.tag, cmd.id, text)
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(f"{cmd.id} {text}\n".encode())
                await self.process.stdin.drain()
                limit = self.timeout if timeout is None else timeout
                success, reply = await asyncio.wait_for(asyncio.shield(cmd.result), limit)
            except (BrokenPipeError, ConnectionResetError) as exc:
                self._pending = None
                await self._reader
                raise self._failure or EngineTerminated(f"{self.name} closed its input") from exc
            except asyncio.TimeoutError:
                cmd.result.cancel()
                self._fail(EngineTimeout(f"{self.name} did not answer {text!r} within {limit:g} s; it was stopped"))
                await self._kill()
                raise self._failure from None  # type: ignore[misc]
            except asyncio.CancelledError:
                self._abandon(cmd)
                raise
            finally:
                if self._abandoned is not cmd:
                    self._pending = None
        if not success:
            raise EngineCommandFailed(text, reply)
        return reply

    async def settle(self) -> list[LateReply]:
        """Wait for the reply to a command whose caller was cancelled; the late replies since the last
        call, oldest first (the caller decides what the engine's board now holds)."""
        async with self._lock:
            await self._consume_abandoned()
            late, self._late = self._late, []
            return late

    def _abandon(self, cmd: GtpCommand) -> None:
        """The caller of `cmd` was cancelled: its reply is consumed before the next command is sent."""
        cmd.result.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved, never lost
        if cmd.result.done():
            self._keep_late(cmd)
        else:
            self._abandoned = cmd

    async def _consume_abandoned(self) -> None:
        cmd = self._abandoned
        if cmd is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(cmd.result), self.timeout)
        except asyncio.TimeoutError:
            self._fail(EngineTimeout(f"{self.name} did not answer {cmd.text!r} within {self.timeout:g} s "
                                     "(its caller had given up); it was stopped"))
            await self._kill()
        except EngineError:
            pass
        # A cancellation of this wait propagates and leaves the command abandoned for the next caller.
        self._keep_late(cmd)
        self._abandoned = None
        self._pending = None

    def _keep_late(self, cmd: GtpCommand) -> None:
        if cmd.result.cancelled() or cmd.result.exception() is not None:
            return
        success, text = cmd.result.result()
        log.debug("%s: late reply to %r: %s", self.tag, cmd.text, text)
        self._late.append(LateReply(cmd.text, success, text))

    async def protocol_version(self) -> str:
        return await self.command("protocol_version")

    async def engine_name(self) -> str:
        return await self.command("name")

    async def version(self) -> str:
        return await self.command("version")

    async def known_command(self, name: str) -> bool:
        return (await self.command("known_command", name)).lower() == "true"

    async def boardsize(self, size: int) -> None:
        await self.command("boardsize", size)

    async def komi(self, komi: float) -> None:
        await self.command("komi", f"{komi:g}")

    async def clear_board(self) -> None:
        await self.command("clear_board")

    async def play(self, colour: str, vertex: str) -> None:
        """Tell the engine a move was made: colour "b"/"w", vertex a point name or "pass"."""
        await self.command("play", colour, vertex)

    async def genmove(self, colour: str, *, timeout: float | None = None) -> str:
        """Ask for a move: a point name in upper case, "pass" or "resign"."""
        reply = (await self.command("genmove", colour, timeout=timeout)).strip()
        if not reply:
            raise EngineProtocolError(f"{self.name} answered genmove with an empty move")
        return reply.lower() if reply.lower() in ("pass", "resign") else reply.upper()

    async def undo(self) -> None:
        await self.command("undo")

    async def list_commands(self) -> list[str]:
        """The commands the engine says it knows, one name each."""
        return (await self.command("list_commands")).split()

    async def time_settings(self, main: int, byo_yomi_time: int, byo_yomi_stones: int) -> None:
        """GTP's only time system, Canadian: `main` seconds, then `byo_yomi_stones` moves per
        `byo_yomi_time` seconds (stones 0: no overtime, absolute time)."""
        await self.command("time_settings", main, byo_yomi_time, byo_yomi_stones)

    async def kgs_time_settings(self, system: str, *args: int) -> None:
        """The KGS extension: "none", "absolute MAIN", "byoyomi MAIN PERIOD PERIODS",
        "canadian MAIN PERIOD STONES"."""
        await self.command("kgs-time_settings", system, *args)

    async def time_left(self, colour: str, seconds: int, stones: int) -> None:
        """The time `colour` has left: `seconds` of main time (stones 0) or of the current
        overtime period with `stones` still to play in it (KGS byo-yomi: the periods left)."""
        await self.command("time_left", colour, seconds, stones)

    async def final_score(self) -> str:
        """The engine's own count, e.g. "B+3.5", "W+12" or "0"."""
        return await self.command("final_score")

    async def final_status_list(self, status: str) -> list[str]:
        """Points of stones with the given status ("dead", "alive", "seki"), upper case."""
        reply = await self.command("final_status_list", status)
        return [vertex.upper() for vertex in reply.split()]

    async def quit(self, grace: float = 2.0) -> None:
        """Ask the engine to quit, then make sure the process is gone."""
        if self._failure is None:
            with contextlib.suppress(EngineError):
                await self.command("quit", timeout=grace)
            self._fail(EngineTerminated(f"{self.name} was closed"))
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), grace)
        except asyncio.TimeoutError:
            await self._kill()
        for task in (self._reader, self._err_reader):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _fail(self, error: EngineError) -> None:
        if self._failure is None:
            self._failure = error
        if self._pending is not None and not self._pending.result.done():
            self._pending.result.set_exception(self._failure)

    async def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()

    async def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                self._feed(line.decode("utf-8", "replace").replace("\r", "").rstrip("\n"))
        except EngineProtocolError as exc:
            self._fail(exc)
            await self._kill()
            return
        returncode = await self.process.wait()
        await self._err_reader
        tail = " | ".join(self._stderr)
        detail = f"; its last words: {tail}" if tail else ""
        self._fail(EngineTerminated(f"{self.name} exited with status {returncode}{detail}"))

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            text = line.decode("utf-8", "replace").strip()
            if text:
                log.debug("%s stderr: %s", self.tag, text)
                self._stderr.append(text)

    def _feed(self, line: str) -> None:
        """Take one line of the engine's output; a blank line ends a response."""
        if line:
            log.debug("%s -> %s", self.tag, line)
        if line.strip() == "":
            if self._lines:
                self._finish()
            return
        if not self._lines:
            parse_response_line(line)
        self._lines.append(line)

    def _finish(self) -> None:
        success, ident, first = parse_response_line(self._lines[0])
        text = "\n".join([first, *self._lines[1:]]).strip()
        self._lines = []
        cmd = self._pending
        if cmd is None or cmd.result.done():
            return
        if ident is not None and ident != cmd.id:
            raise EngineProtocolError(f"{self.name} answered command {ident} while {cmd.id} ({cmd.text!r}) was pending")
        cmd.result.set_result((success, text))
