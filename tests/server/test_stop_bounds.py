"""Nothing the stop depends on waits on the event loop: a notify socket nobody reads does not block
the loop (so /healthz answers and SIGTERM ends in time), and a loop too stuck to finish the stop
is ended from outside it within the drain timeout and a grace."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request

import pytest

from polygo.server.app import EXIT_GRACE
from polygo.server.ops.systemd import Notifier

from .conftest import ROOT


def test_a_notify_socket_nobody_reads_does_not_block(tmp_path, caplog):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as unread:
        unread.bind(path)
        notifier = Notifier({"NOTIFY_SOCKET": path})
        sent = threading.Event()

        def flood() -> None:
            for _ in range(5000):            # far more than a datagram socket's queue holds
                notifier.notify("WATCHDOG=1")
            sent.set()

        threading.Thread(target=flood, daemon=True).start()
        finished = sent.wait(timeout=10)
    assert finished, "notify blocked on a full notify socket"
    warnings = [r for r in caplog.records if "sd_notify" in r.getMessage()]
    assert len(warnings) == 1             # then at most one a minute


async def test_under_a_stuck_notify_socket_healthz_answers_and_sigterm_is_in_time(tmp_path, port, spawn_server):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as unread:
        unread.bind(path)
        unread.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
        proc = await spawn_server(tmp_path / "s.db", port, "--drain-timeout", "3",
                                  env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000"})
        time.sleep(1.0)                      # pings every 10 ms fill the socket's queue
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
            assert resp.status == 200
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert time.monotonic() - started < 3 + EXIT_GRACE


@pytest.mark.slow
def test_a_loop_stuck_in_the_stop_is_ended_from_outside(tmp_path):
    script = textwrap.dedent(f"""
        import asyncio, faulthandler, os, signal, time
        from polygo.server import app
        from polygo.server.config import Config

        async def stuck(self):
            time.sleep(60)               # the loop itself stops: nothing on it can end the stop

        app.Server.shutdown = stuck
        faulthandler.enable()
        loop = asyncio.new_event_loop()
        loop.call_later(0.5, os.kill, os.getpid(), signal.SIGTERM)
        loop.run_until_complete(app.run(Config(port=0, db={str(tmp_path / 'x.db')!r}, drain_timeout=1.0)))
    """)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode != 0
    assert time.monotonic() - started < 0.5 + 1.0 + EXIT_GRACE + 10     # far less than the 60 s sleep
    assert "Timeout" in done.stderr and "in stuck" in done.stderr     # faulthandler's dump: where it hung
