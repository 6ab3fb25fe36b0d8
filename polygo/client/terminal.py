"""`polygo play` and `polygo watch`: a game in the terminal.

The screen (`render.screen`) is a pure function of the room, drawn for the terminal's real size
and redrawn after every change in the room, every second (the clocks), and when the terminal is
resized. The input line is prompt_toolkit's (asyncio-native): editing, history (Up/Down), and
completion of commands and point names (Tab). `parse_command` turns a line into an action without
I/O; a word that is neither a command nor a point of the board is refused here, never sent as a
move. A refused move shows the server's reason and the game goes on. When the game ends, the final
position, score and ranking stay on the screen and the program exits.

Where standard input or output is not a terminal (scripts), the same commands are read a line at a
time and each new screen is printed as plain text.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from typing import Iterable, TextIO

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Float, FloatContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput

from polygo.rules import Game

from polygo.client.errors import ClientError, ServerRefused
from polygo.client.render import Style, screen
from polygo.client.room import RoomView, result_line
from polygo.client.session import Client

HELP = ("commands: POINT  pass  appeal POINT  resign  leave  undo  undo yes|no  rank 1 2 2  accept  reject  "
        "dead POINT  alive POINT  done  resume  dispute POINT  give  say TEXT  more  help  quit")
WORDS = ("pass", "appeal", "resign", "leave", "undo", "rank", "accept", "reject", "dead", "alive", "done", "resume",
         "dispute", "give", "say", "more", "help", "quit")

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
UNDO_ASKED = "undo requested; waiting for the others"


@dataclasses.dataclass(frozen=True)
class Command:
    """One parsed line: `kind` in move, undo, undo_reply, say, help, more, quit, leave, redraw, error."""

    kind: str
    arg: str = ""


def parse_command(line: str, game: Game | None) -> Command:
    """Turn a typed line into a command; point names are matched case-insensitively.

    With a game, a lone word must be a point of its board (anything else is an error, not a move).

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
    if word == "leave" and not rest:
        return Command("leave")
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
        point = _point(rest, game) if rest and " " not in rest else None
        if point is None:
            return Command("error", f"'{word}' needs one point of the board, e.g. '{word} D4'")
        return Command("move", f"{word} {point}")
    if word == "rank":
        places = rest.split()
        if not places or not all(p.isdigit() for p in places):
            return Command("error", "'rank' needs a place per seat, e.g. 'rank 1 2 2'")
        return Command("move", "rank " + " ".join(places))
    if not rest:
        point = _point(text, game)
        if point is not None:
            return Command("move", point)
    return Command("error", f"unknown command {text!r}: not a command nor a point of this board; type 'help'")


def _point(text: str, game: Game | None) -> str | None:
    if game is None:
        return text.upper() if text[:1].isalpha() and text[1:].isdigit() else text
    for candidate in (text, text.upper(), text.lower()):
        index = game.board.find(candidate)
        if index is not None:
            return game.board.points[index]
    return None


class CommandCompleter(Completer):
    """Completes the first word from the commands, and point names after a word that names a point
    (`appeal`, `dead`, `alive`, `dispute`) or alone."""

    def __init__(self, points: Iterable[str]) -> None:
        self.points = sorted(points)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        words = document.text_before_cursor.split(" ")
        current = words[-1]
        if len(words) == 1:
            choices: Iterable[str] = [*WORDS, *self.points]
        elif len(words) == 2 and words[0].lower() in ("appeal", "dead", "alive", "dispute"):
            choices = self.points
        else:
            return
        for choice in choices:
            if choice.lower().startswith(current.lower()):
                yield Completion(choice, start_position=-len(current))


def refusal_text(move: str, error: ServerRefused) -> str:
    """What the player reads when a move is refused: the server's sentence and the reason in words."""
    words = REASONS.get(error.reason or "", "")
    detail = f" — {words}" if words and (error.reason or "") not in error.message.lower() else ""
    return f"refused {move!r}: {error.message}{detail}"


CONFIRM = {
    "resign": ("resign this game? type 'yes' to resign, anything else to go on", "resign"),
    "leave": ("leave this game for good? you resign (with 3 or more players you drop out and the others "
              "play on) and 'polygo play' will not reopen it; type 'yes' to leave", "resign"),
}
"""Commands that cannot be taken back ask first: the question, and the move sent on 'yes'."""


