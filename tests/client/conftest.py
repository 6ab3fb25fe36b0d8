"""Shared fixtures of the client tests: GNU Go, the fake GTP engine, a real server subprocess."""

import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from gorules import Game
from protocol import Snapshot

from client_cli.room import RoomView

ROOT = Path(__file__).resolve().parents[2]
FAKE_GTP = Path(__file__).with_name("fake_gtp.py")
GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


@pytest.fixture
def fake_engine():
    """A factory: the argv of the scripted fake engine (tests/client/fake_gtp.py) with these flags."""

    def argv(*flags: str) -> list[str]:
        return [sys.executable, str(FAKE_GTP), *flags]

    return argv


@pytest.fixture
def gnugo() -> str:
    """The path of GNU Go; the test is skipped only where it is not installed."""
    if GNUGO is None:
        pytest.skip("GNU Go is not installed (apt-get install gnugo)")
    return GNUGO


class LocalServer:
    """A real `python -m server` on a free loopback port with its own SQLite file."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.process: subprocess.Popen[str] | None = None
        self.port = 0
        self.log: list[str] = []

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def start(self, port: int = 0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(port), "--db", str(self.db), "--log-level", "INFO"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            found = re.search(r"listening on [^:]+:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                break
        else:
            raise RuntimeError("the server did not start: " + "".join(self.log))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def server(tmp_path):
    """A server subprocess on loopback with a fresh SQLite file, stopped after the test."""
    local = LocalServer(tmp_path / "polygo.db")
    local.start()
    yield local
    local.stop()


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]")
GUARD = 20.0
"""Seconds a pseudo-terminal test waits for output before it fails; never a measure of speed."""


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

    def more(self) -> bool:
        """Wait for more output (False when none came in GUARD seconds)."""
        return self.read_some(GUARD)

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


@pytest.fixture
def spawn():
    """A factory of programs on 80x24 pseudo-terminals; any still running at teardown is stopped."""
    started: list[Pty] = []

    def start(argv: list[str], env: dict[str, str]) -> Pty:
        started.append(Pty(argv, env))
        return started[-1]

    yield start
    for term in started:
        if term.process.poll() is None:
            os.killpg(term.process.pid, signal.SIGTERM)
            term.process.wait()


def _view_of(game: Game, names: list[str], settings: dict | None = None) -> RoomView:
    """A RoomView as a snapshot of `game` would make it."""
    snapshot = Snapshot(
        room="R1", version=len(game.history) + 1, status="playing",
        settings={"rules": game.rules.name, "board": game.board.spec, "players": len(game.players),
                  **(settings or {})},
        seats=[{"seat": i, "colour": c, "name": n} for i, (c, n) in enumerate(zip(game.players, names))],
        game={"rules": game.rules.name, "board": game.board.to_json(), "board_spec": game.board.spec,
              "players": list(game.players), "history": [[p.seat, p.move, p.rescinded] for p in game.history],
              "result": None},
    )
    return RoomView(snapshot, now=0.0)


@pytest.fixture
def make_view():
    """A factory: the RoomView a snapshot of a gorules Game would give (no server needed)."""
    return _view_of
