"""Ko types (NKR J6-J15) and disturbing a disturbing ko (J16), on a :class:`Scratch` board.

Every function reads the board only through its ``Scratch``, so the points a verdict depends
on are exactly the points it read: the analysis keeps a verdict until a play changes one of
them (that is what makes the analysis incremental). The searches are bounded by the strings
of the ko: the plays that can take a breath from a string are on its breaths, and the replies
that can give one back are on its breaths or capture a neighbour in atari.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from .shapes import EMPTY, Scratch, Shapes, Template, matches, play, string


class KoPosition(NamedTuple):
    """A ko position (J5): its points, its mouths, and one stone of each coupling string."""

    points: frozenset[int]
    mouths: tuple[Template, ...]
    coupling: tuple[int, ...]       # empty for a ko position without a ko coupling


class Kind(NamedTuple):
    stable_life: bool = False
    instable_life: bool = False
    single_life: bool = False
    stable_death: bool = False
    instable_death: bool = False
    single_death: bool = False

    @property
    def type(self) -> str:
        if self.stable_life or self.instable_life or self.single_life:
            return "disturbing-life"
        if self.stable_death or self.instable_death or self.single_death:
            return "disturbing-death"
        return "fighting"

    @property
    def state(self) -> str | None:
        """stable / instable / single for a disturbing ko; None for a fighting ko."""
        life = (self.stable_life, self.instable_life, self.single_life)
        death = (self.stable_death, self.instable_death, self.single_death)
        for flags in (life, death):
            for name, flag in zip(("stable", "instable", "single"), flags):
                if flag:
                    return name
        return None

    @property
    def disturbing(self) -> bool:
        return self.type != "fighting"


def classify(board: Scratch, shapes: Shapes, ko: KoPosition, had_two: frozenset[frozenset[int]]) -> Kind:
    """The type of ``ko`` on ``board``; ``had_two`` holds the 4-in-a-row mouths that have had
    two ko strings on them after a move (J8's history clause)."""
    nbrs = shapes.nbrs
    if ko.coupling:
        breaths_of = [string(board, nbrs, r)[1] for r in ko.coupling]   # (walked once for J6 and J10-J11)
        sdl = stable_life(board, shapes, ko, breaths_of)
        idl = not sdl and _becomes_stable(board, shapes, ko)
        two_two = len(ko.mouths) == 2 and all(len(m.points) == 2 for m in ko.mouths)
        strings = [(board[r], libs) for r, libs in zip(ko.coupling, breaths_of)]
        colours = {board[p] for p in ko.points} - {EMPTY}
        sdd = two_two and len(colours) == 2 and any(
            any(c == colour and len(libs) == 1 for c, libs in strings)
            and all(len(libs) >= 2 for c, libs in strings if c != colour) for colour in (1, 2))
        breaths = {p for p in ko.points if board[p] == EMPTY}
        dead = {c for c, libs in strings if libs == breaths}
        idd = not sdl and two_two and len(dead) == 1
        return Kind(stable_life=sdl, instable_life=idl, stable_death=sdd, instable_death=idd)
    (mouth,) = ko.mouths
    single_life = not endless(board, mouth, nbrs) or (mouth.row4 and mouth.points not in had_two)
    single_death = len(ko.points) == 2 and _single_death(board, shapes, mouth)
    return Kind(single_life=single_life, single_death=single_death)


def stable_life(board: Scratch, shapes: Shapes, ko: KoPosition, breaths_of: list[set[int]] | None = None) -> bool:
    """J6: every coupling string has two breaths or more (1); no attack to one breath lacks an
    immediate answer that does not repeat the board (2, J-A5); no ko stone move next to an
    opposing ko string and no own one takes a coupling string to one breath (3, J-A6).
    ``breaths_of``: the coupling strings' breaths on ``board`` where the caller has them."""
    nbrs = shapes.nbrs
    if breaths_of is None:
        breaths_of = [string(board, nbrs, r)[1] for r in ko.coupling]
    strings = [(r, board[r], libs) for r, libs in zip(ko.coupling, breaths_of)]
    if any(len(libs) < 2 for _, _, libs in strings):
        return False
    for x in (1, 2):
        targets = [r for r, c, _ in strings if c == 3 - x]
        # a play takes one breath at most from a string of the other colour, the one it is
        # played on: only a play on a breath of a two-breath string leaves it with one
        attacks = sorted({p for r, c, libs in strings if c == 3 - x and len(libs) == 2 for p in libs})
        for m in attacks:
            after = play(board, nbrs, m, x)
            if after is None:
                continue
            affected = [r for r in targets if after[r] == 3 - x and len(string(after, nbrs, r, 2)[1]) == 1]
            if affected and not _answer(board, after, nbrs, affected, 3 - x):
                return False
            if affected and shapes.in_mouth(after, m):
                near = [(after[n], shapes.in_mouth(after, n)) for n in nbrs[m] if after[n] != EMPTY]
                if any(c == 3 - x and ko_stone for c, ko_stone in near) and \
                        not any(c == x and ko_stone for c, ko_stone in near):
                    return False
    return True


def _answer(before: Scratch, after: Scratch, nbrs: Sequence[Sequence[int]], affected: list[int], y: int) -> bool:
    """Can ``y`` give each affected string a second breath at once, without bringing back
    ``before`` (the board before the attack: an immediate ko recapture is no interchange)?"""
    strings = [string(after, nbrs, r) for r in affected]
    # a play on a breath first; a capture beside them only if none of those gives the breaths
    # (the same verdict: any one reply will do; the strings beside are looked for only then)
    replies = set().union(*[libs for _, libs in strings])
    for q in sorted(replies):
        if _gives_breaths(before, after, nbrs, affected, y, q):
            return True
    captures = set()
    for stones, _ in strings:
        captures |= breaths_in_atari(after, nbrs, stones, 3 - y)
    for q in sorted(captures - replies):
        if _gives_breaths(before, after, nbrs, affected, y, q):
            return True
    return False


def _gives_breaths(before: Scratch, after: Scratch, nbrs: Sequence[Sequence[int]], affected: list[int], y: int,
                   q: int) -> bool:
    """Does ``y``'s reply on ``q`` give each affected string a second breath, without bringing
    back ``before``?"""
    again = play(after, nbrs, q, y)
    if again is None or again.same_as(before):
        return False
    return all(again[r] == y and len(string(again, nbrs, r, 2)[1]) >= 2 for r in affected)


def breaths_in_atari(board: Scratch, nbrs: Sequence[Sequence[int]], stones: list[int], colour: int) -> set[int]:
    """The breaths of the strings of ``colour`` in atari beside ``stones`` (a whole string the
    caller has read, so its neighbours' colours are read already): each string asked once,
    whichever of its stones is met first (a string is known by the stones its answer
    names)."""
    base, changes = board.base, board.changes
    out: set[int] = set()
    asked: set[int] = set()
    for s in stones:
        for n in nbrs[s]:
            if n not in asked and changes.get(n, base[n]) == colour:
                found, libs = string(board, nbrs, n, 2)
                asked.update(found)
                if len(libs) == 1:
                    out |= libs
    return out


def _becomes_stable(board: Scratch, shapes: Shapes, ko: KoPosition) -> bool:
    """J7: some ko stone move in the ko position (by either player, J-A7) leaves the same ko
    position (same mouths, same coupling) in stable disturbing life."""
    nbrs = shapes.nbrs
    for p in sorted(ko.points):
        if board[p] != EMPTY:
            continue
        for colour in (1, 2):
            after = play(board, nbrs, p, colour)
            if after is None or after[p] != colour or not shapes.in_mouth(after, p):
                continue
            if same_ko(after, shapes, ko) and stable_life(after, shapes, ko):
                return True
    return False


def same_ko(board: Scratch, shapes: Shapes, ko: KoPosition) -> bool:
    """Are all of ``ko``'s mouths still mouths, each adjacent to exactly its coupling?"""
    if not all(matches(board, m) for m in ko.mouths):
        return False
    walked: dict[int, tuple[int, ...]] = {}   # stone -> its string: each string walked once

    def string_at(n: int) -> tuple[int, ...]:
        found = walked.get(n)
        if found is None:
            found = tuple(sorted(string(board, shapes.nbrs, n)[0]))
            walked.update(dict.fromkeys(found, found))
        return found

    coupling = {string_at(r) for r in ko.coupling if board[r] != EMPTY}
    if len(coupling) != len(ko.coupling):
        return False
    for m in ko.mouths:
        adjacent = set()
        for p in m.points:
            for n in shapes.nbrs[p]:
                if n not in m.points and board[n] != EMPTY and not shapes.in_mouth(board, n):
                    adjacent.add(string_at(n))
        if adjacent != coupling:
            return False
    return True


def endless(board: Scratch, mouth: Template, nbrs: Sequence[Sequence[int]]) -> bool:
    """J8 (J-A8): could a ko stone move-sequence of infinite length be played on the mouth,
    its adjacent strings never captured? A search over the mouth's contents (3^4 at most),
    either player starting; the rules themselves are not applied."""
    points = sorted(mouth.points)
    index = {p: i for i, p in enumerate(points)}
    side_a = set(mouth.side_a)
    x = next((3 - board[p] if p in side_a else board[p] for p in points if board[p] != EMPTY), 0)
    if not x:
        x = next((board[n] for n in mouth.out_a), 0) or 3 - next((board[n] for n in mouth.out_b), 2)
    stone_colour = tuple(3 - x if p in side_a else x for p in points)   # what each point may hold
    inner = tuple(tuple(index[q] for q in nbrs[p] if q in index) for p in points)
    start = tuple(board[p] for p in points)
    key = (inner, stone_colour, start)
    found = _endless.get(key)
    if found is None:
        found = _endless[key] = _search(inner, stone_colour, start)
    return found


# endless's verdicts: the search reads only the mouth's shape, what each point may hold and its
# stones, and a game's kos keep asking about the same few (a handful of shapes, 3^4 contents)
_endless: dict[tuple, bool] = {}


def _search(inner: tuple[tuple[int, ...], ...], stone_colour: tuple[int, ...], start: tuple[int, ...]) -> bool:
    """endless's search from ``start``, each player in turn first."""

    def successors(state: tuple[int, ...], c: int) -> list[tuple[int, ...]]:
        out = []
        for i, v in enumerate(state):
            if v != EMPTY or stone_colour[i] != c:
                continue
            new = list(state)
            new[i] = c
            for j in inner[i]:
                if new[j] == 3 - c:
                    group, libs = _group(new, inner, j)
                    if not libs:
                        for g in group:
                            new[g] = EMPTY
            if _group(new, inner, i)[1]:
                out.append(tuple(new))
        return out

    colour = {}   # (state, to move) -> 1 on the search path, 2 done
    for first in (1, 2):
        stack = [((start, first), iter(successors(start, first)))]
        if colour.get((start, first)) == 2:
            continue
        colour[(start, first)] = 1
        while stack:
            (state, c), it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[(state, c)] = 2
                stack.pop()
                continue
            node = (nxt, 3 - c)
            mark = colour.get(node)
            if mark == 1:
                return True
            if mark is None:
                colour[node] = 1
                stack.append((node, iter(successors(nxt, 3 - c))))
    return False


def _group(state: list[int], inner: tuple[tuple[int, ...], ...], i: int) -> tuple[list[int], bool]:
    colour = state[i]
    group, todo, libs = {i}, [i], False
    while todo:
        for j in inner[todo.pop()]:
            if state[j] == EMPTY:
                libs = True
            elif state[j] == colour and j not in group:
                group.add(j)
                todo.append(j)
    return list(group), libs


def _single_death(board: Scratch, shapes: Shapes, mouth: Template) -> bool:
    """J12 (J-A9): with the ko stone of one colour the strings next to it can reach two
    breaths by a move of their owner, with the other colour at most one breath."""
    a, b = sorted(mouth.points)
    if board[a] == EMPTY:
        a, b = b, a
    c = board[a]
    now = _best_breaths(board, shapes, a)
    flipped = _best_breaths(board.with_changes({a: EMPTY, b: 3 - c}), shapes, b)
    if now is None or flipped is None:
        return False
    return (now >= 2 and flipped <= 1) or (flipped >= 2 and now <= 1)


def _best_breaths(board: Scratch, shapes: Shapes, stone: int) -> int | None:
    """The most, over one move of their owner that neither captures the ko stone nor takes a
    breath from any of them (a pass included), of the fewest breaths among the strings next to
    the ko stone; None if there are none."""
    nbrs = shapes.nbrs
    owner = 3 - board[stone]
    reps = [n for n in nbrs[stone] if board[n] == owner]
    if not reps:
        return None
    return best_min_breaths(board, shapes, reps, owner, keep=stone)


def best_min_breaths(board: Scratch, shapes: Shapes, reps: list[int], owner: int, keep: int = -1,
                     skip: int = -1) -> int:
    """The most, over ``owner``'s moves (a pass included; not ``skip``; none that empties
    ``keep`` or takes a breath from one of the strings), of the fewest breaths among the
    strings at ``reps``, counted up to 2 (the verdicts only ask ">= 2" and "<= 1"). A string
    without breaths stays at none (J12's note). Only a play on a breath of a string with fewer
    than two, or a capture next to it, can raise the fewest."""
    nbrs = shapes.nbrs
    best = min(len(string(board, nbrs, r, 2)[1]) for r in reps)
    if best == 0 or best >= 2:
        return best
    strings = [string(board, nbrs, r) for r in reps]
    short = [(stones, libs) for stones, libs in strings if len(libs) < 2]
    # a play on a breath first, a capture beside them only if none of those raises the fewest
    # (as in _answer: any one move will do)
    moves = set().union(*[libs for _, libs in short]) - {skip}
    for m in sorted(moves):
        if _raises(board, nbrs, reps, strings, owner, keep, m):
            return 2
    captures = set()
    for stones, _ in short:
        captures |= breaths_in_atari(board, nbrs, stones, 3 - owner)
    captures.discard(skip)
    for m in sorted(captures - moves):
        if _raises(board, nbrs, reps, strings, owner, keep, m):
            return 2
    return best


def _raises(board: Scratch, nbrs: Sequence[Sequence[int]], reps: list[int], strings: list[tuple[list[int], set[int]]],
            owner: int, keep: int, m: int) -> bool:
    """Does ``owner``'s move on ``m`` give every string at ``reps`` two breaths, taking none from
    any of them and leaving ``keep`` (where it is a point) on the board?"""
    after = play(board, nbrs, m, owner)
    if after is None or (keep >= 0 and after[keep] == EMPTY):
        return False
    counts = [len(string(after, nbrs, r)[1]) if after[r] == owner else 0 for r in reps]
    if any(n < len(libs) for n, (_, libs) in zip(counts, strings)):
        return False
    return min(counts) >= 2


def disturbing(board: Scratch, after: Scratch, shapes: Shapes, ko: KoPosition, kind: Kind, colour: int,
               p: int) -> bool:
    """J16: is ``colour``'s ko stone move at ``p`` in ``ko`` (of type ``kind`` before the
    move, J-A11) disturbing it? ``after`` is the board after the move."""
    nbrs = shapes.nbrs
    if kind.stable_life:
        # (a): it takes a breath from an opponent string that stays on the board ...
        if any(after[n] == 3 - colour for n in nbrs[p]):
            # ... unless it is next to opposing triple ko stones and to no ko stone of its own,
            # judged before the move (J-A11): a triple ko string's one breath is the point of the
            # mouth it is next to, so a stone there captures it and after the move it is gone
            triple = any(board[n] == 3 - colour and shapes.in_mouth(board, n)
                         and len(string(board, nbrs, n)[0]) == 3 for n in nbrs[p])
            own_ko = any(board[n] == colour and shapes.in_mouth(board, n) for n in nbrs[p])
            if not triple or own_ko:
                return True
    if kind.single_life:
        for n in nbrs[p]:
            if board[n] == colour and len(string(board, nbrs, n)[0]) == 1 and shapes.in_mouth(board, n):
                return True
    if kind.stable_death:
        if any(board[r] == colour and len(string(board, nbrs, r, 2)[1]) == 1 for r in ko.coupling):
            return True
    if kind.single_death:
        reps, seen = [], set()
        for q in ko.points:
            for n in nbrs[q]:
                if n not in ko.points and board[n] == colour and n not in seen and not shapes.in_mouth(board, n):
                    stones = string(board, nbrs, n)[0]
                    seen.update(stones)
                    reps.append(n)
        if reps and best_min_breaths(board, shapes, reps, colour, skip=p) < 2:
            return True
    return False
