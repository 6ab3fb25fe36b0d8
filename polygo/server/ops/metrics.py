"""What an operator graphs and alerts on, in Prometheus' text format, through prometheus_client.

prometheus_client is optional (`pip install 'polygo[metrics]'`): without it the server runs the
same, every hook below is a no-op, and `/metrics` answers 501 with the install command. Each
`Server` has its own registry, so several servers in one process (the tests) never share
counters. No metric has a per-room, per-user or per-connection label: label values are closed
sets the server defines (error codes, room statuses, rulesets, refusal reasons), so a client
cannot grow the series count, and nothing a client sends (least of all a token) ever becomes a
label. Every value of a labelled counter is there from the start at 0, so that `rate()` and
`increase()` see its first event; the `*_created` series prometheus_client adds beside each
counter are left out (twice the series, and nothing an alert reads).

A rendering costs the event loop many moves' worth of time (prometheus_client reads /proc for
the process collector, and formats every series): it is kept and served again for `max_age`
seconds (1 by default), so any number of scrapers cost the loop at most one rendering a second,
and a scrape is at most that old.
"""

from __future__ import annotations

import logging
import time
from bisect import bisect_left
from typing import Any, Callable, Iterable

from .. import VERSION

log = logging.getLogger("polygo.metrics")

MAX_AGE = 1.0
"""Seconds a rendered /metrics is served again before the next scrape renders it anew."""
LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
BATCH_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
ROOM_STATUSES = ("waiting", "playing", "ended")
HANDSHAKE_REFUSALS = ("limit", "flood", "starting", "draining", "banned", "origin")
"""Why a websocket handshake was refused: over a connection limit (answered 503), one of a flood
of those (dropped without a word), the server still rebuilding its games, or stopping (503), from
an address the operator banned (403), or from a web page of an origin not allowed (403)."""
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MISSING = "prometheus_client is not installed: pip install 'polygo[metrics]' to get /metrics\n"


class NullMetrics:
    """The hooks, doing nothing: what the server uses when prometheus_client is not installed."""

    enabled = False

    def acked(self, seconds: float) -> None:
        """A move was acknowledged `seconds` after its request was decoded."""

    def committed(self, writes: int, seconds: float) -> None:
        """The store committed a batch of `writes` writes in `seconds`."""

    def commit_failed(self) -> None:
        """A batch's COMMIT failed (every caller in it got an error)."""

    def refused(self, code: str) -> None:
        """A client got an `error` reply with this code."""

    def loop_lag(self, seconds: float) -> None:
        """The event loop woke `seconds` late."""

    def game_started(self, rules: str) -> None:
        """A game under the preset `rules` started (every seat taken)."""

    def game_finished(self, rules: str) -> None:
        """A game under the preset `rules` ended with a result."""

    def handshake_refused(self, reason: str) -> None:
        """A websocket handshake was refused, for one of `HANDSHAKE_REFUSALS`."""

    def render(self) -> bytes:
        return MISSING.encode()


