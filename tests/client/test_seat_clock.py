"""A seat's clock counted down between reports: every part of the time left, not main time alone."""

import pytest

from polygo.client.room import Clocks
from polygo.client.seat_clock import seat_clock

BYOYOMI = {"kind": "byoyomi", "main": 4, "periods": 3, "period": 10}
CANADIAN = {"kind": "canadian", "main": 60, "period": 30, "stones": 3}
FISCHER = {"kind": "fischer", "main": 60, "increment": 5, "cap": 0}


def clock_after(control: dict, reported: dict, spent: float, running: int | None = 0):
    return seat_clock(Clocks(running, [reported], at=100.0), control, 0, 100.0 + spent)


def test_byoyomi_counts_main_time_then_each_period():
    reported = {"main": 0.5, "periods": 3, "period_left": 10}
    assert clock_after(BYOYOMI, reported, 0.0).total == 30.5
    later = clock_after(BYOYOMI, reported, 12.0)
    assert (later.main, later.periods, later.period_left) == (0.0, 2, 8.5)
    assert later.total == pytest.approx(18.5) and later.in_overtime
    gone = clock_after(BYOYOMI, reported, 40.0)
    assert gone.total == 0.0 and gone.periods == 1


def test_a_seat_whose_clock_is_stopped_keeps_its_time():
    reported = {"main": 0.5, "periods": 3, "period_left": 10}
    assert clock_after(BYOYOMI, reported, 50.0, running=1).total == 30.5


def test_canadian_counts_main_time_then_the_block():
    reported = {"main": 2, "periods": 0, "period_left": 30, "stones_left": 3}
    clock = clock_after(CANADIAN, reported, 5.0)
    assert (clock.main, clock.period_left, clock.stones_left, clock.total) == (0.0, 27.0, 3, 27.0)
    assert clock.per_move == 9.0


def test_fischer_is_main_time_and_the_increment_per_move():
    clock = clock_after(FISCHER, {"main": 20, "periods": 0, "period_left": 0}, 5.0)
    assert (clock.total, clock.per_move) == (15.0, 20.0)


def test_no_clock_or_an_unknown_one_is_none():
    assert clock_after({"kind": "none"}, {}, 0.0) is None
    assert clock_after("byoyomi:600+5x30", {"main": 1}, 0.0) is None
    assert clock_after(BYOYOMI, {"main": "soon"}, 0.0) is None
