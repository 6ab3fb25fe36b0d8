"""`polygo-server` / `python -m server`: the game server from the command line.

`polygo-server [options]` serves; `polygo-server backup PATH` copies the database (`backup.py`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from typing import Sequence

from . import backup
from .app import run_sync
from .config import parse_config
from .logs import setup_logging


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["backup"]:
        return backup.main(argv[1:])
    config = parse_config(argv)
    setup_logging(config.log_level, config.log_format)
    log = logging.getLogger("polygo.server")
    try:
        finished = run_sync(config)
    except OSError as exc:
        log.error("cannot start: %s", exc)
        return 1
    except sqlite3.Error as exc:
        log.error("cannot start: database %s: %s", config.db, exc)
        return 1
    if not finished:
        logging.shutdown()
        os._exit(1)   # threads still blocked (a commit stuck on the disk) must not hold the exit up
    return 0


if __name__ == "__main__":
    sys.exit(main())
