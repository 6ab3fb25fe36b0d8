"""`polygo-server` / `python -m server`: the game server from the command line."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import sys
from typing import Sequence

from .app import run
from .config import parse_config


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run(config))
    except OSError as exc:
        logging.getLogger("polygo.server").error("cannot start: %s", exc)
        return 1
    except sqlite3.Error as exc:
        logging.getLogger("polygo.server").error("cannot start: database %s: %s", config.db, exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
