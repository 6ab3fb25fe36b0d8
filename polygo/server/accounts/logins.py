"""Failed logins, counted per address and per user name from one address, so passwords cannot be
guessed at the speed of the server's CPU (as many guesses as its cores can hash scrypt).

Plain arithmetic on given instants, like `ratelimit.TokenBucket`: a key with `limit` failures in
the last `window` seconds is refused before any hashing, until the oldest of them is older than
the window. A login counts as failed from before its hashing until the password proves right
(`failed`, then `succeeded` or `forgive`): else guesses sent together on many connections would
all be hashed, each checking the count before any had failed. Each failure is also answered only
after `FAILURE_DELAY` seconds, awaited by that connection alone (the event loop serves everyone
else meanwhile).

The name is counted per address, not alone: counted alone, five wrong guesses at a name from
anywhere would lock its owner out of password login, renewably. So the guesser's address is
slowed, and the owner, from another address, logs in as before.
"""

from __future__ import annotations

from collections import deque

FAILURE_DELAY = 1.0
"""Seconds a failed login waits before its answer."""

TRACKED = 100_000
"""Names and addresses remembered at most; past this, the one whose last failure is oldest is
forgotten (it may try again as if new). Sooner than that, at each failure, those whose window has
passed are forgotten: names and addresses are free to an attacker."""


class FailureCounter:
    """Recent failures by key (a user name or an address), at most `limit` per `window` seconds;
    keys in order of their last failure, so the ones whose window passed are found at the front."""

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
            recent = deque(maxlen=self.limit)
        else:
            del self._failures[key]         # put back last: the order is of last failures
        self._forget_passed(now)
        self._failures[key] = recent
        recent.append(now)

    def succeeded(self, key: str) -> None:
        """The key's login was right: its failures are forgotten."""
        self._failures.pop(key, None)

    def forgive(self, key: str, at: float) -> None:
        """Take back the one failure counted at `at` (a login reserved as failed that proved right),
        leaving the key's other failures."""
        recent = self._failures.get(key)
        if recent is None:
            return
        try:
            recent.remove(at)
        except ValueError:
            return
        if not recent:
            del self._failures[key]

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

    def _forget_passed(self, now: float) -> None:
        """Forget the keys whose last failure left the window (they hold nothing), and the oldest
        beyond `TRACKED`."""
        while self._failures:
            key, times = next(iter(self._failures.items()))
            if len(self._failures) < TRACKED and times[-1] > now - self.window:
                return
            del self._failures[key]

    def __contains__(self, key: str) -> bool:
        return key in self._failures

    def __len__(self) -> int:
        return len(self._failures)
