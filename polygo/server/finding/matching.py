"""Matching: from the entries waiting in one pool to the rooms to start, as pure functions.

No I/O and no clock of its own: the server (`seeks.py`, `arena.py`) passes the waiting entries and
the time, and starts the rooms returned; tests and bench/matching.py call these directly.

- `match` (seeks): the oldest entry first picks the entries nearest its rating, as many as the
  pool's players, such that every member's rating window holds the whole group. A window starts
  at `Window.start` rating points either side and widens by `Window.growth` a second of waiting
  (lichess and OGS widen theirs the same way), so a lone strong player still gets a game.
- `arena_groups` (the arena, CGOS style): every free player, by rating plus Gaussian noise (so the
  same neighbours do not meet every round), grouped in that order, skipping an immediate rematch
  unless nobody else is free.
- `seat_order` (both): seats go to the players who sat there least in the pool (by share of their
  games), so colours rotate over a player's games; on a tie the lower rating takes the lower seat
  (Black moves first, as the weaker player takes Black in an even game).
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass, field
from typing import Sequence


@dataclass(frozen=True)
class Entry:
    """One waiting player: `key` names the seek, `player` the person (one entry each)."""

    key: str
    player: str
    rating: float
    since: float
    seats: tuple[int, ...] = ()
    """Games so far at seat 0, 1, ... in this pool."""
    last: frozenset[str] = field(default_factory=frozenset)
    """The other players of its last game here (the arena avoids rematching them at once)."""


@dataclass(frozen=True)
class Window:
    """How far apart in rating a group may be: `start` points either side at first, `growth` more a
    second of waiting, never more than `limit`."""

    start: float = 100.0
    growth: float = 10.0
    limit: float = 2000.0

    def around(self, entry: Entry, now: float) -> float:
        return min(self.limit, self.start + self.growth * max(0.0, now - entry.since))


def match(entries: Sequence[Entry], players: int, now: float, window: Window = Window()) -> list[tuple[Entry, ...]]:
    """The groups of `players` entries to start now, each in seat order (`seat_order`); an entry is
    in at most one group, and entries of one player never share one."""
    order = sorted(entries, key=lambda e: (e.rating, e.since, e.key))
    ratings = [e.rating for e in order]
    position = {id(e): i for i, e in enumerate(order)}
    widths = {id(e): window.around(e, now) for e in order}
    used = [False] * len(order)
    groups = []
    for anchor in sorted(entries, key=lambda e: (e.since, e.key)):
        at = position[id(anchor)]
        if used[at]:
            continue
        group = _gather(order, ratings, used, widths, at, players)
        if group is None:
            continue
        for i in group:
            used[i] = True
        groups.append(seat_order([order[i] for i in group]))
    return groups


def _gather(order: list[Entry], ratings: list[float], used: list[bool], widths: dict[int, float],
            at: int, players: int) -> list[int] | None:
    """Indexes of a group around `order[at]`, nearest ratings first, within every member's window."""
    anchor = order[at]
    reach = widths[id(anchor)]
    low = bisect.bisect_left(ratings, anchor.rating - reach)
    high = bisect.bisect_right(ratings, anchor.rating + reach)
    left, right = at - 1, at + 1
    group = [at]
    names = {anchor.player}
    lowest = highest = anchor.rating
    narrowest = reach
    while len(group) < players:
        while left >= low and used[left]:
            left -= 1
        while right < high and used[right]:
            right += 1
        if left < low and right >= high:
            return None
        take_left = right >= high or (left >= low and anchor.rating - ratings[left] <= ratings[right] - anchor.rating)
        i = left if take_left else right
        if take_left:
            left -= 1
        else:
            right += 1
        candidate = order[i]
        spread = max(highest, candidate.rating) - min(lowest, candidate.rating)
        if candidate.player in names or spread > min(narrowest, widths[id(candidate)]):
            continue
        group.append(i)
        names.add(candidate.player)
        lowest, highest = min(lowest, candidate.rating), max(highest, candidate.rating)
        narrowest = min(narrowest, widths[id(candidate)])
    return group


def arena_groups(entries: Sequence[Entry], players: int, rng: random.Random,
                 noise: float = 100.0) -> list[tuple[Entry, ...]]:
    """The arena's next games among the free `entries`, each in seat order."""
    if len(entries) < players:
        return []
    shuffled = sorted(entries, key=lambda e: (e.rating + rng.gauss(0.0, noise), e.key))
    alone = len(shuffled) == players
    groups = []
    while len(shuffled) >= players:
        group = [shuffled.pop(0)]
        for candidate in list(shuffled):
            if len(group) == players:
                break
            if alone or not any(_met(candidate, member) for member in group):
                group.append(candidate)
                shuffled.remove(candidate)
        if len(group) == players:
            groups.append(seat_order(group))
        else:
            shuffled.extend(group[1:])      # the first waits for the next round; the rest stay in this one
    return groups


def _met(a: Entry, b: Entry) -> bool:
    return a.player in b.last or b.player in a.last or a.player == b.player


def seat_order(group: Sequence[Entry]) -> tuple[Entry, ...]:
    """`group` in seat order: the order in which the players sat least where they sit (the sum of
    each one's share of games at his seat), the lower ratings at the lower seats on a tie. Every
    order is tried up to `EXHAUSTIVE` players; beyond, each seat in turn goes to who sat there least."""
    if len(group) <= EXHAUSTIVE:
        return min(itertools.permutations(group),
                   key=lambda order: (round(sum(_share(e, seat) for seat, e in enumerate(order)), 9),
                                      [e.rating for e in order], [e.key for e in order]))
    left = list(group)
    seated = []
    for seat in range(len(group)):
        best = min(left, key=lambda e: (_share(e, seat), e.rating, e.key))
        left.remove(best)
        seated.append(best)
    return tuple(seated)


EXHAUSTIVE = 6
"""Players up to which `seat_order` tries every order (720 for six)."""


def _share(entry: Entry, seat: int) -> float:
    total = sum(entry.seats)
    if total == 0:
        return 0.0
    return (entry.seats[seat] if seat < len(entry.seats) else 0) / total
