"""A program in a tmux window: type keys, read the screen as the player sees it.

prompt_toolkit redraws only the cells that change, so the bytes a program writes are no picture of
the screen; tmux keeps the real screen (`capture-pane`), follows resizes, and sends real keys.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from typing import Callable

GUARD = 30.0
"""Seconds a test waits for text to appear on the screen before it fails; never a measure of speed."""
POLL = 0.05
"""Seconds between two looks at the screen (a look is one `tmux capture-pane`, a few milliseconds)."""


class Tmux:
    """One program in its own tmux server (socket), `width` x `height`."""

    def __init__(self, argv: list[str], env: dict[str, str], width: int = 80, height: int = 24) -> None:
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed (apt-get install tmux; .ci/run installs it)")
        self.socket = f"polygo-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.startswith(("POLYGO", "NO_COLOR")))
        command = f"env {exports} TERM=xterm-256color {shlex.join(argv)}; echo EXIT=$?; sleep 600"
        self._tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=False, env=dict(os.environ, TMUX="")).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, pattern: str) -> re.Match:
        """Wait until `pattern` is on the screen."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + GUARD
        while True:
            text = self.screen()
            found = regex.search(text)
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {pattern!r}; the screen said:\n{text}")
            time.sleep(POLL)

    def wait_until(self, predicate: Callable[[str], bool]) -> str:
        """Wait until `predicate(screen)` holds."""
        deadline = time.monotonic() + GUARD
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never changed as expected:\n{text}")
            time.sleep(POLL)

    def type(self, line: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", line)
        self._tmux("send-keys", "-t", "t", "Enter")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "t", *keys)

    def resize(self, width: int, height: int) -> None:
        self._tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def pid(self) -> int:
        """The pid of the program (the child of the window's shell)."""
        shell = int(self._tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())
        out = subprocess.run(["pgrep", "-P", str(shell)], capture_output=True, text=True).stdout.split()
        return int(out[0])

    def close(self) -> None:
        self._tmux("kill-server")
