"""A polygo clock told to a GTP engine: the time system once, the time left before each genmove.

GTP's own `time_settings MAIN PERIOD STONES` knows Canadian overtime only (stones 0: absolute time).
Engines add what it lacks: KGS's `kgs-time_settings` (byo-yomi), KataGo's `kata-time_settings`
(Fischer, capped or not, and byo-yomi). The bridge sends the most faithful command the engine lists;
what no listed command can say is told approximately (see `time_settings_command`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection
from typing import Any

from polygo.client.seat_clock import SeatClock
from polygo.protocol.clock_settings import ClockSettings

log = logging.getLogger("polygo.gtp")


TOLD_KINDS = ("absolute", "byoyomi", "fischer", "canadian")
"""The clock kinds an engine can be told; a correspondence clock's days are not."""


def told_clock(clock: Any) -> ClockSettings | None:
    """The clock of a room's settings (the server sends its map form) if an engine can be told it.

    >>> told_clock({"kind": "canadian", "main": 600, "period": 300, "stones": 25})
    ClockSettings(kind='canadian', main=600, period=300, periods=0, stones=25, increment=0, cap=0)
    >>> told_clock(None) is None and told_clock({"kind": "none"}) is None
    True
    """
    if not isinstance(clock, dict) or clock.get("kind") not in TOLD_KINDS:
        return None
    try:
        return ClockSettings.from_json(clock)
    except (TypeError, ValueError):
        log.debug("a clock the bridge cannot read is not told to the engine: %r", clock)
        return None


def time_settings_command(clock: ClockSettings, commands: Collection[str] = ()) -> tuple[str, ...]:
    """The command that tells an engine listing `commands` the time system: (name, arguments...).

    Byo-yomi: `kgs-time_settings byoyomi` where listed, else `kata-time_settings byoyomi`, else GTP's
    one stone per period (the engine then counts on a single period). Fischer: `kata-time_settings
    fischer` (or `fischer-capped` with a cap) where listed, else absolute time, the increments showing
    in each `time_left`. Settings are rounded up to whole seconds.

    >>> time_settings_command(ClockSettings("canadian", main=600, period=300, stones=25))
    ('time_settings', '600', '300', '25')
    >>> time_settings_command(ClockSettings("byoyomi", main=600, period=30, periods=5), ["kgs-time_settings"])
    ('kgs-time_settings', 'byoyomi', '600', '30', '5')
    >>> time_settings_command(ClockSettings("byoyomi", main=600, period=30, periods=5))
    ('time_settings', '600', '30', '1')
    >>> time_settings_command(ClockSettings("fischer", main=300, increment=10), ["kata-time_settings"])
    ('kata-time_settings', 'fischer', '300', '10')
    >>> time_settings_command(ClockSettings("fischer", main=300, increment=10))
    ('time_settings', '300', '0', '0')
    """
    main, period = _whole(clock.main), _whole(clock.period)
    kata = "kata-time_settings" in commands
    if clock.kind == "byoyomi" and "kgs-time_settings" in commands:
        return ("kgs-time_settings", "byoyomi", main, period, str(clock.periods))
    if clock.kind == "byoyomi" and kata:
        return ("kata-time_settings", "byoyomi", main, period, str(clock.periods))
    if clock.kind == "byoyomi":
        return ("time_settings", main, period, "1")
    if clock.kind == "canadian":
        return ("time_settings", main, period, str(clock.stones))
    if clock.kind == "fischer" and kata and clock.cap:
        return ("kata-time_settings", "fischer-capped", main, _whole(clock.increment), _whole(clock.cap), "-1")
    if clock.kind == "fischer" and kata:
        return ("kata-time_settings", "fischer", main, _whole(clock.increment))
    return ("time_settings", main, "0", "0")  # absolute; fischer without its increment


def time_left_args(clock: ClockSettings, seat: SeatClock, *, periods_as_stones: bool = False,
                   overhead: float = 0.0) -> tuple[int, int]:
    """`time_left`'s (seconds, stones) for a seat's clock `seat`, `overhead` seconds kept back.

    Seconds are main time in main time, else the current period or block, rounded down. Stones are
    0 in main time; in overtime the stones still owed in the Canadian block, and for byo-yomi the
    periods left (the current one included) when it was told with a KGS/KataGo command
    (`periods_as_stones`), as KGS and the engines that follow it read them, else 1.

    >>> canadian = ClockSettings("canadian", main=0, period=300, stones=25)
    >>> time_left_args(canadian, SeatClock("canadian", 0, 0, 280.5, 7, 300, 25))
    (280, 7)
    >>> byoyomi = ClockSettings("byoyomi", main=600, period=30, periods=5)
    >>> time_left_args(byoyomi, SeatClock("byoyomi", 10.5, 5, 30, 0, 30), overhead=0.5)
    (10, 0)
    >>> time_left_args(byoyomi, SeatClock("byoyomi", 0, 3, 26.2, 0, 30), periods_as_stones=True)
    (26, 3)
    """
    if clock.kind in ("absolute", "fischer") or not seat.in_overtime:
        return math.floor(max(0.0, seat.main - overhead)), 0
    seconds = math.floor(max(0.0, seat.period_left - overhead))
    if clock.kind == "canadian":
        return seconds, seat.stones_left
    return seconds, (seat.periods if periods_as_stones else 1)


def _whole(seconds: float) -> str:
    return str(math.ceil(seconds))
