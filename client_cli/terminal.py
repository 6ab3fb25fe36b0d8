"""`polygo play` and `polygo watch`: a game in the terminal.

The screen (`render.screen`) is redrawn after every change in the room and every second while a
clock runs; the prompt on the last line keeps what the player is typing. Commands are read a line
at a time (`parse_command` turns a line into an action, without I/O). A refused move shows the
server's reason and the game goes on. When the game ends the final position, score and ranking stay
on the screen and the program exits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import threading
import time
from typing import TextIO

from gorules import Game

from client_cli.errors import ClientError, ServerRefused
from client_cli.render import Style, screen
from client_cli.room import RoomView
from client_cli.session import Client

HELP = ("commands: POINT  pass  appeal POINT  resign  undo  undo yes|no  rank 1 2 2  accept  reject  "
        "dead POINT  alive POINT  done  resume  dispute POINT  give  say TEXT  more  help  quit")

REASONS = {
    "occupied": "that point is occupied",
    "suicide": "that play would be suicide",
    "cycle": "that play repeats an earlier position (Kee rule 11): 'appeal POINT' asks for it",
    "superko": "that play repeats an earlier position (superko)",
    "ko": "that play brings back the position you left at your previous turn (ko): play elsewhere first",
    "handicap": "place your handicap stones first",
    "bad-seat": "there is no such seat",
    "rescinded": "that play was rescinded here and is excluded (Kee rule 14)",
    "cycle-set": "that point is in the cycle set of the capture just made (Hansen rule 9): play elsewhere first",
    "disallowed": "that play repeats your counteracted move (Hansen rule 15): allowed only as a ko threat",
    "tko": "two kos and one liberty: that ko capture is allowed only as a ko threat (Hansen A3)",
    "not-prohibited": "an appeal must name a play that only the cycle rule prohibits",
    "no-appeals": "this ruleset has no appeals",
    "not-your-turn": "it is not your turn",
    "game-over": "the game is over",
    "unknown-point": "there is no such point on this board",
    "bad-move": "that is not a move",
    "not-scoring": "dead stones are marked only after the passes",
    "no-proposal": "there is no ranking proposal to answer",
    "bad-ranking": "a ranking gives one place per seat, e.g. 'rank 1 2 2'",
    "dropped-out": "that player has left the game",
    "owner-cannot-pass": "the owner of the disputed chain answers a play with a play or 'give' (Nieminen N14b)",
    "no-give": "'give' answers the attacker's play in a dispute, and only the chain's owner gives",
    "proven-alive": "that chain survived a dispute play-out: it is alive for good",
}
"""Words for the engine's reason codes, shown after the server's own sentence."""


@dataclasses.dataclass(frozen=True)
class Command:
    """One parsed line: `kind` in move, undo, undo_reply, say, help, more, quit, redraw, error."""

    kind: str
    arg: str = ""


def parse_command(line: str, game: Game | None) -> Command:
    """Turn a typed line into a command; point names are matched case-insensitively on grids.

    >>> parse_command("d4", None)
    Command(kind='move', arg='D4')
    >>> parse_command("say hello there", None)
    Command(kind='say', arg='hello there')
    """
    text = " ".join(line.split())
    if not text:
        return Command("redraw")
    word, _, rest = text.partition(" ")
    word = word.lower()
    if word in ("help", "?", "h"):
        return Command("help")
    if word in ("quit", "exit", "q"):
        return Command("quit")
    if word == "more":
        return Command("more")
    if word in ("say", "chat"):
        return Command("say", rest) if rest else Command("error", "say what? e.g. 'say good game'")
    if word == "undo":
        if not rest:
            return Command("undo")
        if rest.lower() in ("yes", "y", "accept"):
            return Command("undo_reply", "yes")
        if rest.lower() in ("no", "n", "refuse"):
            return Command("undo_reply", "no")
        return Command("error", "'undo' asks to take back your move; 'undo yes' / 'undo no' answer a request")
    if word in ("pass", "resign", "done", "resume", "accept", "reject", "give") and not rest:
        return Command("move", word)
    if word in ("appeal", "dead", "alive", "dispute"):
        if not rest or " " in rest:
            return Command("error", f"'{word}' needs one point, e.g. '{word} D4'")
        return Command("move", f"{word} {_point(rest, game)}")
    if word == "rank":
        places = rest.split()
        if not places or not all(p.isdigit() for p in places):
            return Command("error", "'rank' needs a place per seat, e.g. 'rank 1 2 2'")
        return Command("move", "rank " + " ".join(places))
    if not rest:
        return Command("move", _point(text, game))
    return Command("error", f"unknown command {word!r}; type 'help'")


def _point(text: str, game: Game | None) -> str:
    if game is not None:
        index = game.board.find(text)
        if index is None:
            index = game.board.find(text.upper())
        if index is not None:
            return game.board.points[index]
    return text.upper() if text[:1].isalpha() and text[1:].isdigit() else text


def refusal_text(move: str, error: ServerRefused) -> str:
    """What the player reads when a move is refused: the server's sentence and the reason in words."""
    words = REASONS.get(error.reason or "", "")
    detail = f" — {words}" if words and (error.reason or "") not in error.message.lower() else ""
    return f"refused {move!r}: {error.message}{detail}"


