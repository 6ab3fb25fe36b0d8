"""Per-key limits as plain arithmetic on given instants: a token bucket (the per-connection message
rate), and the tables that hold one entry per IP address (or session) for the per-address limits.

Addresses are free to an attacker (a botnet, or the 2^64 addresses of one IPv6 subnet), so a table
keyed by them must forget an entry once it holds nothing, or a flood of distinct addresses grows
the server's memory without end: `Tally` forgets a key whose count is back to zero, and `Buckets`
forgets a bucket once it has refilled (a full bucket is what a new one would be) and keeps at most a
given number.
"""

from __future__ import annotations


class TokenBucket:
    """Allows `rate` events per second on average and bursts of up to `burst` events."""

    __slots__ = ("rate", "burst", "_tokens", "_last")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last = now

    def allow(self, now: float, cost: float = 1.0) -> bool:
        """Take `cost` tokens if there are that many; False means the event is over the limit."""
        tokens = self._tokens + (now - self._last) * self.rate     # every frame passes two: no min() call
        if tokens > self.burst:
            tokens = self.burst
        self._last = now
        if tokens >= cost:
            self._tokens = tokens - cost
            return True
        self._tokens = tokens
        return False

    def ready(self, now: float) -> bool:
        """Whether a token is there (none is taken)."""
        return self._tokens + (now - self._last) * self.rate >= 1.0

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled to its burst by `now` (its owner has been idle)."""
        return self._tokens + (now - self._last) * self.rate >= self.burst


class Tally:
    """How many things each key holds (connections, waiting rooms); only keys holding some are kept,
    so the table is never larger than the number of things held, which has limits of its own."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def add(self, key: str) -> int:
        """Count one more for `key`; its count now."""
        count = self._counts[key] = self._counts.get(key, 0) + 1
        return count

    def remove(self, key: str) -> None:
        """Count one less for `key` (which holds one); at zero the key is forgotten."""
        count = self._counts[key] - 1
        if count:
            self._counts[key] = count
        else:
            del self._counts[key]

    def __getitem__(self, key: str) -> int:
        return self._counts.get(key, 0)

    def __contains__(self, key: str) -> bool:
        return key in self._counts

    def __len__(self) -> int:
        return len(self._counts)


class Buckets:
    """A token bucket per key (an address's create rate), in order of last use. At each use the
    least recently used buckets that have refilled are forgotten (any bucket idle for burst/rate
    seconds has, so none of those outlives the next use of the table), and beyond `most` keys the
    least recently used goes anyway (its key starts again from a full burst)."""

    def __init__(self, rate: float, burst: float, most: int) -> None:
        self.rate = rate
        self.burst = burst
        self.most = most
        self._buckets: dict[str, TokenBucket] = {}

    def allow(self, key: str, now: float, cost: float = 1.0) -> bool:
        """Take `cost` of `key`'s tokens if it has them; False means over the limit."""
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst, now)
        self._forget_idle(now)
        self._buckets[key] = bucket
        return bucket.allow(now, cost)

    def ready(self, key: str, now: float) -> bool:
        """Whether `key` has a token (none is taken; a key never seen has its whole burst)."""
        bucket = self._buckets.get(key)
        return bucket is None or bucket.ready(now)

    def _forget_idle(self, now: float) -> None:
        while self._buckets:
            key, oldest = next(iter(self._buckets.items()))
            if len(self._buckets) < self.most and not oldest.full(now):
                return
            del self._buckets[key]

    def __contains__(self, key: str) -> bool:
        return key in self._buckets

    def __len__(self) -> int:
        return len(self._buckets)
