"""Suite-wide settings: in CI the GNU Go tests must run, never be skipped."""

import os
import shutil

import pytest


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get("CI") == "true" and not (shutil.which("gnugo") or os.path.exists("/usr/games/gnugo")):
        raise pytest.UsageError("CI runs the GNU Go tests: install GNU Go first (.ci/run does: apt-get install gnugo)")
