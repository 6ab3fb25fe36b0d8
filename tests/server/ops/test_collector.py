"""The collector's tuning is the `polygo-server` process's alone: a program or a test that starts a
`Server` in-process keeps its collector as it was, and the entry point tunes it once it serves."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap

from polygo.server.app import Server
from polygo.server.ops.collector import GC_THRESHOLDS

from tests.server.conftest import ROOT


async def test_a_server_started_in_process_leaves_the_collector_as_it_was(config, tmp_path):
    gc.collect()
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    srv = await Server(config).start()
    try:
        assert gc.get_threshold() == threshold
        assert gc.get_freeze_count() == frozen
    finally:
        await srv.close()
    assert gc.get_threshold() == threshold
    assert gc.get_freeze_count() == frozen


def test_the_entry_point_tunes_the_collector_once_it_serves(tmp_path):
    # A thread waits for the tuning, then stops the server as an operator would (SIGTERM).
    script = textwrap.dedent(f"""
        import gc, os, signal, sys, threading, time
        from polygo.server.__main__ import main

        def stop_once_tuned():
            deadline = time.monotonic() + 30
            while gc.get_threshold() != {GC_THRESHOLDS!r} and time.monotonic() < deadline:
                time.sleep(0.01)
            print(gc.get_threshold(), gc.get_freeze_count() > 0, flush=True)
            os.kill(os.getpid(), signal.SIGTERM)

        print(gc.get_threshold(), gc.get_freeze_count() > 0, flush=True)
        threading.Thread(target=stop_once_tuned, daemon=True).start()
        sys.exit(main(["--port", "0", "--db", {str(tmp_path / "entry.db")!r}]))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING"))
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()
    assert before.endswith("False") and not before.startswith(str(GC_THRESHOLDS))
    assert after == f"{GC_THRESHOLDS} True"
