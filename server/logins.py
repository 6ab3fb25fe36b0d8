"""Failed logins, counted per user name and per address, so passwords cannot be guessed at the
speed of the server's CPU (55 guesses a second from 40 connections, two cores of scrypt).

Plain arithmetic on given instants, like `ratelimit.TokenBucket`: a name or an address with
`limit` failures in the last `window` seconds is refused before any hashing, until the oldest of
them is older than the window. Each failure is also answered only after `FAILURE_DELAY` seconds,
awaited by that connection alone (the event loop serves everyone else meanwhile).
"""

from __future__ import annotations

from collections import deque

FAILURE_DELAY = 1.0
"""Seconds a failed login waits before its answer."""

TRACKED = 100_000
"""Names and addresses remembered at most; past this, those with no recent failure are forgotten."""


class FailureCounter:
    """Recent failures by key (a user name or an address), at most `limit` per `window` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._failures: dict[str, deque[float]] = {}

    def wait(self, key: str, now: float) -> float:
        """Seconds until `key` may try again (0: now)."""
        recent = self._recent(key, now)
        if recent is None or len(recent) < self.limit:
            return 0.0
        return recent[0] + self.window - now

    def failed(self, key: str, now: float) -> None:
        recent = self._recent(key, now)
        if recent is None:
            if len(self._failures) >= TRACKED:
                self._prune(now)
            recent = self._failures[key] = deque(maxlen=self.limit)
        recent.append(now)

    def succeeded(self, key: str) -> None:
        self._failures.pop(key, None)

    def _recent(self, key: str, now: float) -> deque[float] | None:
        recent = self._failures.get(key)
        if recent is None:
            return None
        while recent and recent[0] <= now - self.window:
            recent.popleft()
        if not recent:
            del self._failures[key]
            return None
        return recent

    def _prune(self, now: float) -> None:
        for key in [k for k, times in self._failures.items() if times[-1] <= now - self.window]:
            del self._failures[key]
