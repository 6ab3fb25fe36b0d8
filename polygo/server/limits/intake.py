"""What one address may make the server decode: a budget of bytes a second over all its
connections, and the create rate applied to a large create before it is decoded.

Refusing after decoding costs what accepting does: a large `create` over the address's create
rate would be decoded and checked before the rate said no, and many connections from one address
would slow every bystander's move. The per-connection message rate bounds nothing across
connections. So each frame is first charged to its address (its bytes and `FRAME_COST` more),
and a frame over the budget is refused unread; a large frame has its `type` peeked
(`polygo.protocol.peek`, far cheaper than a decoding) and a `create` the address's create rate
would refuse is refused there.
"""

from __future__ import annotations

from polygo.protocol import ErrorCode, ProtocolError
from polygo.protocol.codec import peek

from .ratelimit import Buckets

FRAME_COST = 64
"""Bytes a frame is charged beyond its own: decoding and answering even an empty one costs some."""

BURST_SECONDS = 4.0
"""An address's burst is this many seconds of its read rate."""

PEEK_OVER = 1024
"""Frames larger than this have their type peeked before they are decoded (a small create is cheap
to refuse after decoding)."""


class Intake:
    """Per-address budgets checked before a frame is decoded."""

    def __init__(self, read_rate: float, create_rates: Buckets, tracked: int) -> None:
        self.read_rate = read_rate
        self.reads = Buckets(read_rate, read_rate * BURST_SECONDS, tracked)
        self.create_rates = create_rates

    def refusal(self, address: str, frame: bytes | str, now: float) -> ProtocolError | None:
        """Why the frame from `address` is refused before decoding, or None to decode it."""
        if not self.reads.allow(address, now, len(frame) + FRAME_COST):
            kind, request = peek(frame)      # the reply names the request, as every refusal does
            return _refused(f"over {self.read_rate:,.0f} bytes a second from your address; message dropped",
                            kind, request)
        if len(frame) > PEEK_OVER:
            kind, request = peek(frame)
            if kind == "create" and not self.create_rates.ready(address, now):
                return _refused(f"over {self.create_rates.rate:g} creates a second from your address; "
                                f"try again in a moment", kind, request)
        return None


def _refused(sentence: str, kind: str | None, request: int | None) -> ProtocolError:
    error = ProtocolError(ErrorCode.RATE_LIMITED, sentence)
    error.request_id, error.ref = request, kind[:40] if kind else None
    return error
