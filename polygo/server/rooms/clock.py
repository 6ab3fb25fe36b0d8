"""Game clocks: the arithmetic only, with the time passed in by the caller.

The server's clock is the truth, but deciding how much time a player has left is plain arithmetic that
tests should drive with made-up instants, so nothing here reads the system clock or sleeps: every call
that depends on time takes ``now`` (seconds, any monotonic origin the caller likes).

Semantics follow KGS and OGS:

- ``absolute``: one budget of ``main`` seconds for the whole game.
- ``byoyomi``: after ``main``, ``periods`` periods of ``period`` seconds. A move made inside a period
  resets it to full; a period that runs out is lost and the next one begins; when the last one runs out
  the flag falls.
- ``canadian``: after ``main``, ``stones`` moves must be made within ``period`` seconds; when they are,
  a fresh block of ``period`` seconds for ``stones`` moves begins. The move during which main time runs
  out counts as the first move of the first block.
- ``fischer``: ``increment`` seconds are added after each move, capped at ``cap`` when ``cap`` > 0,
  else at ``MAX_SECONDS`` (10^8 s, or a long game of quick moves grows the clock past every bound).
- ``corr``: correspondence, ``period`` seconds per move (written in days, hours, minutes or
  seconds: ``corr:3d``). A player starts with one period; a move adds a period to what was left,
  up to ``cap`` (the bank: ``corr:3d/10d``; without one the cap is the period, so every move
  starts a fresh ``3d``, as on lichess). It is a calendar clock (``ClockSettings.calendar``): the
  room keeps its deadline as a wall-clock instant, so time passes for it while the server is down
  or the game is adjourned, and nobody is given back the days they were away.
- ``none``: no clock; nobody's flag ever falls.

A flag falls at the deadline itself: a move stopped at ``now >= deadline`` is too late.

Each seat's state is four numbers: ``main`` (main time left), ``periods`` (byo-yomi periods left,
counting the current one), ``period_left`` (time left in the current byo-yomi period or Canadian block)
and ``stones_left`` (moves still owed in the current Canadian block). Persisting a running clock
(``to_json(now)``) charges the time used up to ``now``; restoring it (``from_json(..., now=)``) restarts
it at the new ``now``, so the time between the two -- a server restart -- is charged to nobody.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from polygo.protocol.clock_settings import MAX_SECONDS, ClockSettings


@dataclass
class _Seat:
    main: float = 0
    periods: int = 0
    period_left: float = 0
    stones_left: int = 0
    flagged: bool = False
    since: float | None = field(default=None, compare=False)  # when it started running


_STATE_KEYS = ("main", "periods", "period_left", "stones_left", "flagged")


class Clocks:
    """The clocks of every seat in one room; at most one runs at a time (the player to move)."""

    def __init__(self, settings: ClockSettings, seats: int) -> None:
        if seats < 1:
            raise ValueError(f"A room needs at least one seat, not {seats}.")
        self.settings = settings
        s = settings
        self._seats = [
            _Seat(main=s.start_main, periods=s.periods, period_left=0 if s.kind == "corr" else s.period,
                  stones_left=s.stones)
            for _ in range(seats)
        ]

    @property
    def running(self) -> int | None:
        """The seat whose clock runs, or None."""
        return next((i for i, st in enumerate(self._seats) if st.since is not None), None)

    def start(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock; a clock that already runs is a bug in the caller, not a restart."""
        st = self._seat(seat)
        if st.since is not None:
            raise ValueError(f"Seat {seat}'s clock is already running.")
        st.since = now

    def stop(self, seat: int, now: float, *, credit: bool = True) -> bool:
        """``seat`` moved at ``now``: charge the time, credit the move; False if its flag had fallen.

        ``credit=False`` charges the time without crediting a move (no Fischer increment, no fresh
        byo-yomi period): for a clock stopped by an undo, where nobody moved.
        """
        st = self._seat(seat)
        if st.since is None:
            raise ValueError(f"Seat {seat}'s clock is not running.")
        elapsed = max(0.0, now - st.since)
        st.since = None
        if st.flagged or not self._charge(st, elapsed):
            self._fall(st)
            return False
        if credit:
            self._credit(st)
        return True

    def remaining(self, seat: int, now: float) -> dict:
        """Time left as of ``now`` (main and period_left are None for a "none" clock: unlimited);
        times as floats, as the wire sends them, also for a clock not yet started."""
        st = self._seat(seat)
        if self.settings.kind == "none":
            return {"main": None, "periods": 0, "period_left": None, "stones_left": 0}
        view = self._at(st, now)
        return {"main": float(view.main), "periods": view.periods, "period_left": float(view.period_left),
                "stones_left": view.stones_left}

    def deadline(self, seat: int) -> float | None:
        """The instant the running ``seat``'s flag falls; None for a "none" clock or a stopped seat."""
        st = self._seat(seat)
        if self.settings.kind == "none" or st.since is None:
            return None
        return st.since + (0.0 if st.flagged else self._budget(st))

    def flagged(self, seat: int, now: float) -> bool:
        """Whether ``seat``'s flag has fallen by ``now``: the test `stop` applies (time used against
        the time left), not ``now >= deadline``, which float rounding can answer differently at the
        very instant of the deadline; the deadline only schedules the check."""
        st = self._seat(seat)
        if st.flagged:
            return True
        if self.settings.kind == "none" or st.since is None:
            return False
        return max(0.0, now - st.since) >= self._budget(st)

    def to_json(self, now: float) -> dict:
        """The clocks as of ``now``, the running seat charged up to ``now`` and marked as running."""
        views = [self._at(st, now) for st in self._seats]
        return {
            "seats": [{key: getattr(v, key) for key in _STATE_KEYS} for v in views],
            "running": self.running,
        }

    @classmethod
    def from_json(cls, d: dict, settings: ClockSettings, now: float | None = None) -> Clocks:
        """Restore clocks saved by ``to_json``. With ``now``, the seat that was running runs again
        from ``now`` (the time in between is charged to nobody); without it, no clock runs and the
        caller starts one."""
        if not isinstance(d, dict) or set(d) != {"seats", "running"} or not isinstance(d["seats"], list):
            raise ValueError("Saved clocks must be an object with exactly 'seats' and 'running'.")
        clocks = cls(settings, len(d["seats"]))
        for i, saved in enumerate(d["seats"]):
            if not isinstance(saved, dict) or set(saved) != set(_STATE_KEYS):
                raise ValueError(f"Saved clock of seat {i} must have exactly {', '.join(_STATE_KEYS)}.")
            for key in _STATE_KEYS:
                setattr(clocks._seats[i], key, saved[key])
        running = d["running"]
        if running is not None and not (isinstance(running, int) and 0 <= running < len(clocks._seats)):
            raise ValueError(f"Saved running seat {running!r} is not a seat.")
        if running is not None and now is not None:
            clocks.start(running, now)
        return clocks

    # -- arithmetic -------------------------------------------------------------------------------

    def _seat(self, seat: int) -> _Seat:
        if not 0 <= seat < len(self._seats):
            raise ValueError(f"No seat {seat}; this room has seats 0 to {len(self._seats) - 1}.")
        return self._seats[seat]

    def _budget(self, st: _Seat) -> float:
        """Time the seat may still use in one go before its flag falls."""
        kind = self.settings.kind
        if kind == "byoyomi":
            return st.main + st.period_left + (st.periods - 1) * self.settings.period
        if kind == "canadian":
            return st.main + st.period_left
        return st.main

    def _charge(self, st: _Seat, elapsed: float) -> bool:
        """Use ``elapsed`` seconds of ``st``'s time; False (and ``st`` untouched) if it had not enough."""
        kind = self.settings.kind
        if kind == "none":
            return True
        if elapsed >= self._budget(st):
            return False
        if elapsed < st.main:
            st.main -= elapsed
            return True
        over = elapsed - st.main
        st.main = 0
        if kind == "byoyomi" and over >= st.period_left:
            over -= st.period_left
            lost = 1 + int(over // self.settings.period)
            st.periods -= lost
            st.period_left = self.settings.period - (over - (lost - 1) * self.settings.period)
        elif kind in ("byoyomi", "canadian"):
            st.period_left -= over
        return True

    def _credit(self, st: _Seat) -> None:
        """What a move earns: a fresh byo-yomi period, a Canadian stone counted, a Fischer increment."""
        s = self.settings
        if s.kind == "fischer":
            st.main = min(st.main + s.increment, s.cap or MAX_SECONDS)   # uncapped: still within the bound
        elif s.kind == "corr":
            st.main = min(st.main + s.period, s.cap)
        elif s.kind == "byoyomi" and st.main == 0:
            st.period_left = s.period
        elif s.kind == "canadian" and st.main == 0:
            st.stones_left -= 1
            if st.stones_left == 0:
                st.stones_left, st.period_left = s.stones, s.period

    def _at(self, st: _Seat, now: float) -> _Seat:
        """A copy of ``st`` charged up to ``now`` if it runs (zeroed if its flag fell by then)."""
        view = _Seat(st.main, st.periods, st.period_left, st.stones_left, st.flagged)
        if st.since is not None and not view.flagged and not self._charge(view, max(0.0, now - st.since)):
            self._fall(view)
        return view

    @staticmethod
    def _fall(st: _Seat) -> None:
        st.main, st.periods, st.period_left, st.flagged = 0, 0, 0, True