class TerminalApp:
    """Draws one room and takes the player's commands until the game ends or the player quits."""

    def __init__(self, client: Client, room: str, *, style: Style, out: TextIO = sys.stdout,
                 spectator: bool = False) -> None:
        self.client = client
        self.room = room
        self.style = style
        self.out = out
        self.spectator = spectator
        self.message = HELP if not spectator else "watching; commands: say TEXT, help, quit"
        self.left_for_good = False
        self._confirm: str | None = None
        self._done = asyncio.Event()
        self._app: Application[None] | None = None
        self._busy: set[asyncio.Task[None]] = set()
        self._version = -1

    @property
    def view(self) -> RoomView:
        return self.client.rooms[self.room]

    def lines(self, width: int, height: int) -> list[str]:
        """The screen for a terminal of `width` x `height` (the prompt's line included, left out of
        what is drawn). The connection's state, when it is not connected, is a line of its own above
        the message."""
        mine = [] if self.spectator else self.client.seats_in(self.room)
        message = self.message
        if self.client.status != "connected":
            message = f"{self.client.status}\n{message}".strip()
        return screen(self.view, mine, time.monotonic(), self.style, message, width=width, height=height)

    async def run(self, interactive: bool | None = None) -> dict | None:
        """Play until the end; returns the result (None when the player quit first)."""
        if interactive is None:
            interactive = sys.stdin.isatty() and self.out.isatty()
        follow = asyncio.create_task(self._follow())
        try:
            if interactive:
                await self._run_full_screen()
            else:
                await self._run_plain()
        finally:
            follow.cancel()
            for task in [follow, *self._busy]:
                task.cancel()
            await asyncio.gather(follow, *self._busy, return_exceptions=True)
        return self.view.result

    # --- the full-screen application -----------------------------------------------------------

    async def _run_full_screen(self) -> None:
        buffer = Buffer(history=InMemoryHistory(), multiline=False, complete_while_typing=False,
                        completer=CommandCompleter(self.view.game.board.points), accept_handler=self._accept)
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-d")
        def _quit(event: object) -> None:
            self.message = "bye"
            self._done.set()

        body = Window(FormattedTextControl(self._formatted), wrap_lines=False)
        prompt = Window(BufferControl(buffer, input_processors=[BeforeInput("> ")]), height=1)
        layout = Layout(FloatContainer(HSplit([body, prompt]),
                                       floats=[Float(xcursor=True, ycursor=True,
                                                     content=CompletionsMenu(max_height=8))]),
                        focused_element=prompt)
        self._app = Application(layout=layout, key_bindings=keys, full_screen=True, refresh_interval=1.0,
                                mouse_support=False)
        closer = asyncio.create_task(self._exit_when_done())
        try:
            await self._app.run_async()
        finally:
            closer.cancel()
        size = self._app.output.get_size()
        self.out.write("\n".join(self.lines(size.columns, size.rows - 1)) + "\n")
        self.out.flush()

    def _formatted(self) -> ANSI:
        assert self._app is not None
        size = self._app.output.get_size()
        return ANSI("\n".join(self.lines(size.columns, size.rows)))

    async def _exit_when_done(self) -> None:
        await self._done.wait()
        assert self._app is not None
        self._app.exit()

    def _accept(self, buffer: Buffer) -> bool:
        task = asyncio.get_running_loop().create_task(self.handle(buffer.text))
        self._busy.add(task)
        task.add_done_callback(self._busy.discard)
        return False

    def _redraw(self) -> None:
        if self._app is not None:
            self._app.invalidate()
        elif not self._done.is_set():
            self.out.write("\n".join(self.lines(80, 24)) + "\n> ")
            self.out.flush()

    # --- plain lines, when not on a terminal ------------------------------------------------------

    async def _run_plain(self) -> None:
        self._redraw()
        reader = asyncio.create_task(self._read_plain())
        try:
            await self._done.wait()
        finally:
            reader.cancel()
        self.out.write("\n".join(self.lines(80, 24)) + "\n")
        self.out.flush()

    async def _read_plain(self) -> None:
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                self._done.set()
                return
            await self.handle(line.rstrip("\n"))

    # --- the room and the commands -----------------------------------------------------------------

    async def _follow(self) -> None:
        while True:
            room = await self.client.changes.get()
            if room is None:
                self.message = "lost the server; giving up"
                self._done.set()
                return
            if room != self.room:
                continue
            view = self.view
            fresh, self._version = view.version != self._version, view.version
            if self.message == UNDO_ASKED and view.undo is None:
                self.message = ""        # answered: the move log says what came of it
            if fresh and view.last_kind == "chat" and view.chat:
                name, text = view.chat[-1]
                self.message = f"<{name}> {text}"
            if view.status == "ended" or view.game.phase == "ended":
                if view.result is not None:
                    self.message = f"game over: {result_line(view.game.players, view.result)}"
                self._redraw()
                self._done.set()
                return
            self._redraw()

    async def handle(self, line: str) -> None:
        """Carry out one typed line; errors become the message line, never an exception."""
        command = parse_command(line, self.view.game)
        if self._confirm is not None:
            asked, self._confirm = self._confirm, None
            if line.strip().lower() in ("yes", "y"):
                command = Command("leave" if asked == "leave" else "move", CONFIRM[asked][1])
                self.left_for_good = asked == "leave"
            else:
                self.message = f"not done: you did not {asked}"
                self._redraw()
                return
        elif command.kind in ("move", "leave") and (command.arg == "resign" or command.kind == "leave") \
                and not self.spectator:
            self._confirm = "leave" if command.kind == "leave" else "resign"
            self.message = CONFIRM[self._confirm][0]
            self._redraw()
            return
        try:
            await self._do(command)
        except ServerRefused as exc:
            if exc.code == "illegal-move":
                self.message = refusal_text(command.arg, exc)
            else:
                self.message = f"refused: {exc.message} [{exc.code}]"
        except ClientError as exc:
            self.message = str(exc)
        self._redraw()

    async def _do(self, command: Command) -> None:
        kind = command.kind
        game = self.view.game
        if kind == "help":
            self.message = HELP
        elif kind == "quit":
            self.message = "bye: your seat stays yours; 'polygo play' brings you back"
            self._done.set()
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
            self.message = UNDO_ASKED if self.view.undo is not None else ""
        elif kind == "undo_reply":
            await self.client.undo_reply(self.room, command.arg == "yes")
            self.message = "answered the undo request"
        elif kind == "leave":
            if self.view.status != "ended" and any(game.active[s] for s in self.client.seats_in(self.room)):
                await self.client.move(self.room, "resign")
            self.message = "you left this game for good"
            self._done.set()
        elif kind == "move" and command.arg == "pass" and game.phase == "scoring":
            self.message = ("the passes are over: this is the marking phase, not the end. Type 'done' to "
                            "accept the count shown, 'dead P' / 'alive P' to mark a chain dead or unmark it, 'resume' to play on")
        elif kind == "move":
            self.message = f"sent {command.arg}"
            self._redraw()
            await self.client.move(self.room, command.arg)
            self.message = ""
