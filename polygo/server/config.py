"""The server's settings: where it listens, where it stores, and the limits that keep it healthy.

Each setting comes from (in order of precedence) the command line, an environment variable
(POLYGO_HOST, POLYGO_PORT, POLYGO_DB, POLYGO_LOG_LEVEL, POLYGO_LOG_FORMAT, POLYGO_EVICT_AFTER,
POLYGO_DRAIN_TIMEOUT, POLYGO_METRICS_HOST, POLYGO_METRICS_PORT, POLYGO_NODE_ID, POLYGO_NODE_URL,
POLYGO_LEASE), or the default below.
Limits are not on the command line: they are part of what the protocol promises clients (sent in
`welcome.limits`), and tests and benchmarks set them through `Config` directly.
"""

from __future__ import annotations

import argparse
import math
import re
import os
import resource
import socket
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from polygo.protocol import MAX_FRAME
from polygo.protocol.messages import CHAT_MAX, LIST_MAX

from . import VERSION
from .finding import pools
from .limits.addresses import Networks, parse_networks
from .ops.flags import checked_number
from .ops.metrics import MAX_AGE
from .store.lease import Lease


@dataclass(frozen=True)
class Config:
    """Everything a `Server` needs to know before it starts."""

    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "polygo.db"
    log_level: str = "INFO"
    max_frame: int = MAX_FRAME            # larger frames get a too-large error
    hard_frame: int = 16 * MAX_FRAME      # larger frames close the connection (1009); a create may be this large
    rate: float = 100.0                   # messages per second per connection, sustained
    burst: int = 200                      # messages allowed in a burst
    rooms_per_session: int = 16           # unfinished rooms a session may sit in or own
    chat_max: int = CHAT_MAX
    outbound_limit: int = 1 << 20         # bytes waiting for a peer before it is disconnected
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    resync_events: int = 256              # events a reconnect's resync gets (else a snapshot)
    resync_bytes: int = 16 * 1024         # bytes of them a room keeps in memory (the store has the rest)
    group_window: float = 0.002           # the store's group commit window
    synchronous: str = "FULL"             # SQLite's sync mode for the store
    evict_after: float = 300.0            # seconds an ended room stays in memory once nobody watches
    deadline_sweep: float = 30.0          # seconds between two searches of the store for overdue corr games
    presence_interval: float = 0.5        # seconds between two broadcasts of a room's presence
    log_format: str = "text"              # "text" or "json" (one object per line)
    drain_timeout: float = 10.0           # seconds a graceful stop may take before the process exits anyway
    metrics_host: str | None = None       # where a separate /metrics port listens (None: like `host`)
    metrics_port: int | None = None       # None: /metrics on the game port; else on this port only
    metrics_max_age: float = MAX_AGE      # seconds a rendered /metrics is served again (metrics.py)
    # protection against a hostile or careless public (docs/server.md, "Limits"); flags and variables below
    max_rooms: int = 10_000               # rooms in memory (waiting, playing, recently ended); create refused beyond
    rooms_per_address: int = 32           # unstarted rooms created from one IP address at a time
    points_per_address: int = 32_768      # board points of the rooms in memory charged to one IP address
    points_per_user: int = 32_768         # board points of the rooms in memory charged to one registered user
    rooms_per_creator: int = 32           # rooms in memory created by one session or registered user
    create_rate: float = 5.0              # creates per second from one IP address, after a burst of 20
    read_rate: float = 262_144.0          # bytes of frames per second from one IP address, after 4 s' worth
    waiting_expiry: float = 3600.0        # seconds an unstarted room lives before it is dropped
    max_connections: int | None = None    # None: the descriptor limit less a reserve (see connection_limit)
    connections_per_address: int = 64     # open connections from one IP address
    login_failures: int = 5               # failed logins per user name from one address per `login_window`
    login_failures_per_address: int = 20  # failed logins from one IP address per `login_window`
    login_window: float = 300.0           # seconds over which failed logins are counted
    guest_rate: float = 2.0               # new guest sessions per second from one IP address, after a burst of 30
    register_rate: float = 0.1            # registrations per second from one IP address, after a burst of 3
    chat_rate: float = 2.0                # chat lines per second per room and per session, sustained (burst 10)
    chat_retention: float = 30 * 86400.0  # seconds a chat line is stored
    session_idle: float = 30 * 86400.0    # seconds a session (its token) lives unused, unless seated in a game
    trusted_proxies: Networks = ()        # reverse proxies whose X-Forwarded-For names the client (addresses.py)
    allowed_origins: tuple[str, ...] = () # pages of other origins whose websockets are accepted ("*": any; http/endpoints.py)
    hello_timeout: float = 10.0           # seconds a new connection has to say hello before it is closed
    migration_backup: bool = True         # back a SQLite file up before migrating its schema (backup.py)
    backup_dir: str | None = None         # where `polygo-server backup DIR` keeps copies: their age is a metric
    admin_socket: str | None = None       # the Unix socket `polygo-server admin` talks to (admin.py); None: off
    # cluster mode (a postgresql:// db; docs/cluster.md)
    node_id: str | None = None            # this node's name in the cluster; None: the host's name
    node_url: str | None = None           # where clients reach this node; None: /n/<node_id>/
    lease: float = 10.0                   # seconds a renewal of the node's lease holds
    # finding games (docs/pools.md)
    pools_file: str | None = None         # the operator's pools (TOML), beside the shipped ones
    challenge_expiry: float = 300.0       # seconds a challenge waits for its answers

    def lease_of_node(self) -> Lease:
        """The node's lease in cluster mode: its id, the path clients are sent to, its length."""
        node_id = self.node_id or socket.gethostname()
        return Lease(node_id, self.node_url or f"/n/{node_id}/", self.lease)

    def limits(self) -> dict[str, float]:
        """The limits a client is told about in `welcome`."""
        return {"frame": self.max_frame, "create_frame": self.hard_frame, "rate": self.rate, "burst": self.burst,
                "rooms": self.rooms_per_session, "chat": self.chat_max, "list": LIST_MAX}

    def connection_limit(self) -> int:
        """Open connections in total: `max_connections`, or the process's descriptor limit less
        `FD_RESERVE` (the database, the listening sockets, logs), so that accept() never meets
        EMFILE and a refusal can still be answered."""
        if self.max_connections is not None:
            return self.max_connections
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return 100_000
        return max(8, soft - FD_RESERVE)


