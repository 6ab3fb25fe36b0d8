"""One seat's clock as a bot needs it: what is left now in each part, and in all.

The server reports each seat's main time, byo-yomi periods, current period (or Canadian block) and
stones owed at the instant of an event; between reports the running seat's clock is counted down
here with the same arithmetic as the server's (`polygo/server/rooms/clock.py`, which the client may not import):
main time first, then the current period, then (byo-yomi) the next periods one after the other.
A bot must budget from `total`, everything the clock still gives before the flag falls: main time
alone would make a bot near the end of its main time pass although its overtime is untouched.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from polygo.client.room import Clocks


@dataclasses.dataclass(frozen=True)
class SeatClock:
    """A seat's time as of one instant. `period`/`stones` describe the room's overtime."""

    kind: str
    """"absolute", "byoyomi", "canadian" or "fischer"."""
    main: float
    """Main time left, seconds."""
    periods: int
    """Byo-yomi periods left, the current one included (0 for other clocks)."""
    period_left: float
    """Seconds left in the current byo-yomi period or Canadian block (a full one while in main time)."""
    stones_left: int
    """Canadian: moves still owed in the current block (0 for other clocks)."""
    period: float = 0.0
    """The length of a byo-yomi period or Canadian block."""
    stones: int = 0
    """Canadian: moves per block."""
    increment: float = 0.0
    """Fischer: seconds added after each move."""

    @property
    def in_overtime(self) -> bool:
        return self.main <= 0 and self.kind in ("byoyomi", "canadian")

    @property
    def total(self) -> float:
        """Seconds before the flag falls if the seat plays no move until then."""
        if self.kind == "byoyomi":
            return self.main + self.period_left + max(0, self.periods - 1) * self.period
        if self.kind == "canadian":
            return self.main + self.period_left
        return self.main

    @property
    def per_move(self) -> float:
        """The most a move may take without spending what later moves need: main time plus the current
        period (byo-yomi), plus the block shared by the stones owed (Canadian), plus the increment."""
        if self.kind == "byoyomi":
            return self.main + self.period_left
        if self.kind == "canadian":
            return self.main + self.period_left / max(1, self.stones_left or self.stones)
        return self.main + self.increment


def seat_clock(clocks: Clocks, control: Any, seat: int, now: float) -> SeatClock | None:
    """`seat`'s clock at local time `now`, from the last report and the room's clock settings (their map
    form); None without a clock or for settings that are not a known clock.

    >>> report = Clocks(0, [{"main": 0.5, "periods": 3, "period_left": 10}], at=0.0)
    >>> clock = seat_clock(report, {"kind": "byoyomi", "main": 4, "periods": 3, "period": 10}, 0, 0.0)
    >>> clock.total, clock.per_move
    (30.5, 10.5)
    >>> seat_clock(report, {"kind": "byoyomi", "main": 4, "periods": 3, "period": 10}, 0, 12.0).total
    18.5
    """
    kind = control.get("kind") if isinstance(control, dict) else None
    if kind not in ("absolute", "byoyomi", "canadian", "fischer") or seat >= len(clocks.seats):
        return None
    reported = clocks.seats[seat]
    try:
        main = float(reported.get("main") or 0.0)
        periods = int(reported.get("periods") or 0)
        period_left = float(reported.get("period_left") or 0.0)
        stones_left = int(reported.get("stones_left") or 0)
        period = float(control.get("period") or 0.0)
        stones = int(control.get("stones") or 0)
        increment = float(control.get("increment") or 0.0)
    except (TypeError, ValueError):
        return None
    spent = max(0.0, now - clocks.at) if clocks.running == seat else 0.0
    over = spent - main
    main = max(0.0, -over)
    if over > 0 and kind == "byoyomi":
        while over >= period_left and periods > 1 and period > 0:
            over -= period_left
            periods -= 1
            period_left = period
        period_left = max(0.0, period_left - over)
    elif over > 0 and kind == "canadian":
        period_left = max(0.0, period_left - over)
    return SeatClock(kind, main, periods, period_left, stones_left, period, stones, increment)
