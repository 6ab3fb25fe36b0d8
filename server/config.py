"""The server's settings: where it listens, where it stores, and the limits that keep it healthy.

Each setting comes from (in order of precedence) the command line, an environment variable
(POLYGO_HOST, POLYGO_PORT, POLYGO_DB, POLYGO_LOG_LEVEL, POLYGO_LOG_FORMAT, POLYGO_EVICT_AFTER,
POLYGO_DRAIN_TIMEOUT, POLYGO_METRICS_HOST, POLYGO_METRICS_PORT), or the default below.
Limits are not on the command line: they are part of what the protocol promises clients (sent in
`welcome.limits`), and tests and benchmarks set them through `Config` directly.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass
from typing import Mapping, Sequence

from protocol import MAX_FRAME
from protocol.messages import CHAT_MAX


@dataclass(frozen=True)
class Config:
    """Everything a `Server` needs to know before it starts."""

    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "polygo.db"
    log_level: str = "INFO"
    max_frame: int = MAX_FRAME            # larger frames get a too-large error
    hard_frame: int = 4 * MAX_FRAME       # larger frames close the connection (1009)
    rate: float = 100.0                   # messages per second per connection, sustained
    burst: int = 200                      # messages allowed in a burst
    rooms_per_session: int = 16           # unfinished rooms a session may sit in or own
    chat_max: int = CHAT_MAX
    outbound_limit: int = 1 << 20         # bytes waiting for a peer before it is disconnected
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    resync_events: int = 256              # events kept per room for a reconnect's resync
    group_window: float = 0.002           # the store's group commit window
    synchronous: str = "FULL"             # SQLite's sync mode for the store
    evict_after: float = 300.0            # seconds an ended room stays in memory once nobody watches
    presence_interval: float = 0.5        # seconds between two broadcasts of a room's presence
    log_format: str = "text"              # "text" or "json" (one object per line)
    drain_timeout: float = 10.0           # seconds a graceful stop may take before the process exits anyway
    metrics_host: str | None = None       # where a separate /metrics port listens (None: like `host`)
    metrics_port: int | None = None       # None: /metrics on the game port; else on this port only

    def limits(self) -> dict[str, float]:
        """The limits a client is told about in `welcome`."""
        return {"frame": self.max_frame, "rate": self.rate, "burst": self.burst,
                "rooms": self.rooms_per_session, "chat": self.chat_max}


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LOG_FORMATS = ("text", "json")


def parse_config(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Config:
    """A Config from command-line arguments over environment variables over the defaults."""
    env = os.environ if env is None else env
    default = Config()
    parser = argparse.ArgumentParser(
        prog="polygo-server", description="The polygo game server.",
        epilog="polygo-server backup PATH copies the database while the server runs "
               "(polygo-server backup --help).")
    parser.add_argument("--host", default=env.get("POLYGO_HOST", default.host),
                        help="address to listen on (POLYGO_HOST, default %(default)s)")
    parser.add_argument("--port", type=_port, default=env.get("POLYGO_PORT", str(default.port)),
                        help="port to listen on, 0 for any free port (POLYGO_PORT, default %(default)s)")
    parser.add_argument("--db", default=env.get("POLYGO_DB", default.db),
                        help="SQLite file, created if missing (POLYGO_DB, default %(default)s)")
    parser.add_argument("--log-level", default=env.get("POLYGO_LOG_LEVEL", default.log_level),
                        choices=LOG_LEVELS, type=str.upper,
                        help="logging level (POLYGO_LOG_LEVEL, default %(default)s)")
    parser.add_argument("--evict-after", type=_seconds, metavar="SECONDS",
                        default=env.get("POLYGO_EVICT_AFTER", str(default.evict_after)),
                        help="seconds an ended game's room stays in memory once nobody watches it; "
                             "its record stays in the store (POLYGO_EVICT_AFTER, default %(default)s)")
    parser.add_argument("--log-format", default=env.get("POLYGO_LOG_FORMAT", default.log_format),
                        choices=LOG_FORMATS, type=str.lower,
                        help="text, or json: one object per line (POLYGO_LOG_FORMAT, default %(default)s)")
    parser.add_argument("--drain-timeout", type=_seconds, metavar="SECONDS",
                        default=env.get("POLYGO_DRAIN_TIMEOUT", str(default.drain_timeout)),
                        help="on SIGTERM, the most seconds spent finishing commits and closing connections "
                             "before the process exits anyway (POLYGO_DRAIN_TIMEOUT, default %(default)s)")
    parser.add_argument("--metrics-host", default=env.get("POLYGO_METRICS_HOST") or None,
                        help="address of the separate metrics port (POLYGO_METRICS_HOST, default: --host)")
    parser.add_argument("--metrics-port", type=_port, default=env.get("POLYGO_METRICS_PORT") or None,
                        help="serve /metrics on this port only, not on the game port "
                             "(POLYGO_METRICS_PORT, default: the game port)")
    args = parser.parse_args(argv)
    if args.log_level not in LOG_LEVELS:
        parser.error(f"log level must be one of {', '.join(LOG_LEVELS)}, not {args.log_level!r}")
    if args.log_format not in LOG_FORMATS:
        parser.error(f"log format must be one of {', '.join(LOG_FORMATS)}, not {args.log_format!r}")
    if args.metrics_host is not None and args.metrics_port is None:
        parser.error("--metrics-host needs --metrics-port (without it /metrics is on the game port)")
    return Config(host=args.host, port=args.port, db=args.db, log_level=args.log_level,
                  evict_after=args.evict_after, log_format=args.log_format, drain_timeout=args.drain_timeout,
                  metrics_host=args.metrics_host, metrics_port=args.metrics_port)


def _port(text: str) -> int:
    """A TCP port from the command line or POLYGO_PORT (argparse applies it to both)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a whole number, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {port}")
    return port


def _seconds(text: str) -> float:
    """A delay from the command line or its variable: a positive, finite number of seconds."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a delay is a number of seconds, not {text!r}") from None
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"a delay is a positive, finite number of seconds, not {text!r}")
    return seconds
