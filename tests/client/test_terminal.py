"""`polygo play` in a pseudo-terminal against a real server: a whole game typed at the prompt."""

import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import fcntl

import pytest

from client_cli.terminal import Command, parse_command

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]")
GUARD = 20.0  # seconds before a stuck test fails; never a measure of speed


class Pty:
    """A program on a pseudo-terminal of 80x24: type lines, wait for text on the screen."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        close_fds=True, start_new_session=True)
        os.close(slave)
        self.master = master
        self.raw = ""
        self.seen = 0

    def read_some(self, wait: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.raw += data.decode("utf-8", "replace")
        return True

    @property
    def text(self) -> str:
        return ANSI.sub("\n", self.raw)

    def expect(self, pattern: str) -> re.Match:
        """Wait for `pattern` in what the program wrote since the last match."""
        regex = re.compile(pattern)
        while True:
            found = regex.search(self.text, self.seen)
            if found:
                self.seen = found.end()
                return found
            if not self.read_some(GUARD):
                raise AssertionError(f"never saw {pattern!r}; the screen said:\n{self.text[-3000:]}")

    def latest(self, pattern: str) -> str | None:
        matches = re.findall(pattern, self.text)
        return matches[-1] if matches else None

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            code = self.process.wait(GUARD)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGTERM)
            code = self.process.wait()
        os.close(self.master)
        return code


def test_parse_command():
    assert parse_command("c3", None) == Command("move", "C3")
    assert parse_command("appeal b2", None) == Command("move", "appeal B2")
    assert parse_command("rank 1 2 2", None) == Command("move", "rank 1 2 2")
    assert parse_command("rank first", None).kind == "error"
    assert parse_command("undo yes", None) == Command("undo_reply", "yes")
    assert parse_command("say gg", None) == Command("say", "gg")
    assert parse_command("say", None).kind == "error"
    assert parse_command("frobnicate now", None).kind == "error"
    assert parse_command("", None).kind == "redraw"


def test_a_game_in_the_terminal(server, tmp_path):
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1", TERM="xterm")
    term = Pty([sys.executable, "-m", "client_cli", "play", "--server", server.url, "--name", "ann",
                "--bots", "1", "--rules", "tromp-taylor", "--board", "5x5"], env)
    try:
        term.expect(r"to move: you")
        term.type("c3")
        term.expect(r"played C3")
        term.expect(r"to move: you")
        term.type("C3")
        refused = term.expect(r"refused 'C3'[^\n]*")
        assert "occupied" in refused.group(0)
        term.type("pass")
        term.expect(r"played pass")
        for _ in range(200):
            if term.latest(r"GAME OVER") is not None:
                break
            if term.latest(r"to move: [^\n]*") == "to move: you":
                term.type("pass")
                term.expect(r"played pass|refused[^\n]*|GAME OVER")
            elif not term.read_some(GUARD):
                raise AssertionError(f"the game stalled:\n{term.text[-2000:]}")
        term.expect(r"GAME OVER \(passes\)")
        term.expect(r"score: black \d+, white \d+")
        term.expect(r"game over \(passes\): score black \d+, white \d+; ranking")
        assert not re.search(r"\x1b\[[0-9;]*m", term.raw)  # NO_COLOR: no colour escapes
    finally:
        assert term.close() == 0
