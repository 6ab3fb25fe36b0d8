"""Log lines for people (text) or for a log pipeline (JSON, one object per line).

journald, Loki, Elasticsearch and `jq` read one JSON object per line without a parser of our
format; the text form stays the default for a terminal. Tokens are never logged by the server,
so neither form can leak one.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message"}` plus `"exception"` (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False, default=str)


def setup_logging(level: str, fmt: str) -> None:
    """Send the root logger's records to stderr in `fmt` ("text" or "json") at `level`.

    websockets logs every connection and every probe at INFO (a health check every few seconds
    would bury everything else): its loggers speak from WARNING up unless `level` is DEBUG."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    quiet = level if level == "DEBUG" else "WARNING"
    logging.getLogger("websockets").setLevel(quiet)
