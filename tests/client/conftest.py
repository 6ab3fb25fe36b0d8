"""Shared fixtures of the client tests: GNU Go, the fake GTP engine, a real server subprocess."""

import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

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
