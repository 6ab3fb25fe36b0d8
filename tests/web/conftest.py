"""Fixtures of the web client's tests: a real `python -m polygo.server` on a free port, and Debian's
Chromium driven by Playwright (launched by its path: nothing is downloaded). In CI (.ci/run
installs chromium) a missing browser fails the tests; elsewhere they skip with the apt-get line."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "web"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 10_000


def _missing(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def chromium_path() -> str:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or ""):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    _missing("Chromium is not installed (apt-get install chromium; .ci/run does)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="package")
def browser():
    """One Chromium for the tests of this package (each test has contexts of its own). Not per
    session: Playwright's sync API keeps an asyncio loop running in this thread while it lives, and
    pytest-asyncio tests collected after tests/web would fail; none are collected inside it."""
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
        from playwright.sync_api import expect as _expect
        _expect.set_options(timeout=TIMEOUT_MS)
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=ARGS)
        yield chromium
        chromium.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebServer:
    """`python -m polygo.server` on a free loopback port with its own database."""

    def __init__(self, db: Path, python: tuple[str, ...] = ("-m", "polygo.server")) -> None:
        self.db = db
        self.python = python
        """What runs the server: another `python -c` may change it first (tests/new_preset.py)."""
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> "WebServer":
        env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING")
        self.proc = subprocess.Popen([sys.executable, *self.python, "--port", str(self.port), "--db", str(self.db)],
                                     cwd=ROOT, env=env)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.url + "readyz", timeout=2) as resp:
                    if resp.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the server did not become ready")

    def restart(self) -> "WebServer":
        self.stop()
        return self.start()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def web_server(tmp_path):
    server = WebServer(tmp_path / "polygo.db").start()
    yield server
    server.stop()


@pytest.fixture
def open_page(browser, web_server):
    """A factory: a new browser context (its own localStorage, so its own session) on the lobby,
    named `name`. Console errors (other than Chromium's note of a refused websocket) and failed
    page scripts fail the test."""
    contexts = []
    errors: list[str] = []

    def make(name: str, *, viewport=(1280, 860), path: str = "", touch: bool = False):
        """`touch`: a phone's page (touch events, a mobile viewport), which `tap`s."""
        from playwright.sync_api import expect

        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                      has_touch=touch, is_mobile=touch)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{name}: {exc}"))
        page.on("console", lambda msg: msg.type == "error" and not msg.text.startswith("WebSocket connection to")
                and errors.append(f"{name}: {msg.text}"))   # (a refused reconnection is logged by Chromium)
        page.goto(web_server.url + path)
        page.wait_for_selector("#conn[data-state=connected]")
        if name and not path:
            page.fill("#name", name)
            page.click("#name-form button")
            expect(page.locator("#who")).to_have_text(name)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors


@pytest.fixture
def shot():
    """Save a screenshot of the page as docs/web/NAME.png when POLYGO_SCREENSHOTS=1 (so that a test
    run leaves the work tree as it was): `POLYGO_SCREENSHOTS=1 pytest tests/web` renews them."""

    def take(page, name: str) -> None:
        if os.environ.get("POLYGO_SCREENSHOTS") != "1":
            return
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    return take
