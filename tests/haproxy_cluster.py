"""Three `python -m polygo.server` nodes on one PostgreSQL database behind a real HAProxy running
deploy/haproxy/haproxy.cfg, all on loopback ports: shared by tests/server/cluster and tests/web.

Without HAProxy the tests using it are skipped, except under CI (CI=true), where .ci/run installs it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAPROXY_CFG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
NODES = ("a", "b", "c")
LEASE = 3.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(url: str) -> bool:
    """Whether a GET of ``url`` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except (OSError, urllib.error.URLError):
        return False


@dataclass
class Cluster:
    """The running nodes and the balancer; ``url`` is the public address, ``/`` of HAProxy."""

    db: str
    port: int
    ports: dict[str, int]
    nodes: dict[str, subprocess.Popen] = field(default_factory=dict)
    haproxy: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, node: str) -> subprocess.Popen:
        env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING")
        self.nodes[node] = subprocess.Popen(
            [sys.executable, "-m", "polygo.server", "--port", str(self.ports[node]), "--db", self.db,
             "--node-id", node, "--lease", str(LEASE)], cwd=ROOT, env=env)
        return self.nodes[node]

    async def ready(self, node: str) -> None:
        """Until HAProxy reaches the node's /readyz through /n/<node>/ (it has marked it up)."""
        for _ in range(400):
            if self.nodes[node].poll() is not None:
                raise AssertionError(f"node {node} exited with {self.nodes[node].returncode}")
            if await asyncio.to_thread(answers, f"http://127.0.0.1:{self.port}/n/{node}/readyz"):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"node {node} never became ready behind HAProxy")

    def ready_now(self, node: str) -> None:
        """`ready`, blocking (for the browser tests, whose thread runs Playwright's loop)."""
        self.answering(node, f"http://127.0.0.1:{self.port}/n/{node}/readyz", "became ready behind HAProxy")

    def answering(self, node: str, url: str, what: str) -> None:
        """Until ``url`` answers 200, blocking; fails if the node exits or ``what`` never happens."""
        for _ in range(400):
            if self.nodes[node].poll() is not None:
                raise AssertionError(f"node {node} exited with {self.nodes[node].returncode}")
            if answers(url):
                return
            time.sleep(0.05)
        raise AssertionError(f"node {node} never {what}")

    def kill(self, node: str, sig: int = signal.SIGKILL) -> None:
        self.nodes[node].send_signal(sig)
        if sig in (signal.SIGKILL, signal.SIGTERM):
            self.nodes[node].wait(timeout=30)

    def stop(self) -> None:
        for proc in [*self.nodes.values(), self.haproxy]:
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait()


def haproxy_binary() -> str:
    """The path of HAProxy; the test is skipped where it is not installed, failed under CI."""
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
    if haproxy is None:
        message = "HAProxy is not installed (apt-get install haproxy; .ci/run does)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs the cluster tests: {message}", pytrace=False)
        pytest.skip(message)
    return haproxy


def start_cluster(db: str) -> Cluster:
    """The three nodes answering, then HAProxy started (not yet ready: see `Cluster.ready`).
    HAProxy starts once every node answers its own /readyz, so that its first checks find them
    up: started beside booting nodes it marks them down and takes two more checks, a second
    each, to raise them."""
    running = Cluster(db, free_port(), {node: free_port() for node in NODES})
    haproxy = haproxy_binary()
    try:
        for node in NODES:
            running.start(node)
        for node in NODES:
            running.answering(node, f"http://127.0.0.1:{running.ports[node]}/readyz", "answered its /readyz")
        env = dict(os.environ, POLYGO_LISTEN=f"127.0.0.1:{running.port}",
                   **{f"POLYGO_NODE_{node.upper()}": f"127.0.0.1:{port}" for node, port in running.ports.items()})
        running.haproxy = subprocess.Popen([haproxy, "-db", "-f", str(HAPROXY_CFG)], env=env,
                                           stdout=subprocess.DEVNULL)
    except BaseException:
        running.stop()
        raise
    return running