class TerminalApp:
    """Draws one room and takes the player's commands until the game ends or the player quits."""

    def __init__(self, client: Client, room: str, *, style: Style, out: TextIO = sys.stdout,
                 spectator: bool = False, height: int = 24, width: int = 80) -> None:
        self.client = client
        self.room = room
        self.style = style
        self.out = out
        self.spectator = spectator
        self.height = height
        self.width = width
        self.message = HELP if not spectator else "watching; commands: say TEXT, help, quit"
        self.tty = out.isatty()
        self._quit = asyncio.Event()

    @property
    def view(self) -> RoomView:
        return self.client.rooms[self.room]

    def draw(self) -> None:
        mine = [] if self.spectator else self.client.seats_in(self.room)
        lines = screen(self.view, mine, time.monotonic(), self.style, self.message,
                       width=self.width, height=self.height)
        if self.tty:
            body = "".join(f"\x1b[{i + 1};1H{line}\x1b[K" for i, line in enumerate(lines))
            clear = "".join(f"\x1b[{i + 1};1H\x1b[K" for i in range(len(lines), self.height - 1))
            self.out.write("\x1b7" + body + clear + "\x1b8")
        else:
            self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def prompt(self) -> None:
        if self.tty:
            self.out.write(f"\x1b[{self.height};1H\x1b[K> ")
        else:
            self.out.write("> ")
        self.out.flush()

    async def run(self, lines: asyncio.Queue[str | None]) -> dict | None:
        """Play until the end; returns the result (None when the player quit first)."""
        if self.tty:
            self.out.write("\x1b[2J")
        self.draw()
        self.prompt()
        tasks = [asyncio.create_task(self._follow()), asyncio.create_task(self._tick()),
                 asyncio.create_task(self._read(lines))]
        try:
            await self._quit.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        self.draw()
        if self.tty:
            self.out.write(f"\x1b[{self.height};1H\x1b[K")
        self.out.flush()
        return self.view.result

    async def _follow(self) -> None:
        while True:
            room = await self.client.changes.get()
            if room is None:
                self.message = "lost the server; giving up"
                self._quit.set()
                return
            if room != self.room:
                continue
            if self.view.last_kind == "chat" and self.view.chat:
                name, text = self.view.chat[-1]
                self.message = f"<{name}> {text}"
            self.draw()
            if self.view.status == "ended" or self.view.game.phase == "ended":
                self.message = "game over"
                self._quit.set()
                return

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            if self.tty and self.view.clocks is not None and self.view.clocks.running is not None:
                self.draw()

    async def _read(self, lines: asyncio.Queue[str | None]) -> None:
        while True:
            line = await lines.get()
            if line is None:
                self._quit.set()
                return
            await self.handle(line)
            if not self._quit.is_set():
                self.draw()
                self.prompt()

    async def handle(self, line: str) -> None:
        """Carry out one typed line; errors become the message line, never an exception."""
        command = parse_command(line, self.view.game)
        try:
            await self._do(command)
        except ServerRefused as exc:
            if exc.code == "illegal-move":
                self.message = refusal_text(command.arg, exc)
            else:
                self.message = f"refused: {exc.message} [{exc.code}]"
        except ClientError as exc:
            self.message = str(exc)

    async def _do(self, command: Command) -> None:
        kind = command.kind
        if kind == "help":
            self.message = HELP
        elif kind == "quit":
            self.message = "bye"
            self._quit.set()
        elif kind == "more":
            self.style.page += 1
            self.message = ""
        elif kind == "redraw":
            pass
        elif kind == "error":
            self.message = command.arg
        elif kind == "say":
            await self.client.chat(self.room, command.arg)
            self.message = ""
        elif self.spectator:
            self.message = "spectators can only chat ('say TEXT')"
        elif kind == "undo":
            await self.client.undo(self.room)
            self.message = "undo requested; waiting for the others"
        elif kind == "undo_reply":
            await self.client.undo_reply(self.room, command.arg == "yes")
            self.message = "answered the undo request"
        elif kind == "move":
            self.message = f"sent {command.arg}"
            self.draw()
            await self.client.move(self.room, command.arg)
            self.message = f"played {command.arg}"


async def stdin_lines() -> asyncio.Queue[str | None]:
    """Lines typed on standard input, in a queue (None at end of input), read without blocking the loop."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def reader() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\n"))
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=reader, name="polygo-stdin", daemon=True).start()
    return queue
