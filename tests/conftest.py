"""Suite-wide settings and fixtures: in CI the GNU Go tests must run, never be skipped; a private
PostgreSQL cluster for the tests that need one (started on first use, stopped at the end); the
slow tier (`pytest -m "not slow"` runs the rest, CONTRIBUTING.md).

A test is slow by where it lives or what it uses, so that a new test inherits its tier: the
browsers, the cluster and the checks of deploy/ by directory; PostgreSQL, server and engine
subprocesses (GNU Go, the fake GTP engine), tmux and browsers by fixture or marker; a parameter
named postgres.
"""

import os
import shutil
from pathlib import Path

import pytest

from .postgres import PostgresCluster

SLOW_DIRECTORIES = (("web",), ("server", "cluster"), ("deploy",))
SLOW_FIXTURES = {"postgres", "postgres_url", "spawn_server", "browser", "open_page", "web_server", "cluster",
                 "gnugo", "tmux", "fake_engine"}
#: fixtures slow only where a directory's conftest defines them so: the client tests' `server`
#: is a server subprocess (the server tests' is in-process)
SLOW_FIXTURES_UNDER = {("server", "tests/client")}
SLOW_MARKERS = ("gnugo", "deploy")
TESTS = Path(__file__).resolve().parent


def _is_slow(item: pytest.Item) -> bool:
    parts = Path(item.path).resolve().relative_to(TESTS).parts
    if any(parts[:len(directory)] == directory for directory in SLOW_DIRECTORIES):
        return True
    if any(item.get_closest_marker(name) for name in SLOW_MARKERS):
        return True
    names = set(getattr(item, "fixturenames", ()))
    if names & SLOW_FIXTURES:
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None and any(value == "postgres" for value in callspec.params.values()):
        return True
    defs = getattr(item, "_fixtureinfo", None)
    for name, under in SLOW_FIXTURES_UNDER:
        if name in names and defs is not None:
            if any(d.baseid.startswith(under) for d in defs.name2fixturedefs.get(name, ())):
                return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)


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
def postgres_url(postgres):
    """A new, empty database in the session's cluster, dropped after the test."""
    url = postgres.new_database()
    yield url
    postgres.drop_database(url)
