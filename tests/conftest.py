"""Suite-wide settings and fixtures: in CI the GNU Go tests must run, never be skipped; a private
PostgreSQL cluster for the tests that need one (started on first use, stopped at the end)."""

import os
import shutil

import pytest

from .postgres import PostgresCluster


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get("CI") == "true" and not (shutil.which("gnugo") or os.path.exists("/usr/games/gnugo")):
        raise pytest.UsageError("CI runs the GNU Go tests: install GNU Go first (.ci/run does: apt-get install gnugo)")


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL cluster (tests/postgres.py)."""
    cluster = PostgresCluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture
def postgres_url(postgres) -> str:
    """A new, empty database in the session's cluster."""
    return postgres.new_database()