class PrometheusMetrics(NullMetrics):
    """The hooks feeding prometheus_client collectors in a registry of this server's own."""

    enabled = True

    def __init__(self, gauges: Callable[[], dict[str, Any]], max_age: float = MAX_AGE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        import prometheus_client as pc
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        from polygo.rules import PRESETS
        from polygo.protocol import ErrorCode

        pc.disable_created_metrics()
        self._generate = pc.generate_latest
        self._max_age = max_age
        self._clock = clock
        self._rendered: tuple[float, bytes] | None = None   # (when, what)
        self.registry = registry = pc.CollectorRegistry(auto_describe=True)
        pc.ProcessCollector(registry=registry)
        pc.PlatformCollector(registry=registry)
        pc.GCCollector(registry=registry)
        self._acks = _Acks(CounterMetricFamily, HistogramMetricFamily)
        registry.register(self._acks)
        self.acked = self._acks.observe     # the hook every move calls: the count itself, no call between
        self._commit = pc.Histogram("polygo_commit_latency_seconds", "Duration of one group commit.",
                                    buckets=LATENCY_BUCKETS, registry=registry)
        self._batch = pc.Histogram("polygo_commit_batch_size", "Writes in one group commit.",
                                   buckets=BATCH_BUCKETS, registry=registry)
        self._commits = pc.Counter("polygo_commits", "Group commits done.", registry=registry)
        self._last_commit = pc.Gauge("polygo_last_commit_timestamp_seconds",
                                     "Unix time of the last successful commit.", registry=registry)
        self._failures = pc.Counter("polygo_commit_failures", "Group commits that failed.", registry=registry)
        self._errors = pc.Counter("polygo_errors", "Error replies sent to clients, by error code "
                                  "(rate-limit refusals are code=\"rate-limited\").", ["code"], registry=registry)
        for code in ErrorCode:
            self._errors.labels(code.value)
        self._handshakes = pc.Counter("polygo_handshakes_refused", "Websocket handshakes refused, by reason: "
                                      "over a connection limit (503), dropped in a flood, starting, draining.",
                                      ["reason"], registry=registry)
        for reason in HANDSHAKE_REFUSALS:
            self._handshakes.labels(reason)
        self._started = pc.Counter("polygo_games_started", "Games started (every seat taken), by ruleset.",
                                   ["rules"], registry=registry)
        self._finished = pc.Counter("polygo_games_finished", "Games ended with a result, by ruleset.",
                                    ["rules"], registry=registry)
        for rules in PRESETS:
            self._started.labels(rules)
            self._finished.labels(rules)
        pc.Info("polygo_build", "The running server's version.", registry=registry).info({"version": VERSION})
        self._lag = pc.Histogram("polygo_event_loop_lag_seconds", "How late the event loop woke a sleeper.",
                                 buckets=LAG_BUCKETS, registry=registry)
        self._lag_now = pc.Gauge("polygo_event_loop_lag_last_seconds", "The last event-loop lag measured.",
                                 registry=registry)
        registry.register(_Snapshot(gauges, GaugeMetricFamily))

    def committed(self, writes: int, seconds: float) -> None:
        self._commits.inc()
        self._commit.observe(seconds)
        self._batch.observe(writes)
        self._last_commit.set_to_current_time()

    def commit_failed(self) -> None:
        self._failures.inc()

    def refused(self, code: str) -> None:
        self._errors.labels(code).inc()

    def loop_lag(self, seconds: float) -> None:
        self._lag.observe(seconds)
        self._lag_now.set(seconds)

    def game_started(self, rules: str) -> None:
        self._started.labels(rules).inc()

    def game_finished(self, rules: str) -> None:
        self._finished.labels(rules).inc()

    def handshake_refused(self, reason: str) -> None:
        self._handshakes.labels(reason).inc()

    def render(self) -> bytes:
        """The registry in Prometheus' text format, rendered at most `max_age` seconds ago."""
        now = self._clock()
        if self._rendered is None or now - self._rendered[0] >= self._max_age:
            self._rendered = (now, self._generate(self.registry))
        return self._rendered[1]


class _Snapshot:
    """Gauges read from the server's state at scrape time (nothing to keep in step on the hot path)."""

    def __init__(self, gauges: Callable[[], dict[str, Any]], family: type) -> None:
        self._gauges = gauges
        self._family = family

    def describe(self) -> Iterable[Any]:
        return []

    def collect(self) -> Iterable[Any]:
        state = self._gauges()
        yield self._family("polygo_connections", "Open websocket connections.", value=state["connections"])
        yield self._family("polygo_sessions", "Connections that said hello (hold a session).",
                           value=state["sessions"])
        rooms = self._family("polygo_rooms", "Rooms in memory, by status.", labels=["status"])
        for status in ROOM_STATUSES:
            rooms.add_metric([status], state["rooms"].get(status, 0))
        yield rooms
        yield self._family("polygo_store_pending_writes", "Writes waiting for the next group commit.",
                           value=state["pending_writes"])
        yield self._family("polygo_ready", "1 when the server takes new connections (what /readyz says).",
                           value=1 if state["ready"] else 0)
        yield self._family("polygo_database_up", "0 while the database cannot be reached (rooms answer "
                           "`unavailable`, /readyz 503), else 1.", value=1 if state.get("database_up", True) else 0)
        if state.get("last_backup") is not None:
            yield self._family("polygo_last_backup_timestamp_seconds",
                               "Unix time of the newest checked copy in --backup-dir (0: none).",
                               value=state["last_backup"])


class _Acks:
    """The acknowledged moves' counter and latency histogram, counted in plain Python and read at
    scrape time. Every move passes here, and prometheus_client's Counter.inc and Histogram.observe
    (their checks, a lock per value) cost several times this plain count.
    Only the event loop's thread counts and scrapes, so no lock is needed."""

    def __init__(self, counter: type, histogram: type) -> None:
        self._counter = counter
        self._histogram = histogram
        self._buckets = [0] * (len(LATENCY_BUCKETS) + 1)   # the last one: over every bound
        self._sum = 0.0

    def observe(self, seconds: float) -> None:
        self._buckets[bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self._sum += seconds

    def describe(self) -> Iterable[Any]:
        return []

    def collect(self) -> Iterable[Any]:
        count, cumulative = 0, []
        for bound, n in zip((*map(str, LATENCY_BUCKETS), "+Inf"), self._buckets):
            count += n
            cumulative.append((bound, count))
        yield self._counter("polygo_moves_acknowledged", "Moves committed and acknowledged.", value=count)
        latency = self._histogram("polygo_ack_latency_seconds",
                                  "From a decoded move request to its acknowledgement (room queue, rules, commit).",
                                  buckets=cumulative, sum_value=self._sum)
        yield latency


def make_metrics(gauges: Callable[[], dict[str, Any]], max_age: float = MAX_AGE) -> NullMetrics:
    """Prometheus metrics if prometheus_client is installed, else the no-op hooks (and one log line)."""
    try:
        import prometheus_client  # noqa: F401 -- only to learn whether it is there
    except ImportError:
        log.warning("metrics are off: %s", MISSING.strip())
        return NullMetrics()
    return PrometheusMetrics(gauges, max_age)
