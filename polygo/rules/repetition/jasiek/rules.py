"""The four rules of Jasiek's New Ko Rules (1998): basic ko, fighting, disturber, prohibition.

Read beside ``shared/rule-texts/jasiek-new-ko-rules-1998.txt`` and its spec. A stone play is
checked against R1, R2, R3 and R4 in that order, one reason per refusal (J-A15). Whatever a
play needs from the position before it (is it a ko stone move, in which ko position, is it
disturbing, which action of R4 it is) is worked out once, by :meth:`NewKoRules.refuse` or the
pre-play hook :meth:`NewKoRules.before_stone`, and used again by :meth:`stone_played`; but the ko
type a ko stone move's R4 action and R2-R3 state need is worked out only when something reads
them (:class:`Unclassified`).

Terms: a *ko stone move in K* is a board play on a point of ko position K (of the position
before it) whose stone is a ko stone after it; K is known by its point set (J-A16). R4's
*class* of a position is the set of points of all ko positions with the stones outside it
(J-A14); the class of a move is the class of the position it is played from.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ...errors import Reason
from ...position import EMPTY, Chain, Position, Probe
from ...ruleset import KoShapes
from ..rule import RepetitionRule
from .analysis import Analysis
from .kinds import KoPosition, classify, disturbing
from .shapes import Scratch, Shapes, shapes_for, string

if TYPE_CHECKING:
    from ...view import GameView

Ko = frozenset  # a ko position, known by its points


class Facts(NamedTuple):
    """What a stone play would be under the rules, from the position before it."""

    reason: Reason | None
    action: Any                 # R4's action: a point, ("fighting", K) or ("disturber", K)
    ko: Ko | None               # the ko position it is a ko stone move in
    first: bool                 # the first ko stone in this fighting ko from this class (ignored by R4)
    disturbs: bool              # J16
    becomes: bool               # and so becomes the disturber (R3)
    config: tuple[int, ...]     # the stones on ``ko`` before the play


def _plain(p: int) -> Facts:
    return _new_facts(Facts, (None, p, None, False, False, False, ()))


# Facts' own constructor is a Python function; the facts of a plain play are built on every play.
_new_facts = tuple.__new__


@dataclass
class Disturber:
    seat: int
    seen: set[tuple[int, ...]] = field(default_factory=set)   # configurations since just before he began
    barred: bool = False


class Unclassified:
    """The action of a ko stone move whose ko type (in the position it was played from) was
    not known when it was made: worked out when read, from the position now with the stones
    that differ put back (:meth:`_played_from`). It stands in R4's record of the class it was
    played from until a play from that class reads the record
    (:meth:`NewKoRules._classify_records`), and for R2's and R3's state after it until the next
    play's facts or ``ko_analysis`` read them (:meth:`NewKoRules._decide`); the next play or
    pass drops them, as it drops the state itself. Made only where the type cannot
    change the move's own verdict: R1 and R2 refuse it not, R3 and R4 cannot
    (:meth:`NewKoRules._type_waits`). Most ko captures would otherwise work out a type nothing
    reads (docs/performance.md)."""

    __slots__ = ("seat", "p", "ko", "position", "kept", "changes", "had_two", "config", "first", "_decided")

    def __init__(self, seat: int, p: int, ko: Ko, position: KoPosition, kept: dict[int, int],
                 changes: dict[int, int], had_two: frozenset[frozenset[int]], config: tuple[int, ...], first: bool):
        self.seat, self.p, self.ko, self.position, self.kept = seat, p, ko, position, kept
        self.changes, self.had_two, self.config, self.first = changes, had_two, config, first
        self._decided: tuple[Any, bool, bool] | None = None

    def decide(self, shapes: Shapes, pos: Position, differ: Iterable[int]) -> tuple[Any, bool, bool]:
        """(R4's action, the first ko stone in a fighting ko from its class, becomes the
        disturber): what :meth:`NewKoRules._work_out` gives with the type read then. ``pos``
        is the position now, which differs from the one played from on ``differ`` alone."""
        if self._decided is None:
            before = self._played_from(pos, differ)
            kind = classify(before, shapes, self.position, self.had_two)
            if not kind.disturbing:
                self._decided = (("fighting", self.ko), self.first, False)
            else:   # no disturber of the ko: a disturbing move becomes it
                disturbs = disturbing(before, before.with_changes(self.changes), shapes, self.position, kind,
                                      self.seat + 1, self.p)
                self._decided = (("disturber", self.ko) if disturbs else self.p, False, disturbs)
        return self._decided

    def _played_from(self, pos: Position, differ: Iterable[int]) -> Scratch:
        """The position played from: the position now with the stones on ``differ`` put back
        (``kept`` holds them: the stones the play changed, and those on the ko positions'
        points), so that the types read its strings off the chains now (:func:`string`). Right
        after the play (:meth:`NewKoRules._decide`) ``differ`` is what it changed; from R4's
        record, the position now is of the class played from, which holds the stones outside
        the ko positions' points (:meth:`Analysis._class`), and ``differ`` is those points."""
        now, kept = pos.stones, self.kept
        return Scratch(now, {q: kept[q] for q in differ if now[q] != kept[q]}, chains=pos.chain)