FD_RESERVE = 64
"""Descriptors kept free of connections: the database (writer, reader, WAL, shm), listening sockets,
log files, the threads' pipes."""


NODE_ID = re.compile(r"[A-Za-z0-9_-]{1,63}")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LOG_FORMATS = ("text", "json")


def parse_config(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Config:
    """A Config from command-line arguments over environment variables over the defaults."""
    env = os.environ if env is None else env
    default = Config()
    parser = argparse.ArgumentParser(
        prog="polygo-server", description="The polygo game server.",
        epilog="polygo-server backup PATH copies the database while the server runs "
               "(polygo-server backup --help); polygo-server ratings --rebuild recomputes every rating "
               "from the rated games (polygo-server ratings --help).")
    parser.add_argument("--version", action="version", version=f"polygo-server {VERSION}")
    parser.add_argument("--host", default=env.get("POLYGO_HOST", default.host),
                        help="address to listen on (POLYGO_HOST, default %(default)s)")
    parser.add_argument("--port", type=_port, default=env.get("POLYGO_PORT", str(default.port)),
                        help="port to listen on, 0 for any free port (POLYGO_PORT, default %(default)s)")
    parser.add_argument("--db", default=env.get("POLYGO_DB", default.db),
                        help="SQLite file, created if missing, or a postgresql:// URL for cluster mode "
                             "(docs/cluster.md) (POLYGO_DB, default %(default)s)")
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
    parser.add_argument("--node-id", default=env.get("POLYGO_NODE_ID") or None,
                        help="cluster mode: this node's name, unique in the cluster; HAProxy routes /n/NAME/ "
                             "to it (POLYGO_NODE_ID, default: the host name)")
    parser.add_argument("--node-url", default=env.get("POLYGO_NODE_URL") or None,
                        help="cluster mode: where a client is sent to reach this node (POLYGO_NODE_URL, "
                             "default /n/NODE_ID/)")
    parser.add_argument("--lease", type=_seconds, metavar="SECONDS",
                        default=env.get("POLYGO_LEASE", str(default.lease)),
                        help="cluster mode: seconds a renewal of this node's lease holds; a paused node's rooms "
                             "wait this long, a killed node's none (POLYGO_LEASE, default %(default)s)")
    parser.add_argument("--pools", metavar="FILE", default=env.get("POLYGO_POOLS") or None,
                        help="a TOML file of pools to add to, change or turn off the shipped ones "
                             "(docs/server.md, Pools) (POLYGO_POOLS, default none)")
    parser.add_argument("--trusted-proxies", type=_networks, metavar="ADDRESSES",
                        default=env.get("POLYGO_TRUSTED_PROXIES", ""),
                        help="reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For "
                             "names the client the per-address limits count; their own connections count in "
                             "the total only (POLYGO_TRUSTED_PROXIES, default none)")
    parser.add_argument("--allowed-origins", type=_origins, metavar="ORIGINS",
                        default=env.get("POLYGO_ALLOWED_ORIGINS", ""),
                        help="origins (scheme://host[:port], comma-separated, or *) of web pages other than the "
                             "server's own whose websocket connections are accepted; connections without an Origin "
                             "(bots, the terminal client) always are (POLYGO_ALLOWED_ORIGINS, default none)")
    parser.add_argument("--backup-dir", default=env.get("POLYGO_BACKUP_DIR") or None, metavar="DIR",
                        help="the directory polygo-server backup keeps its copies in: /metrics then tells the "
                             "newest one's time, for an alert when backups fail or stop (POLYGO_BACKUP_DIR)")
    parser.add_argument("--admin-socket", default=env.get("POLYGO_ADMIN_SOCKET") or None, metavar="PATH",
                        help="listen for `polygo-server admin` commands on this Unix socket, which only the "
                             "server's own user may open (POLYGO_ADMIN_SOCKET, default: no admin socket)")
    parser.add_argument("--no-migration-backup", dest="migration_backup", action="store_false",
                        default=env.get("POLYGO_MIGRATION_BACKUP", "1") not in ("0", "no", "false", "off"),
                        help="do not copy a SQLite database (polygo-server backup) before this version migrates "
                             "its schema (POLYGO_MIGRATION_BACKUP=0; by default the copy is made, beside the file)")
    for field, kind, about in PROTECTIONS:
        flag = "--" + field.replace("_", "-")
        variable = "POLYGO_" + field.upper()
        fallback = getattr(default, field)
        parser.add_argument(flag, type=kind, metavar=METAVARS[kind],
                            default=env.get(variable) or (None if fallback is None else str(fallback)),
                            help=f"{about} ({variable}, default %(default)s)")
    args = parser.parse_args(argv)
    if args.log_level not in LOG_LEVELS:
        parser.error(f"log level must be one of {', '.join(LOG_LEVELS)}, not {args.log_level!r}")
    if args.log_format not in LOG_FORMATS:
        parser.error(f"log format must be one of {', '.join(LOG_FORMATS)}, not {args.log_format!r}")
    if args.metrics_host is not None and args.metrics_port is None:
        parser.error("--metrics-host needs --metrics-port (without it /metrics is on the game port)")
    if args.node_id is not None and not NODE_ID.fullmatch(args.node_id):
        parser.error(f"a node id is 1 to 63 letters, digits, '-' or '_' (it is a path in URLs), not {args.node_id!r}")
    if args.pools is not None:
        try:
            pools.load(args.pools)
        except pools.PoolError as exc:
            parser.error(str(exc))
    return Config(host=args.host, port=args.port, db=args.db, log_level=args.log_level, pools_file=args.pools,
                  node_id=args.node_id, node_url=args.node_url, lease=args.lease,
                  evict_after=args.evict_after, log_format=args.log_format, drain_timeout=args.drain_timeout,
                  metrics_host=args.metrics_host, metrics_port=args.metrics_port,
                  trusted_proxies=args.trusted_proxies, allowed_origins=args.allowed_origins,
                  migration_backup=args.migration_backup, backup_dir=args.backup_dir, admin_socket=args.admin_socket,
                  **{field: _parsed(getattr(args, field), kind) for field, kind, _ in PROTECTIONS})


def _parsed(value: str | int | float | None, kind: type) -> int | float | None:
    """An argparse default given as text (from the environment) goes through the flag's type too."""
    return kind(value) if isinstance(value, str) else value


def _rate(text: str) -> float:
    """A rate: a positive, finite number per second."""
    return checked_number(text, float, "a rate", lambda v: math.isfinite(v) and v > 0,
                          "a positive, finite number per second", "a number per second")


def _networks(text: str) -> Networks:
    """Addresses or networks, comma-separated (--trusted-proxies)."""
    try:
        return parse_networks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"trusted proxies are IP addresses or networks: {exc}") from None


