"""A private PostgreSQL cluster for the tests: Debian's binaries, a temporary directory, a free
loopback port, its unix socket in that directory, stopped and removed at the end of the session.

PostgreSQL refuses to run as root, so when the tests run as root the cluster is made and run as
the ``postgres`` user (Debian's package creates it). ``fsync`` is off: the tests kill polygo
processes, never PostgreSQL, and acknowledged-means-committed is about polygo waiting for COMMIT,
which it does whatever PostgreSQL does with its disk; the benchmarks use a cluster with fsync on.
Without the binaries the tests that need them are skipped, except under CI (CI=true), where a
missing binary fails them: .ci/run installs Debian's postgresql.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from itertools import count
from pathlib import Path

import pytest

BINDIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")


def bindir() -> Path | None:
    """Where initdb, pg_ctl and psql are: Debian's versioned directory, or the PATH."""
    for candidate in BINDIRS:
        if os.access(Path(candidate, "initdb"), os.X_OK):
            return Path(candidate)
    found = shutil.which("initdb")
    return None if found is None else Path(found).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresCluster:
    """One running cluster; ``url(name)`` for a fresh database in it."""

    def __init__(self, binaries: Path, settings: dict[str, str] | None = None) -> None:
        self.binaries = binaries
        self.root = Path(tempfile.mkdtemp(prefix="polygo-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._user = "postgres" if os.geteuid() == 0 else None
        self._names = count()
        self._drops: list[subprocess.Popen] = []
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        options = {"listen_addresses": "127.0.0.1", "unix_socket_directories": str(self.root),
                   "fsync": "off", "max_connections": "300", **(settings or {})}
        self._flags = " ".join(f"-c {key}={value}" for key, value in options.items())
        self.start_server()

    def start_server(self) -> None:
        """Start PostgreSQL (again, after `stop_server`) on the same port and data."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60",
                  "-o", f"-p {self.port} {self._flags}", "start")

    def stop_server(self, mode: str = "fast") -> None:
        """Stop PostgreSQL, keeping its data (a restart's first half): ``fast`` ends every session,
        ``immediate`` is a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    @classmethod
    def start(cls, settings: dict[str, str] | None = None) -> PostgresCluster:
        """A new cluster, or skip (fail under CI) where PostgreSQL is not installed."""
        binaries = bindir()
        if binaries is None:
            message = "PostgreSQL is not installed (apt-get install postgresql; .ci/run does)"
            if os.environ.get("CI") == "true":
                pytest.fail(f"CI runs the PostgreSQL tests: {message}", pytrace=False)
            pytest.skip(message)
        return cls(binaries, settings)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        name = f"polygo_{next(self._names)}"
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url`` (ending its connections), without waiting: a session makes
        a hundred databases of some 7 MB each, and the cluster's directory removed at the end
        with all of them took tens of seconds."""
        self._drops = [drop for drop in self._drops if drop.poll() is None]
        name = url.rsplit("/", 1)[1]
        drop = f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        self._drops.append(subprocess.Popen([str(self.binaries / "psql"), *self._psql_flags("postgres"), "-c", drop],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **self._as_user()))

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run SQL through psql; its output, unaligned and without headers."""
        return self._run("psql", *self._psql_flags(database), "-c", sql)

    def _psql_flags(self, database: str) -> list[str]:
        return ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port),
                "-U", "postgres", "-d", database]

    def _as_user(self) -> dict:
        """Popen's arguments that run a program as the cluster's owner."""
        return {"user": self._user, "group": self._user, "extra_groups": [] if self._user else None, "cwd": self.root}

    def stop(self) -> None:
        for drop in self._drops:
            drop.wait(timeout=60)
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, program: str, *args: str) -> str:
        done = subprocess.run([str(self.binaries / program), *args], capture_output=True, text=True, timeout=120,
                              **self._as_user())
        if done.returncode != 0:
            log = self.root / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")
        return done.stdout