_UNPLAYED: tuple[frozenset, frozenset] = (frozenset(), frozenset())   # R4: a class nobody has played from
# hot_points while asleep, and walls with no lone stone in atari (see _sleep)
_NOWHERE: frozenset[int] = frozenset()


class NewKoRules(RepetitionRule):
    two_players = True
    # R1-R3 refuse only plays in ko positions (a recapture is on the mouth of the ko it takes
    # back), R4 plays on the points of its actions in the class of the position: hot_points (see
    # _heat). Elsewhere the quick path makes the play: a capture is shown to before_stone first
    # (the points it changed move the analysis on), a plain play reaches stone_played alone, or
    # only walled and alone while the rule is asleep (see _sleep)
    watches_before_stone = True
    sees_captures = True

    def __init__(self, game: "GameView"):
        super().__init__(game)
        self.shapes = shapes_for(game.board, game.rules.ko_shapes is KoShapes.RECONSTRUCTED)
        self._rows = self.shapes.rows4
        self._pairs_only, self._nbrs, self._pairs = self.shapes.pairs_only, self.shapes.nbrs, self.shapes.pairs

    def reset(self) -> None:
        self.had_two: set[frozenset[int]] = set()
        self.analysis = Analysis(self.shapes)
        self.analysis.rebuild(self.game.position, self.had_two)
        if self._rows:
            self._note_row4()   # the set-up position counts as one "after a move" (J8)
        self._basic: tuple[int, int] | None = None        # R1: (capturing stone, captured point)
        # R2: (ko, the seat it bars next) after a ko stone in a ko that was fighting before it and
        # is still a ko after it; it bars only if the ko is fighting now (see _fights: read lazily)
        self._fight: tuple[Ko, int] | None = None
        self._disturbers: dict[Ko, Disturber] = {}        # R3
        # R2's and R3's state after the last play while its type is not worked out (see _decide)
        self._undecided: Unclassified | None = None
        # R4, by class key (Analysis.class_key: an int)
        self._done: dict[Any, tuple[set, set]] = {}       # class -> actions per seat
        # point -> the record of the plain play on it not yet in _done, or None (_defer)
        self._deferred: list[Any] = [None] * len(self.game.position.stones)
        self._first: dict[Any, set[Ko]] = {}             # class -> fighting kos with a first ko stone
        self._unread: set[Any] = set()                   # classes whose record holds an Unclassified
        self._memo: dict[tuple[int, int], Facts] = {}
        # (p, facts, changed, made_at, single_ko) from before_stone for _moved_on, or (p, None,
        # the chains captured, None, -1) for _captured_quietly
        self._pending: tuple[int, Facts | None, Any, list[int] | None, int] | None = None
        self.hot_hashes = self._done   # (see _sleep)
        pos = self.game.position
        # lone stones that may be in atari (see _sleep): more are noted as plays make them (no
        # look over the points on an empty board: a tenth of a new game's cost)
        self._alone = {q for q, c in enumerate(pos.chain) if c is not None and len(c.stones) == 1
                       and len(c.libs) == 1} if any(pos.stones) else set()
        self._walls: set[int] | None = None   # walls while asleep, None until worked out again
        self.walls: Container[int] = _NOWHERE   # read only while asleep (see _sleep)
        self.mouth_watch: list[Any] | None = None   # asleep: the quick path's store (see _sleep)
        self.after_quiet_play = NewKoRules.stone_played
        self._settle()

    def _heat(self) -> None:
        """``hot_points``: the points of the ko positions, and those R4 bars a seat from now."""
        ko_at, now = self.analysis.ko_at, self._now
        if now is _UNPLAYED:
            self.hot_points = ko_at
        else:
            self.hot_points = {*ko_at, *(a for a in now[0] if type(a) is int), *(a for a in now[1] if type(a) is int)}

    # --- the hot path -----------------------------------------------------------------------

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        if p not in self.analysis.ko_at:
            # not in a ko position: no ko stone move in one, and no recapture (R1-R3 pass)
            return Reason.PROHIBITION if p in self._now[seat] else None
        return self._facts(seat, p, probe).reason

    def suspects(self, seat: int) -> list[int]:
        """The points of the ko positions (R1-R3) and the points R4 prohibits now."""
        return [*self.analysis.ko_at, *(a for a in self._now[seat] if type(a) is int)]

    def _facts(self, seat: int, p: int, probe: Probe) -> Facts:
        facts = self._memo.get((seat, p))
        if facts is None:
            facts = self._memo[(seat, p)] = self._work_out(seat, p, probe)
        return facts

    def _work_out(self, seat: int, p: int, probe: Probe) -> Facts:
        pos, a, shapes = self.game.position, self.analysis, self.shapes
        colour = seat + 1
        changes = {p: colour}
        for chain in probe.captured:
            changes.update(dict.fromkeys(chain.stones, EMPTY))
        if probe.suicide:
            changes[p] = EMPTY
            for chain in probe.own:
                changes.update(dict.fromkeys(chain.stones, EMPTY))
        if self._pairs_only:
            ko_stone = changes[p] == colour and shapes.stone_in_pair(pos.stones, changes, p, colour)
        else:
            ko_stone = changes[p] == colour and shapes.in_mouth(Scratch(pos.stones, changes), p)
        kos = a.ko_at.get(p, []) if ko_stone else []
        ko = kos[0] if kos else None
        config = a.config(pos, ko) if ko is not None else ()
        action: Any = p
        first = disturbs = becomes = False
        reason = None
        if self._undecided is not None and self._undecided.ko in kos:
            # R2's and R3's state after the last play, read below only for a ko stone in its ko
            # (a play elsewhere drops that state: see _moved_on)
            self._decide()
        if self._basic is not None and any(c.stones == [self._basic[0]] for c in probe.captured):
            reason = Reason.BASIC_KO
        elif self._fight is not None and self._fight[1] == seat and any(k == self._fight[0] for k in kos) \
                and self._fights():
            reason = Reason.FIGHTING
        if reason is not None:   # refused: what follows would only fill in facts no verdict reads
            return Facts(reason, action, ko, first, disturbs, becomes, config)
        if a.class_key in self._unread:   # R4's record of this class, read below
            self._classify_records(a.class_key, p, ko)
        if ko is not None:
            kind = a.kinds.known(ko)
            if kind is None and self._type_waits(seat, p, ko):
                # nothing here reads the type: R4's action waits for it (see Unclassified)
                kept = (*a.union, *changes)   # (see Unclassified._played_from)
                action = Unclassified(seat, p, ko, a.kos[ko], dict(zip(kept, map(pos.stones.__getitem__, kept))),
                                      changes, frozenset(self.had_two), config,
                                      ko not in self._first.get(a.class_key, ()))
                return Facts(None, action, ko, False, False, False, config)
            if kind is None:
                kind = a.kinds[ko]
            if not kind.disturbing:
                action = ("fighting", ko)
                first = ko not in self._first.get(a.class_key, ())
            else:
                before = Scratch(pos.stones, chains=pos.chain)
                disturbs = disturbing(before, before.with_changes(changes), shapes, a.kos[ko], kind, colour, p)
                current = self._disturbers.get(ko)
                if disturbs:
                    if current is not None and current.seat == seat and current.barred:
                        reason = Reason.DISTURBER
                    becomes = current is None or (current.seat != seat and current.barred)
                    if becomes:
                        action = ("disturber", ko)
        if reason is None and not first and action in self._now[seat]:
            reason = Reason.PROHIBITION
        return Facts(reason, action, ko, first, disturbs, becomes, config)

    def _type_waits(self, seat: int, p: int, ko: Ko) -> bool:
        """May R4's action of ``seat``'s ko stone move on ``p`` in ``ko`` wait for the ko's type
        (an :class:`Unclassified`)? Yes unless the type can change the move's own verdict:
        through R3 when the ko has a disturber, or through R4 when an action the move may be (a
        ko stone in this fighting ko, becoming its disturber, or the point) is among the player's
        actions in the class already. (Only those: the records :meth:`_classify_records` leaves
        undecided are of other kos and points.) In a ko fight among many kos the class often
        comes back with actions of both players in it, none of them this move's: on a 32x32
        grid's random games this leaves half the types unread."""
        if ko in self._disturbers:
            return False
        mine = self._now[seat]
        return not mine or (p not in mine and ("fighting", ko) not in mine and ("disturber", ko) not in mine)

    # --- what happened --------------------------------------------------------------------

    def before_stone(self, seat: int, p: int, probe: Probe) -> None:
        if self.mouth_watch is not None:
            self._wake()
            if probe.captured and not probe.suicide:   # (see _captured_quietly)
                self._pending = (p, None, probe.captured, None, -1)
                return
        if p not in self.analysis.ko_at and not probe.captured and not probe.suicide:
            # a plain play on R4's points, or to a class R4 has actions in, or on walls to watch:
            # stone_played's first branch records it as it records a quiet play (R4's record
            # deferred, see _defer), with the lone stones it puts in atari noted there
            return
        # a play outside every ko position is no ko stone move in one: its facts are plain
        facts = self._facts(seat, p, probe) if p in self.analysis.ko_at else _plain(p)
        changed = {p}
        made_at = [p]
        for chain in probe.captured:
            changed.update(chain.stones)
            if len(chain.stones) == 1:
                made_at.append(chain.stones[0])
        if probe.suicide:
            for chain in probe.own:
                changed.update(chain.stones)
        captured = probe.captured[0].stones if len(probe.captured) == 1 else []
        single_ko = captured[0] if len(captured) == 1 and captured[0] in self.analysis.ko_stones else -1
        self._pending = (p, facts, changed, made_at, single_ko)

    def stone_played(self, index: int, seat: int, p: int) -> None:
        pending, a, done = self._pending, self.analysis, self._done
        if pending is None:
            # a play outside the ko positions that captured nothing (most plays, but while the
            # rule is asleep they do not come here: see _sleep). R4 records its point (deferred,
            # see _defer); it is no ko stone move, so R1-R3 bar nothing after it
            pos = self.game.position
            board = pos.stones
            colour = board[p]
            # the class key moved on by the stone's key: R4's deferred record (see _defer), and
            # the class after the play where the analysis moves on by that alone (below)
            self._deferred[p] = moved = a.class_key ^ pos._z[colour][p]
            if self._pairs_only:
                lone: list[int] = []   # the lone stones in atari beside p or on it (see _sleep)
                made = a.made_by(pos, p, lone)
                c = pos.chain[p]
                if len(c.libs) == 1 and len(c.stones) == 1:
                    lone.append(p)
                if lone:
                    self._alone.update(lone)
                    self._walls = None
                if made is not None or p in a._read:
                    a.placed(pos, p, self.had_two, made)
                elif not a.matched or (p not in a.union and (c.stones[-1] == p or not a._beside)):
                    # no mouth before the play nor after it (the class is the position's hash),
                    # or a ko on the board and the play away from its points, joining no strings
                    # kept beside the mouths (see Analysis._rejoin) and away from the cached
                    # types' reads (two-point mouths: no 4-in-a-row clause): Analysis.placed's
                    # first and last cases, written out for speed
                    a.class_key = moved
                else:
                    a.placed(pos, p, self.had_two, None)
            else:
                a.placed(pos, p, self.had_two, None)
            if self._rows:
                self._note_row4()
            self._basic = self._fight = self._undecided = None
            if self._disturbers:
                self._disturbers = {}
        else:
            self._pending = None
            if pending[1] is None:
                self._captured_quietly(seat, p, pending[2])
            else:
                self._moved_on(seat, p, *pending[1:])
        if self._memo:
            self._memo = {}
        self._now = now = done.get(a.class_key, _UNPLAYED)
        if now is _UNPLAYED and a.matched:   # a ko on the board, no R4 action: _settle written out
            self.hot_points = a.ko_at
        else:
            self._settle()

    def _settle(self) -> None:
        """After a play (or a reset): R4's actions in the class of the position, ``hot_points``,
        and asleep where it may be (see :meth:`_sleep`)."""
        a = self.analysis
        self._now = now = self._done.get(a.class_key, _UNPLAYED)
        if now is not _UNPLAYED:
            self._heat()
        elif a.matched or a._read or not self._pairs_only:
            self.hot_points = a.ko_at
        else:
            self._sleep()

    def _sleep(self) -> None:
        """Asleep: no mouth on the board (so no ko position and no R1-R3 state), no cached ko
        type, no R4 action in the class of the position, two-point mouths alone. Then a plain
        play that makes no mouth leaves stone_played only R4's deferred record (the class of the
        position it was played from is that position's hash: the record is the hash after the
        play, which the quick path stores in ``_deferred``, our ``mouth_watch`` while asleep, see
        _defer) and the class key (the new hash: the analysis's is not moved on while asleep,
        see _wake). Each play that may make a mouth reaches the rule:

        - a capture (:meth:`_captured_quietly`), any play on the readable path (a suicide; one that makes a
          position whose class R4 has actions in: ``hot_hashes`` is ``_done``, whose keys are
          hashes where there is no ko position; ``hot_points`` is empty): :meth:`before_stone`;
        - a lone stone placed in atari or an opponent's lone stone put in atari, the mouth's
          stone S (:meth:`alone`, after the play): the rule wakes only if S's breath E is
          walled already;
        - a stone beside E, the breath of a lone stone S in atari, when E's other neighbours are
          S's colour or empty: it may wall E. These points are ``walls`` while asleep: the quick
          path calls :meth:`walled` after a play on one, which wakes the rule if it made a mouth.

        (A two-point mouth is a lone stone S in atari at E, every other neighbour of E S's
        colour: Analysis.made_by.) Most plays of a game are quiet: four in five of the
        stone plays of the 19x19 records."""
        self.mouth_watch = self._deferred
        walls = self._walls
        if walls is None:   # a lone stone noted in atari, or a readable-path play, since they were worked out
            walls = self._walls = self._walling() if self._alone else _NOWHERE
        self.hot_points, self.walls = _NOWHERE, walls

    def _walling(self) -> set[int]:
        """The empty points beside the breath E of each lone stone S in atari whose E has no
        neighbour of the other colour: a stone there may wall E (the lone stones no longer in
        atari are forgotten; a stone placed alone in atari or put in atari is noted again).
        Worked out again only after a lone stone is noted or a readable-path play: a quiet play
        between them puts no lone stone in atari, takes no stone off, and leaves a superset."""
        alone, pos, nbrs = self._alone, self.game.position, self._nbrs
        chain, stones = pos.chain, pos.stones
        watch: set[int] = set()
        for s in list(alone):
            c = chain[s]
            if c is None or len(c.stones) != 1 or len(c.libs) != 1:
                alone.discard(s)
                continue
            other = 3 - stones[s]
            for e in c.libs:
                empty = []
                for r in nbrs[e]:
                    v = stones[r]
                    if v == other:
                        break
                    if v == EMPTY:
                        empty.append(r)
                else:
                    watch.update(empty)
        return watch

    def _wake(self) -> None:
        """Awake again: before a play that may make a mouth; the class key of the position
        (no ko position: its hash) is moved on again."""
        self.mouth_watch = None
        self.analysis.class_key = self.game.position.hash

    def alone(self, index: int, seat: int, p: int, s: int) -> None:
        """After a quiet play on ``p``: ``s`` is a lone stone in atari at its breath E, so a
        mouth's stone now or later (see _sleep). Noted; while still asleep, if E is walled by
        ``s``'s colour the play made a mouth and stone_played does its work after all, else E's
        empty neighbours are walls to watch when it has no neighbour of the other colour (most
        plays that put a lone stone in atari while asleep make no mouth)."""
        self._alone.add(s)
        if self.mouth_watch is None:   # woken by another stone of this play: stone_played has seen it
            self._walls = None
            return
        pos = self.game.position
        stones, colour = pos.stones, pos.stones[s]
        watch = []
        for e in pos.chain[s].libs:
            for r in self._nbrs[e]:
                v = stones[r]
                if v == EMPTY:
                    watch.append(r)
                elif v != colour:
                    return   # E has a neighbour of the other colour: no mouth, no walls to watch
        if watch:
            self.walls = self._walls = {*self._walls, *watch}
        else:   # E walled by s's colour: a mouth
            self._made_mouth(index, seat, p)

    def walled(self, index: int, seat: int, p: int) -> None:
        """After a quiet play on one of ``walls`` (the quick path calls it before any
        :meth:`alone` of the play, so still asleep): if the stone made a mouth (walled a lone
        stone's breath, or is a mouth's stone S or beside it), stone_played does its work after
        all, as in :meth:`alone`; else the play was quiet as any other (the walls are still a
        superset of those to watch, see :meth:`_walling`). Instead of the readable path for every
        play on a wall: most make no mouth."""
        pos = self.game.position
        if self.analysis.made_by(pos, p) is not None:
            self._made_mouth(index, seat, p)

    def _made_mouth(self, index: int, seat: int, p: int) -> None:
        """The quiet play on ``p`` made a mouth (:meth:`alone`, :meth:`walled`): the rule wakes,
        its class key the position played from's (while asleep it was not moved on, see
        :meth:`_wake`), and stone_played does its work after all."""
        pos = self.game.position
        self.mouth_watch = None
        self.analysis.class_key = pos.hash ^ pos._z[seat + 1][p]
        self.stone_played(index, seat, p)

    def _moved_on(self, seat: int, p: int, facts: Facts, changed: set[int], made_at: list[int],
                  single_ko: int) -> None:
        """After a play :meth:`before_stone` saw: R4's record, the analysis, and R1-R3's state."""
        a, pos = self.analysis, self.game.position
        if len(changed) > 1:   # stones taken off: their deferred classes may come back
            # the stones taken off are the opponent's, or the player's own in a suicide
            self._defer(changed, seat if pos.stones[p] == EMPTY else 1 - seat)
        # R4: the action counts in the class of the position it was played from
        unclassified = type(facts.action) is Unclassified
        if facts.first:
            self._first.setdefault(a.class_key, set()).add(facts.ko)
        else:
            self._done.setdefault(a.class_key, (set(), set()))[seat].add(facts.action)
            if unclassified:
                self._unread.add(a.class_key)
        self._undecided = None
        a.update(pos, changed, self.had_two, made_at)
        if self._rows:
            self._note_row4()
        self._note_alone(p)
        # R1: a single ko stone that has captured a single ko stone
        chain = pos.chain[p]
        single = chain is not None and len(chain.stones) == 1 and p in a.ko_stones
        self._basic = (p, single_ko) if single and single_ko >= 0 else None
        # R2: a ko stone in a fighting ko that existed before and is still one after
        ko = facts.ko
        still = ko is not None and ko in a.kos
        if unclassified:   # R2 and R3 wait for the type (see _decide)
            self._fight = None
            self._disturbers = {}
            self._undecided = facts.action if still else None
            return
        fought = isinstance(facts.action, tuple) and facts.action[0] == "fighting"
        self._fight = (ko, 1 - seat) if fought and still else None
        # R3: only the disturber of the ko whose ko stone move-sequence goes on stays
        disturbers = {}
        if still:
            current = self._disturbers.get(ko)
            if facts.becomes:
                current = Disturber(seat, {facts.config})
            if current is not None and a.kinds[ko].disturbing:
                config = a.config(pos, ko)
                current.barred = current.barred or config in current.seen
                current.seen.add(config)
                disturbers[ko] = current
        self._disturbers = disturbers

    def _captured_quietly(self, seat: int, p: int, captured: list[Any]) -> None:
        """After a capture (no suicide) made while the rule was asleep: what :meth:`_moved_on`
        does with a plain play's facts, less what is empty while asleep (see :meth:`_sleep`: no
        mouth, no cached type, no R1-R3 state, no R4 action in the class, two-point templates
        alone; so no ko stone, no basic ko, no fighting ko, no disturber after it either).
        R4's record of the play is deferred as the quick path's plain plays' are (its stone
        stands: see :meth:`_defer`); the class it was played from is the hash before the play
        (``class_key``, see :meth:`_wake`). The analysis: :meth:`Analysis.took_quietly`.
        Cheaper than :meth:`before_stone`'s probe of the facts and :meth:`_moved_on`."""
        pos, a = self.game.position, self.analysis
        for chain in captured:   # the opponent's stones taken off: their deferred classes may come back
            self._defer(chain.stones, 1 - seat)
        self._deferred[p] = a.class_key ^ pos._z[seat + 1][p]   # (see _defer: the stone's key put in)
        a.took_quietly(pos, p, self.had_two)
        self._note_alone(p)

    def _note_alone(self, p: int) -> None:
        """After a play the quick path did not make: the lone stones in atari it left beside
        ``p`` or on it (see _sleep; the quick path's plays are noted by stone_played and
        alone)."""
        chain = self.game.position.chain
        for q in (p, *self._nbrs[p]):
            c = chain[q]
            if c is not None and len(c.stones) == 1 and len(c.libs) == 1:
                self._alone.add(q)
        self._walls = None   # and stones taken off may have freed a breath's neighbour

    def _defer(self, changed: Iterable[int], owner: int) -> None:
        """Put into ``_done`` R4's deferred records of the stones taken off (``owner``'s). A
        plain play on ``p`` of the quick path from class K is recorded only when its stone is
        taken off: K holds the stones outside its ko positions, ``p`` is outside them and empty
        in K, so no position of class K can come back (and ``_done`` be asked about it) while
        that stone stands. Most plays of a game are recorded this way, with a store in a list
        kept per point instead of a lookup and two sets, and most never: their stones are never
        taken off. The record is the class alone: the stone's colour says whose play it was,
        and the stones a play takes off are all one player's (so no tuple and no dict entry a
        play). The record is K's key with the stone's key put in (as the
        analysis moves the class key on by a play outside the ko positions, Analysis._class),
        so K's key is that less the stone's key: where there is no ko position it is the hash
        after the play, which the quick path stores while the rule is asleep without
        working out the hash before (every class key is an int)."""
        done, deferred, keys = self._done, self._deferred, self.game.position._z[owner + 1]
        for q in changed:
            key = deferred[q]
            if key is not None:
                deferred[q] = None
                key ^= keys[q]
                actions = done.get(key)
                if actions is None:
                    done[key] = actions = (set(), set())
                actions[owner].add(q)

    def _classify_records(self, key: Any, p: int, ko: Ko | None) -> None:
        """R4's record of class ``key`` with the Unclassified actions a play on ``p`` (a ko
        stone move in ``ko``, or no ko stone move when None) reads worked out: the action in
        the seat's set, or the ko in ``_first`` for the first ko stone in a fighting ko. Only
        those of ``ko`` or on ``p`` can be this play's action or say whether it is the first
        in ``ko``; the others wait for a play in their own ko (an Unclassified decides to its
        ko or its point), so a play costs the types of the ko it touches alone."""
        undecided = False
        for actions in self._done[key]:
            for u in [x for x in actions if type(x) is Unclassified]:
                if u.ko != ko and u.p != p:
                    undecided = True
                    continue
                actions.discard(u)
                action, first, _ = u.decide(self.shapes, self.game.position, self.analysis.union)
                if first:
                    self._first.setdefault(key, set()).add(u.ko)
                else:
                    actions.add(action)
        if not undecided:
            self._unread.discard(key)

    def _decide(self) -> None:
        """R2's and R3's state after the last play, a ko stone move whose type was not read
        (``_undecided``; the ko is still one): what :meth:`_moved_on` sets with the type."""
        u, self._undecided = self._undecided, None
        action, _, becomes = u.decide(self.shapes, self.game.position, u.changes)
        ko = u.ko
        if type(action) is tuple and action[0] == "fighting":
            self._fight = (ko, 1 - u.seat)
        a = self.analysis
        if becomes and a.kinds[ko].disturbing:
            current = Disturber(u.seat, {u.config})
            config = a.config(self.game.position, ko)
            current.barred = config in current.seen
            current.seen.add(config)
            self._disturbers = {ko: current}

    def _fights(self) -> bool:
        """Is R2's ko fighting in this position (the one right after the ko stone; ``_fight``
        lasts one move)? Its type is worked out only when a play in it or ``ko_analysis`` asks:
        after a basic ko capture the recapture is refused by R1 first, and most kos are left."""
        return not self.analysis.kinds[self._fight[0]].disturbing

    def _note_row4(self) -> None:
        """J8: a 4-in-a-row mouth that has had two ko strings on it after a move (only where the
        catalogue has 4-in-a-row templates)."""
        pos, nbrs = self.game.position, self.shapes.nbrs
        board = Scratch(pos.stones, chains=pos.chain)
        for m, t in self.analysis.mouths().items():
            if not t.row4 or m in self.had_two:
                continue
            seen: set[int] = set()
            count = 0
            for q in sorted(m):
                if pos.stones[q] != EMPTY and q not in seen:
                    seen.update(string(board, nbrs, q)[0])
                    count += 1
            if count >= 2:
                self.had_two.add(m)
                self.analysis.update(pos, set(), self.had_two)

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        # a pass ends every ko stone move-sequence and is the opponent's next move (R1, R2, R3)
        self._basic = self._fight = self._undecided = None
        if self._disturbers:
            self._disturbers = {}
        if self._memo:
            self._memo = {}

    # --- words and data -------------------------------------------------------------------

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.BASIC_KO:
            return (f"{point} would recapture at once the single ko stone that has just captured a single "
                    f"ko stone (basic ko rule)")
        if reason is Reason.FIGHTING:
            return (f"{player} may not play a ko stone in this fighting ko ({point}) right after the "
                    f"opponent's ko stone in it (fighting rule)")
        if reason is Reason.DISTURBER:
            return (f"{point} would disturb this disturbing ko again, but {player} is its disturber and its "
                    f"stones have repeated since {player} began (disturber rule)")
        if reason is Reason.PROHIBITION:
            seat = self.game.players.index(player)
            facts = self._memo.get((seat, self.game.board.index(point)))
            what = "played a stone on this point"
            if facts is not None and isinstance(facts.action, tuple):
                what = ("played a ko stone in this fighting ko" if facts.action[0] == "fighting"
                        else "become the disturber of this disturbing ko")
            return (f"{point}: {player} has already {what} from a board position of this class "
                    f"(the same ko positions and the same stones outside them) (prohibition rule)")
        return super().explain(reason, point, player)

    def ko_analysis(self) -> list[dict[str, Any]]:
        if self._undecided is not None:
            self._decide()
        out = self.analysis.describe(self.game.board.points)
        for entry, ko in zip(out, sorted(self.analysis.kos, key=sorted)):
            d = self._disturbers.get(ko)
            entry["disturber"] = d.seat if d is not None else None
            entry["disturber_barred"] = bool(d and d.barred)
            entry["fighting_bar"] = self._fight[1] if self._fight is not None and self._fight[0] == ko \
                and self._fights() else None
        return out

    def copy(self, game: "GameView") -> "NewKoRules":
        other = object.__new__(NewKoRules)
        other.__dict__.update(self.__dict__)
        other.game = game
        other.had_two = set(self.had_two)
        other.analysis = self.analysis.copy(game.position, other.had_two)
        other._disturbers = {k: Disturber(d.seat, set(d.seen), d.barred) for k, d in self._disturbers.items()}
        other._done = {k: (set(v[0]), set(v[1])) for k, v in self._done.items()}
        other._deferred = list(self._deferred)
        other._first = {k: set(v) for k, v in self._first.items()}
        other._unread = set(self._unread)   # (the Unclassified records are shared: each works its type out once)
        other._memo = dict(self._memo)
        other._alone = set(self._alone)
        other.hot_hashes = other._done
        if self.mouth_watch is not None:   # asleep: the class key was not moved on (see _wake)
            other.analysis.class_key = game.position.hash
        other.mouth_watch = None   # asleep again, with its own list, by _settle
        other._settle()
        return other

