"""`python -m polygo.client.server_guard COMMAND...`: run a local server for as long as its client lives.

`polygo play` starts a local server when none answers, and stops it when it quits. A client that is
killed (`kill -9`, a closed terminal) cannot stop anything, so the server is started through this
guard: the client holds the write end of the guard's standard input, the kernel closes it when the
client dies however it dies, and at that end of input the guard stops the server. The game is in
the server's database: the next `polygo play` starts a server again, which resumes it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from typing import NoReturn, Sequence

STOP_WAIT = 10.0
"""Seconds the server has to finish its commits after SIGTERM before it is killed."""


def guard(command: Sequence[str]) -> int:
    """Run `command` until it exits or standard input ends; returns its exit status."""
    child = subprocess.Popen(list(command), stdin=subprocess.DEVNULL)

    def on_term(signum: int, frame: object) -> NoReturn:
        raise SystemExit(_stop(child))

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the client's; it stops us in order
    try:
        while child.poll() is None:
            ready, _, _ = select.select([0], [], [], 0.5)
            if ready and not os.read(0, 4096):
                return _stop(child)
        return child.returncode
    finally:
        _stop(child)


def _stop(child: subprocess.Popen[bytes]) -> int:
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    return child.returncode


if __name__ == "__main__":
    sys.exit(guard(sys.argv[1:]))
