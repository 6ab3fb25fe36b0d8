"""Clock arithmetic, driven with made-up instants (no event loop, no sleeping)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polygo.protocol.clock_settings import ClockSettings
from polygo.server.rooms.clock import Clocks


def clocks(text: str, seats: int = 2) -> Clocks:
    return Clocks(ClockSettings.parse(text), seats)


def move(c: Clocks, seat: int, start: float, end: float) -> bool:
    """Seat thinks from ``start`` to ``end`` and moves."""
    c.start(seat, start)
    return c.stop(seat, end)


# -- settings ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("none", ClockSettings("none")),
    ("absolute:600", ClockSettings("absolute", main=600)),
    ("byoyomi:600+5x30", ClockSettings("byoyomi", main=600, periods=5, period=30)),
    ("byoyomi:0+3x10", ClockSettings("byoyomi", main=0, periods=3, period=10)),
    ("fischer:300+10", ClockSettings("fischer", main=300, increment=10)),
    ("fischer:300+10max600", ClockSettings("fischer", main=300, increment=10, cap=600)),
    ("canadian:600+300/25", ClockSettings("canadian", main=600, period=300, stones=25)),
    ("absolute:90.5", ClockSettings("absolute", main=90.5)),
    ("corr:3d", ClockSettings("corr", period=3 * 86400, cap=3 * 86400)),
    ("corr:3d/10d", ClockSettings("corr", period=3 * 86400, cap=10 * 86400)),
    ("corr:36h", ClockSettings("corr", period=36 * 3600, cap=36 * 3600)),
    ("corr:90m/2h", ClockSettings("corr", period=5400, cap=7200)),
    ("corr:2s", ClockSettings("corr", period=2, cap=2)),
])
def test_parse_and_text_round_trip(text, expected):
    parsed = ClockSettings.parse(text)
    assert parsed == expected
    assert ClockSettings.parse(str(parsed)) == parsed
    assert ClockSettings.from_json(json.loads(json.dumps(parsed.to_json()))) == parsed


@pytest.mark.parametrize("text", [
    "", "fast", "absolute", "absolute:", "absolute:0", "absolute:-5", "absolute:1e3", "byoyomi:600+0x30",
    "byoyomi:600+5x0", "byoyomi:600+5", "canadian:600+300/0", "canadian:600+0/25", "fischer:0+10",
    "fischer:300+10max100", "none:5", "hourglass:60", "absolute:600s", "absolute:" + "9" * 40,
    "byoyomi:600+100000x30", "canadian:600+300/100000", "fischer:300+1000000000",
    "corr:3", "corr:3d/", "corr:3x", "corr:0d", "corr:3d/1d", "corr:2000d", "corr:d", "corr:3d/10",
    "corr:" + "9" * 400 + "d",
])
def test_parse_refuses_bad_text_with_a_sentence(text):
    with pytest.raises(ValueError) as info:
        ClockSettings.parse(text)
    message = str(info.value)
    assert message[0].isupper() and message.endswith(".")


def test_to_json_writes_only_the_kinds_fields():
    assert ClockSettings.parse("byoyomi:600+5x30").to_json() == {
        "kind": "byoyomi", "main": 600, "periods": 5, "period": 30}
    assert ClockSettings.parse("none").to_json() == {"kind": "none"}


@pytest.mark.parametrize("data, words", [
    ({"kind": "absolute", "main": 600, "period": 30}, "no field"),
    ({"kind": "absolute", "main": 600, "colour": "red"}, "no field"),
    ({"main": 600}, "'kind'"),
    ({"kind": "sundial"}, "Unknown clock kind"),
    ({"kind": "byoyomi", "main": 600, "periods": 5.5, "period": 30}, "whole number"),
    ({"kind": "absolute", "main": "600"}, "must be a number"),
    ({"kind": "absolute", "main": True}, "must be a number"),
    ({"kind": "absolute", "main": float("inf")}, "finite"),
    ({"kind": "byoyomi", "main": 1e308, "periods": 10**18, "period": 1e308}, "at most"),
    ("absolute:600", "must be an object"),
])
def test_from_json_is_strict(data, words):
    with pytest.raises(ValueError, match=words):
        ClockSettings.from_json(data)


def test_corr_text_uses_the_largest_unit_that_fits():
    assert str(ClockSettings.parse("corr:1.5d")) == "corr:36h"
    assert str(ClockSettings.parse("corr:72h/240h")) == "corr:3d/10d"
    assert str(ClockSettings.parse("corr:3d/3d")) == "corr:3d"
    assert ClockSettings.parse("corr:3d").to_json() == {"kind": "corr", "period": 259200, "cap": 259200}
    assert ClockSettings.parse("corr:3d").calendar and not ClockSettings.parse("fischer:60+5").calendar


# -- correspondence ---------------------------------------------------------------------------

def test_corr_without_a_bank_gives_every_move_the_full_period():
    c = clocks("corr:10s")
    assert c.remaining(0, 0) == {"main": 10.0, "periods": 0, "period_left": 0.0, "stones_left": 0}
    assert move(c, 0, 0, 4)
    assert c.remaining(0, 4)["main"] == 10.0
    c.start(0, 10)
    assert c.deadline(0) == 20 and not c.flagged(0, 19.9) and c.flagged(0, 20)


def test_corr_banks_what_is_left_up_to_the_cap():
    c = clocks("corr:10s/25s")
    assert move(c, 0, 0, 1)                  # 9 left + 10
    assert c.remaining(0, 1)["main"] == 19.0
    assert move(c, 0, 1, 2)                  # 18 left + 10, capped
    assert c.remaining(0, 2)["main"] == 25.0
    assert not move(c, 0, 2, 27)             # too late: the flag fell
    assert c.remaining(0, 27)["main"] == 0.0


# -- none and absolute ------------------------------------------------------------------------

def test_none_never_falls():
    c = clocks("none")
    c.start(0, 0)
    assert c.deadline(0) is None and not c.flagged(0, 1e12)
    assert c.remaining(0, 1e12) == {"main": None, "periods": 0, "period_left": None, "stones_left": 0}
    assert c.stop(0, 1e12)


def test_absolute_charges_only_the_player_to_move():
    c = clocks("absolute:60")
    assert move(c, 0, 0, 10)
    assert move(c, 1, 10, 40)
    assert c.remaining(0, 1000)["main"] == 50 and c.remaining(1, 1000)["main"] == 30
    c.start(0, 40)
    assert c.deadline(0) == 90 and c.deadline(1) is None
    assert c.remaining(0, 70)["main"] == 20
    assert not c.flagged(0, 89.999) and c.flagged(0, 90)


def test_absolute_move_at_the_deadline_is_too_late():
    c = clocks("absolute:60")
    assert not move(c, 0, 0, 60)
    assert c.flagged(0, 60)
    assert c.remaining(0, 60) == {"main": 0, "periods": 0, "period_left": 0, "stones_left": 0}
    c2 = clocks("absolute:60")
    assert move(c2, 0, 0, 59.999)


# -- byo-yomi ---------------------------------------------------------------------------------

def test_byoyomi_period_resets_after_a_move_inside_it():
    c = clocks("byoyomi:10+3x5")
    assert move(c, 0, 0, 12)  # main gone, 2 s into the first period
    assert c.remaining(0, 0) == {"main": 0, "periods": 3, "period_left": 5, "stones_left": 0}
    for t in range(10):
        assert move(c, 0, 100 * t, 100 * t + 4.9)  # every move inside a period: no period lost
    assert c.remaining(0, 0)["periods"] == 3


def test_byoyomi_overrun_periods_are_lost():
    c = clocks("byoyomi:10+3x5")
    c.start(0, 0)
    assert c.remaining(0, 17) == {"main": 0, "periods": 2, "period_left": 3, "stones_left": 0}
    assert c.deadline(0) == 25
    assert c.stop(0, 17)
    assert c.remaining(0, 0) == {"main": 0, "periods": 2, "period_left": 5, "stones_left": 0}
    c.start(0, 100)
    assert c.deadline(0) == 110


def test_byoyomi_last_period_exhausted_flags():
    c = clocks("byoyomi:10+3x5")
    c.start(0, 0)
    assert not c.flagged(0, 24.9) and c.flagged(0, 25)
    assert not c.stop(0, 25)


def test_byoyomi_move_exactly_at_a_period_boundary_starts_the_next_period():
    c = clocks("byoyomi:10+3x5")
    assert move(c, 0, 0, 15)  # the first period ran out just as the move came: one period lost
    assert c.remaining(0, 0)["periods"] == 2


def test_byoyomi_without_main_time():
    c = clocks("byoyomi:0+1x30")
    assert move(c, 0, 0, 29)
    assert move(c, 0, 50, 79)
    assert not move(c, 0, 100, 130)


# -- Canadian ---------------------------------------------------------------------------------

def test_canadian_block_of_stones():
    c = clocks("canadian:10+20/3")
    assert move(c, 0, 0, 14)  # main gone; this move is the first stone of the block, 4 s used
    assert c.remaining(0, 0) == {"main": 0, "periods": 0, "period_left": 16, "stones_left": 2}
    assert move(c, 0, 100, 106)
    assert c.remaining(0, 0) == {"main": 0, "periods": 0, "period_left": 10, "stones_left": 1}
    assert move(c, 0, 200, 209)  # third stone with 1 s to spare: a fresh block
    assert c.remaining(0, 0) == {"main": 0, "periods": 0, "period_left": 20, "stones_left": 3}


def test_canadian_block_runs_out():
    c = clocks("canadian:0+20/3")
    assert move(c, 0, 0, 15)
    c.start(0, 100)
    assert c.deadline(0) == 105
    assert c.flagged(0, 105)
    assert not c.stop(0, 106)


def test_canadian_in_main_time_keeps_the_block_whole():
    c = clocks("canadian:600+300/25")
    assert move(c, 0, 0, 100)
    assert c.remaining(0, 0) == {"main": 500, "periods": 0, "period_left": 300, "stones_left": 25}
    c.start(0, 0)
    assert c.deadline(0) == 800


# -- Fischer ----------------------------------------------------------------------------------

def test_fischer_adds_the_increment_after_each_move():
    c = clocks("fischer:60+10")
    assert move(c, 0, 0, 5)
    assert c.remaining(0, 0)["main"] == 65
    assert move(c, 0, 0, 1)
    assert c.remaining(0, 0)["main"] == 74


def test_fischer_cap():
    c = clocks("fischer:60+10max65")
    assert move(c, 0, 0, 1)
    assert c.remaining(0, 0)["main"] == 65
    assert move(c, 0, 0, 1)
    assert c.remaining(0, 0)["main"] == 65


def test_fischer_late_move_gets_no_increment():
    c = clocks("fischer:60+10")
    assert not move(c, 0, 0, 60)
    assert c.remaining(0, 0)["main"] == 0 and c.flagged(0, 0)


# -- misuse, persistence ----------------------------------------------------------------------

def test_misuse_is_a_clear_error():
    c = clocks("absolute:60", seats=3)
    with pytest.raises(ValueError, match="not running"):
        c.stop(0, 1)
    c.start(2, 0)
    with pytest.raises(ValueError, match="already running"):
        c.start(2, 1)
    with pytest.raises(ValueError, match="No seat 3"):
        c.remaining(3, 0)
    with pytest.raises(ValueError, match="at least one seat"):
        clocks("none", seats=0)


def test_restore_does_not_charge_the_down_time():
    c = clocks("byoyomi:10+3x5")
    assert move(c, 1, 0, 3)
    c.start(0, 100)
    saved = json.loads(json.dumps(c.to_json(117)))  # 17 s used: main gone, two periods lost
    assert saved["running"] == 0
    back = Clocks.from_json(saved, c.settings, now=5000)
    assert back.running == 0
    assert back.remaining(0, 5000) == {"main": 0, "periods": 2, "period_left": 3, "stones_left": 0}
    assert back.remaining(1, 5000)["main"] == 7
    assert back.deadline(0) == 5008
    assert back.stop(0, 5002.5)
    assert back.remaining(0, 0) == {"main": 0, "periods": 2, "period_left": 5, "stones_left": 0}


def test_restore_without_now_leaves_every_clock_stopped():
    c = clocks("absolute:60")
    c.start(1, 0)
    back = Clocks.from_json(c.to_json(10), c.settings)
    assert back.running is None and back.deadline(1) is None
    assert back.remaining(1, 99)["main"] == 50


def test_restore_keeps_a_fallen_flag():
    c = clocks("absolute:60")
    c.start(0, 0)
    back = Clocks.from_json(c.to_json(70), c.settings, now=100)
    assert back.flagged(0, 100) and not back.stop(0, 100)


@pytest.mark.parametrize("data", [
    {"seats": []},
    {"seats": [{"main": 1}], "running": None},
    {"seats": [{"main": 1, "periods": 0, "period_left": 0, "stones_left": 0, "flagged": False}], "running": 4},
])
def test_restore_refuses_malformed_state(data):
    with pytest.raises(ValueError):
        Clocks.from_json(data, ClockSettings.parse("absolute:60"))


# -- properties -------------------------------------------------------------------------------

SETTINGS = st.sampled_from(["absolute:60", "byoyomi:30+3x10", "byoyomi:0+2x5", "fischer:30+5",
                            "fischer:30+5max40", "canadian:30+20/3", "canadian:0+10/2"])
THINKING = st.lists(st.floats(min_value=0, max_value=40, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(SETTINGS, THINKING)
def test_a_move_is_in_time_exactly_when_it_comes_before_the_deadline(text, thinking):
    c = clocks(text, seats=1)
    now = 0.0
    for used in thinking:
        c.start(0, now)
        deadline = c.deadline(0)
        flagged = c.flagged(0, now + used)
        assert flagged == (now + used >= deadline) or now + used == pytest.approx(deadline, abs=1e-9)
        in_time = c.stop(0, now + used)
        assert in_time == (not flagged)
        if not in_time:
            assert c.flagged(0, now + used + 1)
            return
        now += used + 1000  # the opponent's turn: this seat's clock does not move


@settings(max_examples=300, deadline=None)
@given(SETTINGS, THINKING, st.floats(min_value=0, max_value=1, allow_nan=False))
def test_remaining_never_grows_while_running_and_persisting_changes_nothing(text, thinking, fraction):
    c = clocks(text, seats=1)
    now = 0.0
    for used in thinking:
        c.start(0, now)
        deadline = c.deadline(0)
        budget = deadline - now
        middle = now + used * fraction
        saved = Clocks.from_json(json.loads(json.dumps(c.to_json(middle))), c.settings, now=middle + 500)
        if middle < deadline:
            assert saved.deadline(0) == pytest.approx(deadline + 500)  # the 500 s down time is free
        before = c.remaining(0, middle)
        after = c.remaining(0, now + used)
        assert before["main"] >= after["main"]
        assert before["main"] + before["period_left"] <= budget + 1e-9
        if not c.stop(0, now + used):
            return
        now += used + 1000


def test_stop_without_credit_charges_time_but_gives_no_increment():
    clocks = Clocks(ClockSettings.parse("fischer:60+10"), 2)
    clocks.start(0, 0.0)
    assert clocks.stop(0, 5.0, credit=False)
    assert clocks.remaining(0, 5.0)["main"] == 55
    clocks.start(0, 5.0)
    assert clocks.stop(0, 10.0)
    assert clocks.remaining(0, 10.0)["main"] == 60


def test_flagged_and_stop_agree_at_the_deadline_itself():
    """At the very instant of a deadline, `flagged` (then: now >= since + budget) said the flag had
    fallen and `stop` (now - since >= budget) took the move as in time: the room recorded a timeout
    and then credited the clock. Found by the property test above."""
    c = clocks("byoyomi:30+3x10", seats=1)
    now = 0.0
    for used in (1.0, 39.04043536588889):
        c.start(0, now)
        assert c.stop(0, now + used)
        now += used + 1000
    c.start(0, now)
    at = now + 20.0
    assert at == c.deadline(0)
    assert c.flagged(0, at) is (not c.stop(0, at))


def test_an_uncapped_fischer_clock_stays_within_the_documented_bound():
    """Issue 16, item 12: quick moves under fischer:10^8+10^8 grew the clock past 10^8 s."""
    from polygo.protocol.clock_settings import MAX_SECONDS

    clocks = Clocks(ClockSettings.parse(f"fischer:{MAX_SECONDS}+{MAX_SECONDS}"), 2)
    clocks.start(0, 0.0)
    assert clocks.stop(0, 1.0)
    clocks.start(0, 1.0)
    assert clocks.stop(0, 2.0)
    assert clocks.remaining(0, 2.0)["main"] == MAX_SECONDS
