"""The ko analysis of the position on the board: mouths, ko strings, couplings, ko positions
(NKR J1-J5), their types (J6-J15) and the prohibition rule's class of the position (R4).

Kept up to date play by play: a play changes the stones on a few points (the stone and what it
captured); only the mouths near those points can come or go (two-point mouths are found from
the chains, larger templates matched again), and a ko position's type is computed again only
when a changed point is among the points its last classification read. The ko positions are
regrouped only when the play could have changed them: when a mouth came or went, or it changed
a point of one (a lone mouth is a ko position of its own). With two mouths or more the strings
beside each are kept as the position's own chains, so a stone that joins one of them to another
string (the chain it made took the others' stones after its own) regroups the mouths from the
strings kept beside each; no string is walked. So a play costs the mouths and strings it
touches, never the size of the strings beside the kos nor the board. Most plays of a game with
a ko on the board are elsewhere, and then only the class key moves on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...position import EMPTY, Chain, Position
from .kinds import Kind, KoPosition, classify
from .shapes import Scratch, Shapes, Template, matches


class Kinds(Mapping):
    """The types of the ko positions, each worked out when first read: a type is read only by a
    play in its ko position (and by ``ko_analysis``), while a play anywhere may regroup them."""

    def __init__(self, analysis: "Analysis", pos: Position, had_two: set[frozenset[int]]):
        self._analysis, self._pos, self._had_two = analysis, pos, had_two
        self._known: dict[frozenset[int], Kind] = {}

    def __getitem__(self, k: frozenset[int]) -> Kind:
        kind = self._known.get(k)
        if kind is None:
            kind = self._known[k] = self._analysis._kind(self._pos, self._analysis.kos[k], self._had_two)
        return kind

    def known(self, k: frozenset[int]) -> Kind | None:
        """The type of ko position ``k`` if it is known without working it out (read before, or
        kept in the cache from an earlier position whose reads still hold), else None."""
        kind = self._known.get(k)
        if kind is None and self._analysis._cache:   # (no key built when nothing is cached: most kos)
            hit = self._analysis._cache.get(self._analysis._key(self._analysis.kos[k], self._had_two))
            if hit is not None:
                kind = self._known[k] = hit[0]
        return kind

    def __iter__(self) -> Iterator[frozenset[int]]:
        return iter(self._analysis.kos)

    def __len__(self) -> int:
        return len(self._analysis.kos)


class Analysis:
    """The analysis of one position (mutable: :meth:`update` moves it on by a play)."""

    def __init__(self, shapes: Shapes):
        self.shapes = shapes
        self.matched: set[int] = set()          # templates that are mouths now
        self.kos: dict[frozenset[int], KoPosition] = {}
        self.kinds: Mapping[frozenset[int], Kind] = {}
        self.ko_at: dict[int, list[frozenset[int]]] = {}
        self.ko_stones: set[int] = set()
        self.union: frozenset[int] = frozenset()
        # R4's class of the position as an int (see _class): the position's hash when there is
        # no ko position (most positions)
        self.class_key = 0
        self._union_key = 0                      # the ko positions' points' union keys (_class)
        self._cache: dict[tuple, tuple[Kind, set[int]]] = {}
        self._read: set[int] = set()             # the points the cached types read, all together
        self.classified = 0                      # classifications computed (not from the cache)
        # 2+ mouths: the normal strings beside each, the position's chains (see the module's doc)
        self._beside: dict[frozenset[int], frozenset[Chain]] = {}
        self._kept: list[Chain] = []                 # the strings of _beside, once each (_rejoin)
        self._rows_seen = 0                      # len(had_two) at the last grouping

    def copy(self, pos: Position, had_two: set[frozenset[int]]) -> "Analysis":
        """The same analysis of ``pos`` (a copy of this one's position; ``had_two`` the copy's)."""
        other = object.__new__(Analysis)
        other.__dict__.update(self.__dict__)
        other.matched = set(self.matched)
        if self._beside:   # the copy's own chains (a copied position clones them, stones in order)
            chain = pos.chain
            other._keep({m: frozenset(chain[c.stones[0]] or c for c in cs) for m, cs in self._beside.items()})
        other._cache = dict(self._cache)
        other._read = set(self._read)
        if isinstance(self.kinds, Kinds):
            other.kinds = Kinds(other, pos, had_two)
            other.kinds._known.update(self.kinds._known)
        return other

    def rebuild(self, pos: Position, had_two: set[frozenset[int]]) -> None:
        """From scratch: every template through a stone matched (a mouth holds one; the types
        are worked out when read)."""
        board, templates, containing = pos.stones, self.shapes.templates, self.shapes.containing
        # no look over the points of an empty board (every new game without set-up stones)
        candidates = {i for p, s in enumerate(board) if s != EMPTY for i in containing[p]} if any(board) else ()
        self.matched = {i for i in candidates if matches(board, templates[i])}
        self._cache, self._read = {}, set()
        self._derive(pos, had_two)

    def update(self, pos: Position, changed: set[int], had_two: set[frozenset[int]],
               made_at: Sequence[int] = ()) -> None:
        """After a play that changed the stones on ``changed``; ``made_at``: its stone and the
        lone stones it took off, the only points where it can have made a mouth's stone or
        empty point (see :meth:`_remade`)."""
        if len(changed) == 1:
            p = next(iter(changed))
            if pos.stones[p] != EMPTY:
                self.placed(pos, p, had_two, self.made_by(pos, p) if self.shapes.pairs_only else None)
                return
        board = pos.stones   # matching needs no read log: the list itself is quicker
        if self.shapes.pairs_only:
            if len(changed) == 2 and self._retaken(pos, changed, had_two):
                return
            moved = self._remade(pos, changed, made_at)
        else:
            moved = self._rematch(board, self._candidates(changed))
        stale = not changed.isdisjoint(self._read)   # a cached type read a changed point
        if stale:
            self._forget(changed)
        if moved or not changed.isdisjoint(self.union) or len(had_two) != self._rows_seen:
            self._derive(pos, had_two)
        else:
            if stale and self.kos:
                self.kinds = Kinds(self, pos, had_two)   # read again, from the cache where it holds
            if self._beside:   # the capturing stone may have joined strings beside the mouths
                self._rejoin(pos, had_two)
            self.class_key = self._class(pos)

    def _retaken(self, pos: Position, changed: set[int], had_two: set[frozenset[int]]) -> bool:
        """After a play that changed the stones on two points (two-point templates alone): were
        they a mouth's, the play leaving a stone on one, P, and the other, S, empty (a basic
        ko's capture: a stone on the empty point took the mouth's stone), with no other mouth
        standing near them and no mouth made but the same one with P as its stone
        (:meth:`made_by`)? Then nothing else came or went: the stone taken had no other
        breath, so its neighbours were P's colour and none of them was a lone stone in atari at
        S (it was not empty), and the only stones that lost a breath are the walls beside P,
        which ``made_by`` looks at. If so, the analysis is moved on here. :meth:`_derive`
        would give the same mouths (a template is a pair of points, whichever holds the stone)
        beside the same strings (no string was joined or taken off: P is a lone stone, its
        other neighbours S's colour) in the same ko positions, so the same ``ko_at``, union and
        union key, and the same class key: the stones on the ko positions' points are not in
        it, and the hash moved by exactly theirs. What is new is the ko stones and the types. Instead
        of :meth:`_remade` and a grouping from scratch, a third to a half of a ko capture's cost."""
        a, b = changed
        i = self.shapes.pairs[a].get(b)
        matched = self.matched
        if i not in matched or len(had_two) != self._rows_seen:
            return False
        stones = pos.stones
        p, s = (a, b) if stones[b] == EMPTY else (b, a)
        if stones[p] == EMPTY or stones[s] != EMPTY:
            return False
        if len(matched) > 1:
            area = self.shapes.area
            for j in matched:
                if j != i and not changed.isdisjoint(area[j]):
                    return False
        if self.made_by(pos, p) != [i]:
            return False
        if p in self._read or s in self._read:   # a cached type read a changed point
            self._forget(changed)
        ko_stones = set(self.ko_stones)
        ko_stones.discard(s)
        ko_stones.add(p)
        self.ko_stones = ko_stones
        self.kinds = Kinds(self, pos, had_two)
        return True

    def placed(self, pos: Position, p: int, had_two: set[frozenset[int]], made: list[int] | None) -> None:
        """:meth:`update` after a stone placed on ``p`` that took nothing off: what most plays
        are, so it is written for one point, in one piece. When the grouping stands, R4's class
        key moves on by the stone's own key (the stones outside the ko positions changed by that
        stone only, or not at all when ``p`` is in one), or is the position's hash when there
        is no ko position. With two-point templates alone, ``made`` is the mouths the stone made
        (:meth:`made_by`: the caller has looked, see ``NewKoRules.stone_played``); a mouth it
        unmade has ``p`` as its empty point (``p`` was empty, so it was no wall), so in a ko
        position."""
        board = pos.stones
        shapes = self.shapes
        if shapes.pairs_only:
            matched = self.matched
            if made is None and not matched:   # no mouth before the play nor after it: most plays
                if p in self._read:
                    self._forget({p})
                self.class_key = pos.hash
                return
            moved = False
            if made is not None:
                for i in made:
                    if i not in matched:
                        matched.add(i)
                        moved = True
            if p in self.union:   # p was the empty point of mouths: are they still mouths?
                moved = self._rematch(board, {i for i in shapes.containing[p] if i in matched}) or moved
        else:
            moved = self._rematch(board, self._candidates({p}))
        if p in self._read:   # a cached type read the point
            self._forget({p})
            stale = True
        else:
            stale = False
        union = self.union
        if moved or p in union or len(had_two) != self._rows_seen:
            self._derive(pos, had_two)
        elif not union:
            self.class_key = pos.hash
        else:
            if self._beside and pos.chain[p].stones[-1] != p:   # it joined strings: see _rejoin
                self._rejoin(pos, had_two)
            if stale:
                self.kinds = Kinds(self, pos, had_two)
            self.class_key ^= pos._z[board[p]][p]

    def took_quietly(self, pos: Position, p: int, had_two: set[frozenset[int]]) -> None:
        """:meth:`update` after a capture by the stone on ``p`` (no suicide) made with no mouth on
        the board and no cached type, two-point templates alone (``NewKoRules``'s quiet rule). A
        new mouth has the stone as its stone S, a wall, or a neighbour of S (what :meth:`made_by`
        finds), or a point taken off as its empty point E (what :meth:`_remade` looks for): then
        E's neighbours are all stones of one colour, so E was a lone stone taken off (each point
        of a larger string taken off has another beside it) and the capturing stone is one of
        its neighbours: E is a neighbour of ``p`` walled by ``p``'s colour, which
        :meth:`made_by` looks at too. Elsewhere the stones taken off only give liberties: no
        stone comes into atari."""
        made = self.made_by(pos, p)
        if made is None:   # update's last case: no mouth, no guard, no ko position
            self.class_key = pos.hash
        else:
            self.matched.update(made)
            self._derive(pos, had_two)

    def made_by(self, pos: Position, p: int, lone: list[int] | None = None) -> list[int] | None:
        """With two-point templates alone: the mouths that have the stone on ``p`` as a stone or
        a wall, or None (most plays). A two-point mouth is a stone S whose other neighbours are
        all the other colour, so a string of one stone whose only liberty is the mouth's empty
        point E, and an empty E whose neighbours are all S's colour. So ``p`` is S or beside E
        (then E is a neighbour of ``p`` whose neighbours are all ``p``'s colour, and S one of
        them in atari), or beside S (then S is an opponent's lone stone beside ``p``, in atari
        at E): found from the chains, not by matching templates. The opponent's lone stones in
        atari beside ``p`` are added to ``lone`` where it is given."""
        board, chain = pos.stones, pos.chain
        nbrs, pairs = self.shapes.nbrs, self.shapes.pairs
        made = None
        colour = board[p]
        for q in nbrs[p]:
            v = board[q]
            if v == EMPTY:
                for r in nbrs[q]:
                    if board[r] != colour:
                        break
                else:   # q is walled by the player's stones: is one of them a lone stone in atari?
                    for r in nbrs[q]:
                        c = chain[r]
                        if len(c.libs) == 1 and len(c.stones) == 1:
                            made = [pairs[r][q]] if made is None else [*made, pairs[r][q]]
            elif v != colour:
                c = chain[q]
                if len(c.libs) == 1 and len(c.stones) == 1:
                    if lone is not None:
                        lone.append(q)
                    for e in c.libs:
                        for r in nbrs[e]:
                            if board[r] != v:
                                break
                        else:
                            made = [pairs[q][e]] if made is None else [*made, pairs[q][e]]
        return made

    def _remade(self, pos: Position, changed: set[int], made_at: Sequence[int]) -> bool:
        """With two-point templates alone, after a play that took stones off: did a mouth come
        or go? The mouths standing on a changed point are matched again; a new one has the
        stone placed as a stone or a wall (:meth:`made_by`) or a point taken off as its empty
        point E (then E's neighbours are all one colour, and S one of them in atari at E): a
        point taken off is empty, so no wall, and it was a lone stone (a point of a larger
        string taken off has an empty neighbour now). So only ``made_at`` is looked at, not
        every stone a large capture took off, nor the templates around every empty point
        within two steps of a change."""
        board, chain = pos.stones, pos.chain
        shapes = self.shapes
        nbrs, pairs, matched = shapes.nbrs, shapes.pairs, self.matched
        gone = {i for i in matched if not changed.isdisjoint(shapes.area[i])}
        moved = self._rematch(board, gone) if gone else False
        for c in made_at:
            if board[c] != EMPTY:
                made = self.made_by(pos, c) or ()
            else:
                colour = board[nbrs[c][0]] if nbrs[c] else EMPTY
                if colour == EMPTY or any(board[r] != colour for r in nbrs[c]):
                    continue
                made = [pairs[r][c] for r in nbrs[c] if len(chain[r].libs) == 1 and len(chain[r].stones) == 1]
            for i in made:
                if i not in matched:
                    matched.add(i)
                    moved = True
        return moved

    def _rematch(self, board: list[int], candidates: set[int]) -> bool:
        """Match the candidate templates again; did a mouth come or go?"""
        templates, matched = self.shapes.templates, self.matched
        moved = False
        for i in candidates:
            if matches(board, templates[i]):
                if i not in matched:
                    matched.add(i)
                    moved = True
            elif i in matched:
                matched.discard(i)
                moved = True
        return moved

    def _forget(self, changed: set[int]) -> None:
        """Drop the cached types that read a changed point."""
        self._cache = {k: v for k, v in self._cache.items() if changed.isdisjoint(v[1])}
        self._read = set().union(*(v[1] for v in self._cache.values()))

    def _candidates(self, changed: set[int]) -> set[int]:
        """The templates whose match a change of the stones on ``changed`` may have changed:
        those near a changed point (the reconstructed catalogue; two-point templates alone are
        found from the chains, :meth:`_remade`)."""
        near = self.shapes.near
        return {i for c in changed for i in near[c]}

    def mouths(self) -> dict[frozenset[int], Template]:
        templates = self.shapes.templates
        out: dict[frozenset[int], Template] = {}
        for i in sorted(self.matched):
            out.setdefault(templates[i].points, templates[i])
        return out

    def _derive(self, pos: Position, had_two: set[frozenset[int]]) -> None:
        self._rows_seen = len(had_two)
        if not self.matched:   # no ko on the board (most positions of a game)
            self.ko_stones, self.kos, self.kinds, self.ko_at = set(), {}, {}, {}
            self.union, self.class_key = frozenset(), pos.hash
            self._keep({})
            self._union_key = 0
            return
        stones = pos.stones
        mouths = self.mouths()
        self.ko_stones = {p for m in mouths for p in m if stones[p] != EMPTY}
        if len(mouths) == 1:
            # a lone mouth is a ko position of its own whatever strings are beside it, so the
            # grouping reads nothing but the mouth and walks no string (half the groupings with
            # a mouth, at a third of the cost)
            ((points, t),) = mouths.items()
            self._keep({})
            self._place(pos, had_two, {points: KoPosition(points, (t,), ())})
        else:
            self._keep(self._strings_beside(pos, mouths))
            self._place(pos, had_two, self._ko_positions(mouths, self._beside))
        self.union = frozenset().union(*self.kos)
        keys = self.shapes.union_keys
        self._union_key = 0
        for u in self.union:
            self._union_key ^= keys[u]
        self.class_key = self._class(pos)

    def _place(self, pos: Position, had_two: set[frozenset[int]], kos: dict[frozenset[int], KoPosition]) -> None:
        """Keep ``kos`` as the ko positions, their types to be worked out when read."""
        self.kos = kos
        self.kinds = Kinds(self, pos, had_two)
        self.ko_at = {}
        for k in sorted(kos, key=sorted):
            for p in k:
                self.ko_at.setdefault(p, []).append(k)

    def _keep(self, beside: dict[frozenset[int], frozenset[Chain]]) -> None:
        """Keep ``beside`` as the strings beside the mouths, and its strings once each (a string
        beside two mouths of a ko position is beside both: :meth:`_rejoin` looks at it once)."""
        self._beside = beside
        self._kept = list(frozenset().union(*beside.values()))

    def _strings_beside(self, pos: Position,
                        mouths: dict[frozenset[int], Template]) -> dict[frozenset[int], frozenset[Chain]]:
        """The strings beside each mouth (not ko strings: J3), the position's chains: no string
        is walked (a coupling names its strings by a stone of each, :meth:`_ko_positions`)."""
        chain, ko_stones = pos.chain, self.ko_stones
        return {m: frozenset([chain[n] for walls in (t.out_a, t.out_b) for n in walls if n not in ko_stones])
                for m, t in mouths.items()}

    @staticmethod
    def _ko_positions(mouths: dict[frozenset[int], Template],
                      beside: dict[frozenset[int], frozenset[Chain]]) -> dict[frozenset[int], KoPosition]:
        """The ko positions (J2-J5): mouths beside the same strings form one, coupled by them
        (named by each string's first stone: any stone of it serves the types, and
        :meth:`describe` names each by its lowest)."""
        groups: dict[frozenset[Chain], list[Template]] = {}
        for m, t in mouths.items():
            groups.setdefault(beside[m], []).append(t)
        kos: dict[frozenset[int], KoPosition] = {}
        for adjacent, ts in groups.items():
            if len(ts) >= 2:
                ts.sort(key=lambda t: sorted(t.points))
            if len(ts) >= 2 and adjacent:
                points = frozenset().union(*(t.points for t in ts))
                coupling = tuple(sorted(c.stones[0] for c in adjacent))
                kos.setdefault(points, KoPosition(points, tuple(ts), coupling))
            else:
                for t in ts:
                    kos.setdefault(t.points, KoPosition(t.points, (t,), ()))
        return kos

    def _rejoin(self, pos: Position, had_two: set[frozenset[int]]) -> None:
        """After a stone that joined strings (two mouths or more): a string kept beside a mouth
        that joined another is no longer the position's own chain (the chain that took its
        stones is, :func:`~polygo.rules.position.join`); each such one is replaced by that chain and
        the mouths grouped again. The mouths, the ko stones and the points of the ko positions
        stay; only their grouping may change. A look at each string kept, not a walk."""
        chain = pos.chain
        for c in self._kept:
            if chain[c.stones[0]] is not c:
                break
        else:
            return
        self._keep({m: frozenset([chain[c.stones[0]] for c in cs]) for m, cs in self._beside.items()})
        kos = self._ko_positions(self.mouths(), self._beside)
        if kos != self.kos:
            self._place(pos, had_two, kos)

    def _class(self, pos: Position) -> int:
        """R4's class key (the points of the ko positions and the stones outside them) as one
        int: the position's hash with the keys of the stones on the ko positions' points taken
        out and each of those points' union key put in (``Shapes.union_keys``: random, as the
        position's keys, so two classes share a key as seldom as two positions a hash). So the
        position's hash where there is no ko position; and a play outside the ko positions that
        leaves them as they were moves it on by the stone's key, as it moves the hash (an int
        is also the cheapest key to record a play under, and the quick path's deferred records
        are moved on so)."""
        if not self.union:
            return pos.hash
        stones, z = pos.stones, pos._z
        key = pos.hash ^ self._union_key
        for u in self.union:
            if stones[u] != EMPTY:
                key ^= z[stones[u]][u]
        return key

    @staticmethod
    def _key(ko: KoPosition, had_two: set[frozenset[int]]) -> tuple:
        """The cache's key of a ko position's type: its points, mouths, coupling, and which of
        its 4-in-a-row mouths have had two ko strings (the rest is in the points it read)."""
        rows = frozenset(m.points for m in ko.mouths if m.row4 and m.points in had_two)
        return (ko.points, tuple(m.side_a for m in ko.mouths), ko.coupling, rows)

    def _kind(self, pos: Position, ko: KoPosition, had_two: set[frozenset[int]]) -> Kind:
        key = self._key(ko, had_two)
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0]
        reads: set[int] = set()
        kind = classify(Scratch(pos.stones, reads=reads, chains=pos.chain), self.shapes, ko, frozenset(had_two))
        self._cache[key] = (kind, reads)
        self._read |= reads
        self.classified += 1
        return kind

    def config(self, pos: Position, ko: frozenset[int]) -> tuple[int, ...]:
        """The stones on a ko position's points (R3's "ko position with the stones on it")."""
        stones = pos.stones
        return tuple([stones[p] for p in sorted(ko)])

    def describe(self, names: tuple[str, ...]) -> list[dict[str, Any]]:
        out = []
        for k in sorted(self.kos, key=sorted):
            ko, kind = self.kos[k], self.kinds[k]
            # each coupling string by its lowest point (the strings kept beside its first mouth)
            coupling = sorted(min(c.stones) for c in self._beside[ko.mouths[0].points]) if ko.coupling else []
            out.append({"points": [names[p] for p in sorted(k)],
                        "mouths": [[names[p] for p in sorted(m.points)] for m in ko.mouths],
                        "coupling": [names[p] for p in coupling],
                        "type": kind.type, "state": kind.state})
        return out