def _origins(text: str) -> tuple[str, ...]:
    """Origins, comma-separated (--allowed-origins): "*" or scheme://host[:port] each, as browsers send them."""
    origins = tuple(part.strip().rstrip("/") for part in text.split(",") if part.strip())
    for origin in origins:
        if origin != "*" and not re.fullmatch(r"https?://[^/\s]+", origin):
            raise argparse.ArgumentTypeError(f"an origin is scheme://host[:port] (or *), not {origin!r}")
    return origins


def _count(text: str) -> int:
    """A limit: a whole number of at least 1."""
    return checked_number(text, int, "a limit", lambda v: v >= 1, "at least 1")


def _port(text: str) -> int:
    """A TCP port (argparse applies it to --port and POLYGO_PORT alike)."""
    return checked_number(text, int, "a port", lambda v: 0 <= v <= 65535, "0 to 65535")


def _seconds(text: str) -> float:
    """A delay: a positive, finite number of seconds."""
    return checked_number(text, float, "a delay", lambda v: math.isfinite(v) and v > 0,
                          "a positive, finite number of seconds", "a number of seconds")


PROTECTIONS: tuple[tuple[str, Any, str], ...] = (
    ("max_rooms", _count, "rooms held in memory; create is refused beyond"),
    ("rooms_per_address", _count, "unstarted rooms created from one IP address at a time"),
    ("points_per_address", _count, "board points of the rooms in memory charged to one IP address "
                                   "(created or brought back from there; at least 361 a room)"),
    ("points_per_user", _count, "board points of the rooms in memory charged to one registered user"),
    ("rooms_per_creator", _count, "rooms in memory created by one session or registered user"),
    ("create_rate", _rate, "creates per second from one IP address, after a burst of 20"),
    ("read_rate", _rate, "bytes of frames per second read from one IP address over all its connections "
                         "(each frame counts 64 more), after a burst of 4 seconds' worth"),
    ("waiting_expiry", _seconds, "seconds an unstarted room lives before it is dropped"),
    ("max_connections", _count, "open connections in total (default: the descriptor limit less 64)"),
    ("connections_per_address", _count, "open connections from one IP address"),
    ("login_failures", _count, "failed logins for one user name from one IP address per login window"),
    ("login_failures_per_address", _count, "failed logins from one IP address per login window"),
    ("login_window", _seconds, "seconds over which failed logins are counted"),
    ("guest_rate", _rate, "new guest sessions per second from one IP address, after a burst of 30"),
    ("register_rate", _rate, "registrations per second from one IP address, after a burst of 3"),
    ("hello_timeout", _seconds, "seconds a new connection has to say hello before it is closed"),
    ("chat_rate", _rate, "chat lines per second per room, and per session over all rooms, after a burst of 10"),
    ("chat_retention", _seconds, "seconds a chat line is stored before it is deleted"),
    ("session_idle", _seconds, "seconds a session's token lives unused (a hello with it) before it "
                               "expires, unless it holds a seat in an unfinished game"),
)
"""The protection limits, each a flag and a variable: (Config field, its parser, help)."""

METAVARS = {_count: "N", _rate: "PER_SECOND", _seconds: "SECONDS"}
"""What `--help` calls a protection's value, by its parser: a rate is a number per second, not a delay."""
