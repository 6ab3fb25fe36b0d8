"""The matcher alone, without a server: groups of any size, rating windows widening with waiting
time, one group per player, fair seats, the arena's rematch rule."""

from __future__ import annotations

import random

from polygo.server.finding.matching import Entry, Window, arena_groups, match, seat_order


def entry(key: str, rating: float, since: float = 0.0, **kw) -> Entry:
    return Entry(key, kw.pop("player", key), rating, since, **kw)


def test_three_seekers_make_one_room_of_three():
    groups = match([entry("a", 1000), entry("b", 1010), entry("c", 990)], 3, now=0.0)
    assert len(groups) == 1 and {e.key for e in groups[0]} == {"a", "b", "c"}


def test_a_window_widens_with_waiting_time():
    far = [entry("a", 1000, since=0.0), entry("b", 1300, since=0.0)]
    window = Window(start=100, growth=10)
    assert match(far, 2, now=10.0, window=window) == []       # 200 either side: 300 apart is too far
    assert len(match(far, 2, now=20.0, window=window)) == 1   # 300 either side


def test_every_member_s_window_must_hold_the_group():
    old, new = entry("old", 1000, since=0.0), entry("new", 1250, since=100.0)
    assert match([old, new], 2, now=100.0, window=Window(start=100, growth=10)) == []


def test_nearest_ratings_are_grouped_and_nobody_twice():
    entries = [entry(str(i), 1000 + 10 * i, since=i) for i in range(9)]
    groups = match(entries, 3, now=10.0, window=Window(start=1000))
    assert len(groups) == 3
    keys = [e.key for g in groups for e in g]
    assert sorted(keys) == sorted(e.key for e in entries)
    assert sorted(sorted(int(e.key) for e in g) for g in groups) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def test_one_player_s_entries_never_share_a_room():
    entries = [entry("a1", 1000, player="a"), entry("a2", 1000, player="a")]
    assert match(entries, 2, now=0.0) == []


def test_seats_rotate_over_a_player_s_games():
    often_black = entry("a", 1000, seats=(5, 1))
    often_white = entry("b", 1000, seats=(1, 5))
    assert [e.key for e in seat_order([often_black, often_white])] == ["b", "a"]
    new_weak, new_strong = entry("w", 900), entry("s", 1100)
    assert [e.key for e in seat_order([new_strong, new_weak])] == ["w", "s"]


def test_seats_in_three_player_rooms_go_to_who_sat_there_least():
    entries = [entry("a", 0, seats=(3, 0, 0)), entry("b", 0, seats=(0, 3, 0)), entry("c", 0, seats=(0, 0, 3))]
    order = seat_order(entries)
    assert [order[s].seats[s] for s in range(3)] == [0, 0, 0]


def test_the_arena_avoids_an_immediate_rematch_when_it_can():
    rng = random.Random(7)
    a = entry("a", 1000, last=frozenset({"b"}))
    b = entry("b", 1000, last=frozenset({"a"}))
    c = entry("c", 1000, last=frozenset({"d"}))
    d = entry("d", 1000, last=frozenset({"c"}))
    for _ in range(20):
        groups = arena_groups([a, b, c, d], 2, rng)
        assert len(groups) == 2
        assert all({x.key for x in g} not in ({"a", "b"}, {"c", "d"}) for g in groups)
    assert len(arena_groups([a, b], 2, rng)) == 1                 # nobody else is free: they meet again
