"""`polygo-server` / `python -m polygo.server`: the game server from the command line.

`polygo-server [options]` serves; `polygo-server backup PATH` copies the database (`backup.py`);
`polygo-server admin COMMAND` asks the running server to act for its operator (`admin.py`);
`polygo-server ratings --rebuild` recomputes the ratings from the rated games (`ratings_command.py`).
"""

from __future__ import annotations

import faulthandler
import logging
import os
import sqlite3
import sys
from typing import NoReturn, Sequence

from . import admin
from .app import run_sync
from .config import parse_config
from .finding import ratings_command
from .ops.collector import tune_for_serving
from .ops.logs import setup_logging
from .store import backup
from .store import StoreError
from .store.lockfile import LockError
from .store.postgres import redacted


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["backup"]:
        return backup.main(argv[1:])
    if argv[:1] == ["admin"]:
        return admin.main(argv[1:])
    if argv[:1] == ["ratings"]:
        return ratings_command.main(argv[1:])
    config = parse_config(argv)
    faulthandler.enable()     # a fatal signal (SIGBUS: the -shm truncated under SQLite) leaves its stacks
    setup_logging(config.log_level, config.log_format)
    log = logging.getLogger("polygo.server")
    try:
        finished = run_sync(config, on_ready=tune_for_serving)
    except (OSError, LockError) as exc:
        log.error("cannot start: %s", exc)
        _exit(1)
    except (sqlite3.Error, StoreError) as exc:
        log.error("cannot start: database %s: %s", redacted(config.db), exc)
        _exit(1)
    except Exception:
        log.exception("cannot go on")
        _exit(1)
    if not finished:
        _exit(1)
    return 0


def _exit(status: int) -> NoReturn:
    """Exit now, whatever threads are left: a store's thread blocked on the disk, or the database
    reader's thread after a start that failed halfway, would otherwise keep the process alive (and
    a supervisor would never restart it)."""
    logging.shutdown()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
