"""Log lines for people (text) or for a log pipeline (JSON, one object per line), and the server's
events as lines with fields.

journald, Loki, Elasticsearch and `jq` read one JSON object per line without a parser of our
format; the text form stays the default for a terminal. An event (`event("login", user=...)`)
is a line whose fields are keys of that object (`{"event": "login", "user": ...}`), not words of
a message, so an operator filters on `address` or `room` without a regular expression; the text
form shows them as `key=value`. Tokens and passwords are never logged, so neither form can leak
one; addresses are the client's, resolved through the trusted proxies (`polygo/server/limits/addresses.py`),
and an IPv6 client's is its own, not the /64 its limits are counted under.

Each kind of event has a budget (`BUDGETS`): past it, lines of that kind are counted, not
written, and the next line of the kind that is written says how many were held back
(`suppressed`). A flood of refused handshakes or of rate-limited messages therefore costs the
disk a few lines a second, not one per packet.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from typing import Any

from ..limits.ratelimit import TokenBucket

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

EVENTS_LOGGER = "polygo.events"

BUDGETS: dict[str, tuple[float, float]] = {
    "rate-limited": (2.0, 20.0),
    "handshake-refused": (2.0, 20.0),
    "login-refused": (5.0, 50.0),
    "error": (5.0, 50.0),
}
"""Lines a second and burst for the kinds a client (or a flood of them) can set off at will; the
kinds of ordinary life share `DEFAULT_BUDGET`. `error` is budgeted per error code."""

DEFAULT_BUDGET = (50.0, 500.0)


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message"}`, an event's `event` and fields, and `"exception"`
    (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if fields is not None:
            entry["event"] = record.msg
            for key, value in fields.items():
                entry.setdefault(key, value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """`TEXT_FORMAT`, an event's fields after its name as `key=value`."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:
            line += " " + " ".join(f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
                                   for key, value in fields.items())
        return line


class EventLog:
    """Writes events through the `polygo.events` logger, each kind within its budget."""

    def __init__(self) -> None:
        self._log = logging.getLogger(EVENTS_LOGGER)
        self._buckets: dict[str, TokenBucket] = {}
        self.suppressed: Counter[str] = Counter()
        """Lines held back by kind (and code, for `error`) since the last line of it written."""

    def __call__(self, kind: str, level: int = logging.INFO, /, **fields: Any) -> None:
        """Log the event `kind` with `fields` (JSON's values), unless over the kind's budget."""
        if not self._log.isEnabledFor(level):
            return
        key = kind if kind != "error" else f"error:{fields.get('code')}"
        bucket = self._buckets.get(key)
        now = time.monotonic()
        if bucket is None:
            rate, burst = BUDGETS.get(kind, DEFAULT_BUDGET)
            bucket = self._buckets[key] = TokenBucket(rate, burst, now)
        if not bucket.allow(now):
            self.suppressed[key] += 1
            return
        held = self.suppressed.pop(key, 0)
        if held:
            fields["suppressed"] = held
        self._log.log(level, kind, extra={"fields": fields})


def board_label(board: str | dict[str, Any] | None) -> str | None:
    """A board as a log line names it: its spec, or `graph:N` for a graph given inline (as listings
    name it), never the graph itself."""
    if isinstance(board, dict):
        return f"graph:{len(board.get('points') or ())}"
    return board


event = EventLog()
"""The server's event log: `event("room-created", room=..., rules=...)`."""


def setup_logging(level: str, fmt: str) -> None:
    """Send the root logger's records to stderr in `fmt` ("text" or "json") at `level`.

    websockets logs every connection and every probe at INFO (a health check every few seconds
    would bury everything else): its loggers speak from WARNING up unless `level` is DEBUG; the
    server's own events say what an operator needs of connections."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    quiet = level if level == "DEBUG" else "WARNING"
    logging.getLogger("websockets").setLevel(quiet)
