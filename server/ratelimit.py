"""A token bucket: the per-connection message rate limit, as plain arithmetic on given instants."""

from __future__ import annotations


class TokenBucket:
    """Allows `rate` events per second on average and bursts of up to `burst` events."""

    __slots__ = ("rate", "burst", "_tokens", "_last")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last = now

    def allow(self, now: float) -> bool:
        """Take one token if there is one; False means the event is over the limit."""
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled to its burst by `now` (its owner has been idle)."""
        return self._tokens + (now - self._last) * self.rate >= self.burst
