"""A room's time control as a value: its text form (``byoyomi:600+5x30``), its strict JSON form
on the wire and in the store, and the bounds every field keeps.

The server (``polygo/server/rooms/clock.py`` runs the clocks) and the clients (the GTP bridge tells an engine
the time system) read the same settings, so they live here, on the wire's side of both.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields

KINDS = ("none", "absolute", "byoyomi", "fischer", "canadian", "corr")

# The fields each kind uses; to_json writes exactly these and from_json accepts no others.
_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "none": (),
    "absolute": ("main",),
    "byoyomi": ("main", "periods", "period"),
    "fischer": ("main", "increment", "cap"),
    "canadian": ("main", "period", "stones"),
    "corr": ("period", "cap"),
}
_INT_FIELDS = ("periods", "stones")

MAX_SECONDS = 10**8     # any one time field (over three years: room for correspondence games)
MAX_COUNT = 1000        # byo-yomi periods, Canadian stones
"""Bounds that keep every clock value a number both codecs carry (msgpack has no integers past
64 bits) and every budget finite: a room must not be created with a clock it cannot send."""

_NUM = r"(\d+(?:\.\d+)?)"
_SYNTAX: dict[str, re.Pattern[str]] = {
    "absolute": re.compile(rf"{_NUM}"),
    "byoyomi": re.compile(rf"{_NUM}\+(\d+)x{_NUM}"),
    "fischer": re.compile(rf"{_NUM}\+{_NUM}(?:max{_NUM})?"),
    "canadian": re.compile(rf"{_NUM}\+{_NUM}/(\d+)"),
    "corr": re.compile(rf"{_NUM}([dhms])(?:/{_NUM}([dhms]))?"),
}
_EXAMPLES = ("none, absolute:600, byoyomi:600+5x30, fischer:300+10 (or fischer:300+10max600), canadian:600+300/25, "
             "corr:3d (or corr:3d/10d: days per move, a bank of at most 10 days; units d, h, m, s)")
UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
"""The units of a correspondence clock's text form, largest first (`__str__` picks the largest
that divides the time)."""


@dataclass(frozen=True)
class ClockSettings:
    """A time control, as a value: parsed from text, stored as strict JSON with the room's settings."""

    kind: str
    main: float = 0
    period: float = 0
    periods: int = 0
    stones: int = 0
    increment: float = 0
    cap: float = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Unknown clock kind {self.kind!r}; expected one of {', '.join(KINDS)}.")
        for f in fields(self):
            if f.name == "kind":
                continue
            value = getattr(self, f.name)
            if f.name not in _KIND_FIELDS[self.kind] and value != 0:
                raise ValueError(f"A {self.kind} clock has no {f.name!r}.")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"Clock field {f.name!r} must be a number, not {value!r}.")
            if f.name in _INT_FIELDS and not isinstance(value, int):
                raise ValueError(f"Clock field {f.name!r} must be a whole number, not {value!r}.")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"Clock field {f.name!r} must be a finite number >= 0, not {value!r}.")
            limit = MAX_COUNT if f.name in _INT_FIELDS else MAX_SECONDS
            if value > limit:
                raise ValueError(f"Clock field {f.name!r} must be at most {limit}, not {value!r}.")
        self._check_kind()

    def _check_kind(self) -> None:
        if self.kind in ("absolute", "fischer") and self.main <= 0:
            raise ValueError(f"A {self.kind} clock needs a main time above 0 seconds.")
        if self.kind == "byoyomi" and (self.periods < 1 or self.period <= 0):
            raise ValueError("A byoyomi clock needs at least one period of more than 0 seconds.")
        if self.kind == "canadian" and (self.stones < 1 or self.period <= 0):
            raise ValueError("A canadian clock needs a period of more than 0 seconds for at least one stone.")
        if self.kind == "fischer" and self.cap and self.cap < self.main:
            raise ValueError("A fischer clock's cap must not be below its main time.")
        if self.kind == "corr" and self.period <= 0:
            raise ValueError("A corr clock needs more than 0 seconds per move.")
        if self.kind == "corr" and self.cap < self.period:
            raise ValueError("A corr clock's bank (cap) must not be below its time per move.")

    @property
    def calendar(self) -> bool:
        """Whether the clock runs on the calendar: its running seat's deadline is a wall-clock
        instant that a restart or an adjournment does not move (correspondence)."""
        return self.kind == "corr"

    @property
    def start_main(self) -> float:
        """What each seat's ``main`` holds before the first move (a corr seat starts with one period)."""
        return self.period if self.kind == "corr" else self.main

    @classmethod
    def parse(cls, text: str) -> ClockSettings:
        """Read the text form, e.g. ``byoyomi:600+5x30`` (times in seconds)."""
        kind, _, rest = text.strip().partition(":")
        if kind == "none" and not rest:
            return cls("none")
        pattern = _SYNTAX.get(kind)
        match = pattern.fullmatch(rest) if pattern else None
        if match is None:
            raise ValueError(f"Cannot read the clock {text!r}; write one of: {_EXAMPLES}.")
        g = match.groups()
        if kind == "absolute":
            return cls(kind, main=_number(g[0]))
        if kind == "byoyomi":
            return cls(kind, main=_number(g[0]), periods=int(g[1]), period=_number(g[2]))
        if kind == "fischer":
            return cls(kind, main=_number(g[0]), increment=_number(g[1]), cap=_number(g[2] or "0"))
        if kind == "corr":
            period = _seconds(g[0], g[1])
            return cls(kind, period=period, cap=period if g[2] is None else _seconds(g[2], g[3]))
        return cls(kind, main=_number(g[0]), period=_number(g[1]), stones=int(g[2]))

    def __str__(self) -> str:
        """The text form, which ``parse`` reads back."""
        n = _text
        if self.kind == "none":
            return "none"
        if self.kind == "absolute":
            return f"absolute:{n(self.main)}"
        if self.kind == "byoyomi":
            return f"byoyomi:{n(self.main)}+{self.periods}x{n(self.period)}"
        if self.kind == "fischer":
            cap = f"max{n(self.cap)}" if self.cap else ""
            return f"fischer:{n(self.main)}+{n(self.increment)}{cap}"
        if self.kind == "corr":
            bank = "" if self.cap == self.period else f"/{_duration(self.cap)}"
            return f"corr:{_duration(self.period)}{bank}"
        return f"canadian:{n(self.main)}+{n(self.period)}/{self.stones}"

    @classmethod
    def from_json(cls, d: dict) -> ClockSettings:
        """Strict: the kind's own fields only; anything else is an error, as in KataGo's rules JSON."""
        if not isinstance(d, dict) or "kind" not in d:
            raise ValueError(f"A clock must be an object with a 'kind', not {d!r}.")
        kind = d["kind"]
        if kind not in KINDS:
            raise ValueError(f"Unknown clock kind {kind!r}; expected one of {', '.join(KINDS)}.")
        unknown = sorted(set(d) - {"kind", *_KIND_FIELDS[kind]})
        if unknown:
            raise ValueError(f"A {kind} clock has no field(s) {', '.join(map(repr, unknown))}.")
        return cls(**d)

    def to_json(self) -> dict:
        return {"kind": self.kind, **{name: getattr(self, name) for name in _KIND_FIELDS[self.kind]}}


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


def _seconds(number: str, unit: str) -> float | int:
    value = float(number) * UNITS[unit]
    return int(value) if value.is_integer() else value


def _duration(seconds: float) -> str:
    """Seconds in the largest unit of `UNITS` that divides them (``259200`` -> ``3d``)."""
    for unit, size in UNITS.items():
        if float(seconds / size).is_integer():
            return f"{_text(seconds / size)}{unit}"
    return f"{_text(seconds)}s"


def _text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
