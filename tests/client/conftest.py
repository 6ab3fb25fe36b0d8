"""Shared fixtures of the client tests: GNU Go, the fake GTP engine, a real server subprocess, tmux."""

import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from polygo.rules import Game
from polygo.protocol import Snapshot

from polygo.client.room import RoomView

from .tmux import Tmux

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
    """A real `python -m polygo.server` on a free loopback port with its own SQLite file."""

    def __init__(self, db: Path, python: tuple[str, ...] = ("-m", "polygo.server")) -> None:
        self.db = db
        self.python = python
        """What runs the server: another `python -c` may change it first (tests/new_preset.py)."""
        self.process: subprocess.Popen[str] | None = None
        self.port = 0
        self.log: list[str] = []

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def start(self, port: int = 0, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *self.python, "--port", str(port), "--db", str(self.db), "--log-level", "INFO", *args],
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


@pytest.fixture
def tmux():
    """A factory of programs in tmux windows (default 80x24), every one stopped at teardown."""
    started: list[Tmux] = []

    def start(argv: list[str], env: dict[str, str], width: int = 80, height: int = 24) -> Tmux:
        started.append(Tmux(argv, env, width, height))
        return started[-1]

    yield start
    for term in started:
        term.close()


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
    """A factory: the RoomView a snapshot of a polygo.rules Game would give (no server needed)."""
    return _view_of
