"""Shared fixtures of the client tests: where GNU Go and the fake GTP engine are."""

import shutil
import sys
from pathlib import Path

import pytest

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
