"""Hansen 1996, "A Precise and Nearly Complete Description of the SST Ko Rules": cycle sets and
disallowed captures.

Read beside the text (``shared/rule-texts/hansen-sst-ko-1996.txt``) and docs/rules/hansen-sst.md:

- H8/H9, cycle sets: a capture that is the same as an earlier one (H7: same point, same captured
  points) and leaves the same board configuration (H6) has a cycle set: the points of every stone
  play since the first such capture. The opponent's next move may not be there. Keyed by the
  configuration left (spec A-1) unless ``keying="identity"``, where the set belongs to the capture
  and grows each time it is completed.
- A1', obvious cycle sets: a basic-ko capture (one stone taken at q, the capturing stone then a
  lone stone whose only liberty is q) has the cycle set {p, q} at once.
- H10-H15, disallowed captures: an unconstrained move that takes an opponent string from two
  liberties to one and saves no own string in atari is *potentially disallowed*; if the opponent's
  reply (``counter="immediate"``, spec A-7) or any later move of his (``"later"``) gives all those
  strings two liberties again without capturing the stone, the player may never again make an
  unconstrained move with the same signature (the stone's point, the captured points and the
  threatened stones).
- A3', two kos and one liberty (option ``a3``): an unconstrained basic-ko capture is refused when
  the captured stone touches an own string with one liberty that touches two basic ko mouths,
  of either colour.

The liberties before a play are what H11-H13 read, so this rule sees each stone play twice:
:meth:`before_stone` notes what the play captures and threatens, :meth:`stone_played` judges it;
the quick path (polygo/rules/quick.py) shows its ataris to :meth:`threatens` (no probe built), and where
the play captures nothing and there is nothing else to update (no cycle set, no earlier pending
move, no own string in atari), :meth:`threatens` makes it pending itself and the quick path
skips :meth:`stone_played`. Under the immediate reading the move then waits alone for the reply
(``_waiting``), and the quick path calls :meth:`replied`, H13 for a reply that captures
nothing, instead of :meth:`stone_played` (``after_quiet_play`` names which, or None when a
quiet play changes nothing here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..errors import Reason
from ..moves import Action
from ..position import EMPTY, Chain, Probe
from .rule import RepetitionRule

if TYPE_CHECKING:
    from ..view import GameView


_NONE: frozenset[int] = frozenset()
_new_tuple = tuple.__new__   # Noted's and Pending's own constructors are Python functions


class Pending(NamedTuple):
    """A potentially disallowed move (H12) waiting for the opponent's counteraction (H13)."""

    seat: int
    point: int
    signature: list[int]           # its points; a frozenset only once H15 disallows it
    threatened: list[int]          # one stone of each string the move threatened


class Noted(NamedTuple):
    """What :meth:`CycleSets.before_stone` saw of the play about to be made."""

    captured: Sequence[int]        # the points it captures
    configurations: int            # of a capture, the configuration it is made in and the one
                                   # it leaves (see CycleSets._cycle_set_of)
    threatened: list[int] | None   # one stone of each opponent string it takes from 2 liberties
                                   # to 1; None where it cannot be potentially disallowed (H12)
    signature: list[int] | None
    rescues: Sequence[int]         # one stone of each own string in atari whose liberties may grow
    basic_ko: bool


class CycleSets(RepetitionRule):
    watches_before_stone = True
    two_players = True

    def __init__(self, game: "GameView"):
        super().__init__(game)
        rules = game.rules
        self.basic_ko = rules.a1 != "off"
        self.tko = bool(rules.a3)
        self.by_identity = rules.keying == "identity"
        self.later = rules.counter == "later"
        # a play that captures or threatens is noted before it is made; the rest are refused
        # only on the cycle set's points and the disallowed signatures' (hot_points: see
        # _heat), and captures by A3' (option a3)
        self.sees_captures = self.sees_ataris = True
        self.refuses_captures = self.tko

    def reset(self) -> None:
        self._first: dict[int, int] = {}   # H8: a capture's configurations -> its live index
        self._identity: dict[tuple[int, frozenset[int]], frozenset[int]] = {}
        self._cycle_set: frozenset[int] = frozenset()   # of the last move; empty after a pass
        self._capture: tuple[int, int] = (-1, -1)       # who made that capture, and where
        self._pending: list[Pending] = []
        # the one move pending while the reply is awaited (see threatens), else None
        self._waiting: Pending | None = None
        self._banned: list[set[frozenset[int]]] = [set(), set()]
        self._banned_points: list[set[int]] = [set(), set()]
        self._noted: Noted | None = None   # None between plays: stone_played clears it
        # None: nothing pending, no cycle set, a quiet play changes nothing here; _REPLY:
        # nothing in _pending, no cycle set, the move in _waiting pending (see threatens)
        self.after_quiet_play = None
        self._banned_all: set[int] = set()   # the points of both seats' disallowed signatures
        self._heat()

    def _heat(self) -> None:
        """``hot_points``: the cycle set's points and the disallowed signatures' of either seat;
        ``_banned_all`` itself where there is no cycle set, and an empty tuple where there is
        nothing either (a third of the plays of the 19x19 records, over half of the 9x9's): the
        quick path asks it on every play, and an empty tuple answers that faster than a set."""
        cycle_set = self._cycle_set
        self.hot_points = cycle_set | self._banned_all if cycle_set else self._banned_all or ()

    # --- the hot path ----------------------------------------------------------------------

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        cycle_set = self._cycle_set
        if cycle_set and seat != self._capture[0]:
            # H9; and the opponent's move now is constrained (H10), which H15 and A3' never refuse
            return Reason.CYCLE_SET if p in cycle_set else None
        if p in self._banned_points[seat] and self.signature(p, probe) in self._banned[seat]:
            return Reason.DISALLOWED
        if self.tko and probe.captured and _basic_ko(probe) and self._two_kos_one_liberty(seat, probe):
            return Reason.TKO
        return None

    def suspects(self, seat: int) -> frozenset[int] | set[int]:
        """H9's cycle set while it binds ``seat``, else the points of its disallowed signatures
        (A3' refuses only captures, which the position suspects anyway)."""
        if self._cycle_set and seat != self._capture[0]:
            return self._cycle_set
        return self._banned_points[seat]

    @staticmethod
    def signature(p: int, probe: Probe) -> frozenset[int]:
        """H14: the stone's point, the points it captures, the stones of the strings it threatens."""
        points = [p]
        for c in probe.captured:
            points.extend(c.stones)
        if not probe.suicide:
            for c in probe.others:
                if len(c.libs) == 2:
                    points.extend(c.stones)
        return frozenset(points)

    # --- what a play changes -----------------------------------------------------------------

    def before_stone(self, seat: int, p: int, probe: Probe) -> bool | None:
        if probe.suicide:   # it threatens nothing, and its stone is gone (H12)
            return None
        chains = _threatened(probe.others)
        if not probe.captured:
            return self.threatens(seat, p, chains, probe.own) if chains else None
        threatened, signature = _threats(p, chains)
        self._note_capture(seat, p, probe, threatened, signature)
        return None

    def threatens(self, seat: int, p: int, chains: list[Chain], own: Sequence[Chain]) -> bool | None:
        """:meth:`before_stone` of a play that captures nothing and is no suicide (the quick
        path's ataris): is it potentially disallowed (H12)? Where it rescues nothing and there
        is no cycle set or earlier pending move for :meth:`stone_played` to update (97 of the
        112 ataris a run of the 19x19 records), it is made pending here, and True returned;
        under the immediate reading it waits in ``_waiting`` and ``after_quiet_play`` is _REPLY, so
        that the reply, if it captures nothing, comes to :meth:`replied`. ``chains``: the
        strings it threatens (H11), one beside ``p`` on two sides listed twice."""
        threatened, signature = _threats(p, chains)
        after = self.after_quiet_play
        if after is None:   # nothing pending, no cycle set: unconstrained (H10)
            for c in own:
                if len(c.libs) == 1:   # it joins an own string in atari: stone_played sees
                    break              # whether that string breathes again (H12)
            else:
                # H12 already: it threatens, captures nothing (so its stone stays) and rescues
                # nothing; and nothing for stone_played to update
                move = _new_tuple(Pending, (seat, p, signature, threatened))
                if self.later:
                    self._pending.append(move)
                    self.after_quiet_play = _JUDGE
                else:
                    self._waiting = move
                    self.after_quiet_play = _REPLY
                return True
        elif self._cycle_set and seat != self._capture[0]:
            # a constrained move (H10), never potentially disallowed: for stone_played, only
            # the cycle set lapses
            return None
        elif after is _REPLY:   # the reply is shown here: stone_played judges it
            self._pending, self._waiting = [self._waiting], None
        self.after_quiet_play = _JUDGE
        rescues = []   # one stone of each own string in atari it joins (H12)
        for c in own:
            if len(c.libs) == 1:
                rescues.append(c.stones[0])
        self._noted = _new_tuple(Noted, ((), 0, threatened, signature, rescues, False))
        return None

    def _note_capture(self, seat: int, p: int, probe: Probe, threatened: list[int] | None,
                      signature: list[int] | None) -> None:
        """:meth:`before_stone` of a capture: its captured points (H7, H8), and H12's rescues:
        the own strings in atari it joins or that touch the stones it takes."""
        captured_chains = probe.captured
        captured = captured_chains[0].stones if len(captured_chains) == 1 else \
            [q for c in captured_chains for q in c.stones]
        rescues: list[int] = []
        if threatened is not None and self._cycle_set and seat != self._capture[0]:
            threatened = None   # a constrained move (H10) is never potentially disallowed
        elif threatened is not None:
            signature += captured
            for c in probe.own:
                if len(c.libs) == 1:
                    rescues.append(c.stones[0])
            chain, nbrs, colour = self.game.position.chain, self.game.board.neighbour_indices, seat + 1
            for q in captured:
                for r in nbrs[q]:
                    c = chain[r]
                    if c is not None and c.colour == colour and len(c.libs) == 1 and c.stones[0] not in rescues:
                        rescues.append(c.stones[0])
        if self._waiting is not None:   # the reply is shown here: stone_played judges it
            self._pending, self._waiting = [self._waiting], None
        self.after_quiet_play = _JUDGE
        configurations = self.game.position.hash << 64 | probe.hash
        self._noted = _new_tuple(Noted, (captured, configurations, threatened, signature, rescues, _basic_ko(probe)))

    def stone_played(self, index: int, seat: int, p: int) -> None:
        if self._pending:
            self._counteract(seat)
        noted = self._noted
        if noted is None:   # most plays
            if self._cycle_set:
                self._cycle_set = _NONE
                self._heat()
            elif self._waiting is not None:   # a readable-path play while a move waits (threatens)
                self._pending, self._waiting = [self._waiting], None
                self._counteract(seat)
            self.after_quiet_play = _JUDGE if self._pending else None
            return
        self._noted = None
        captured, configurations, threatened, signature, rescues, basic_ko = noted
        if captured:
            cycle_set = self._cycle_set_of(index, p, captured, configurations, basic_ko)
            self._capture = (seat, p)
            if cycle_set or self._cycle_set:
                self._cycle_set = cycle_set
                self._heat()
        elif self._cycle_set:
            self._cycle_set = _NONE
            self._heat()
        if threatened is not None and not (rescues and self._rescued(rescues)):
            # H12: an unconstrained move that threatened strings, its stone still there (not a
            # suicide), and gave no threatened string of its own a second liberty
            self._pending.append(_new_tuple(Pending, (seat, p, signature, threatened)))
        self.after_quiet_play = _JUDGE if self._pending or self._cycle_set else None

    def replied(self, index: int, seat: int, p: int) -> None:
        """:meth:`stone_played` of the reply to the move waiting in ``_waiting``, when
        it captured nothing and threatened nothing: H13 (:meth:`_counteract`) written for this
        case. The move's stone and strings are still there, and the reply is the opponent's:
        it counteracts if every threatened string has two liberties again, else the move
        lapses (immediate reading). Nothing else is pending, and no cycle set lapses."""
        owner, _, signature, threatened = self._waiting
        self._waiting, self.after_quiet_play = None, None
        chain = self.game.position.chain
        for r in threatened:
            if len(chain[r].libs) < 2:
                return
        self._disallow(owner, frozenset(signature))

    def _rescued(self, rescues: Sequence[int]) -> bool:
        """H12: has the move just made given an own string in atari a second liberty?"""
        chain = self.game.position.chain
        for r in rescues:
            c = chain[r]
            if c is not None and len(c.libs) >= 2:
                return True
        return False

    def _cycle_set_of(self, index: int, p: int, captured: Sequence[int], configurations: int,
                      basic_ko: bool) -> frozenset[int]:
        """H8: the cycle set the capture just made has or creates (A1' adds the obvious one).

        Two captures are the same (H7) and leave the same configuration (H6) exactly when they
        are made in the same configuration and leave the same one (the point played is the one
        that filled, the captured points those that emptied), so the key is the pair of
        configurations' hashes in one int: no tuple or frozenset kept per capture for the
        garbage collector to count and walk."""
        first = self._first.setdefault(configurations, index)
        found = _NONE
        if first < index:
            found = frozenset(e.point for e in self.game.live[first:index + 1] if e.action is Action.STONE)
        if self.by_identity:
            capture = (p, frozenset(captured))
            found = self._identity.get(capture, _NONE) | found
            if found:
                self._identity[capture] = found
        if self.basic_ko and basic_ko:
            found = found | {p, captured[0]}
        return found

    def _counteract(self, seat: int) -> None:
        """H13: does ``seat``'s move just made counteract a pending move of the opponent?

        Checked after every stone play, the mover's own included: a pending move lapses as soon
        as its stone or one of its threatened strings leaves the board, whoever took it, so a
        stone later played where a threatened string stood is not that string restored (A-7's
        "while the threatened strings are still there")."""
        pos, kept = self.game.position, []
        stones, chain = pos.stones, pos.chain
        for pending in self._pending:
            owner, point, signature, threatened = pending
            if stones[point] != owner + 1:
                continue
            there = breathe = True   # the threatened strings are all there, with two liberties
            for r in threatened:
                c = chain[r]
                if c is None:
                    there = False
                    break
                if len(c.libs) < 2:
                    breathe = False
            if not there:
                continue
            if owner == seat:
                kept.append(pending)
            elif breathe:
                self._disallow(owner, frozenset(signature))
            elif self.later:
                kept.append(pending)
        self._pending = kept

    def _disallow(self, seat: int, signature: frozenset[int]) -> None:
        """H15: ``seat`` may not make an unconstrained move with this signature again."""
        banned = self._banned[seat]
        if signature in banned:
            return
        banned.add(signature)
        self._banned_points[seat].update(signature)
        self._banned_all.update(signature)
        if self.hot_points is not self._banned_all:   # a union with the cycle set, or ()
            self._heat()

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        """A-3, A-10: the cycle set's restriction lapses, and the next move is unconstrained; a
        pass counteracts nothing, and under the immediate reading it was the reply (a move
        waiting in ``_waiting`` lapses with the rest)."""
        if self._cycle_set:
            self._cycle_set = _NONE
            self._heat()
        if self._pending and not self.later:
            self._pending = [pending for pending in self._pending if pending.seat == seat]
        self._waiting = None
        self.after_quiet_play = _JUDGE if self._pending else None

    def pending(self) -> list[str]:
        """The points of the potentially disallowed moves waiting for their counteraction (for
        tests and tools)."""
        pending = self._pending if self._waiting is None else [self._waiting]
        return [self.game.board.points[move.point] for move in pending]

    def disallowed(self, seat: int) -> list[list[str]]:
        """The signatures H15 forbids ``seat``, each as sorted point names (for tests and tools)."""
        names = self.game.board.points
        return sorted(sorted(names[q] for q in signature) for signature in self._banned[seat])

    # --- A3' ----------------------------------------------------------------------------------

    def _two_kos_one_liberty(self, seat: int, probe: Probe) -> bool:
        """A3': does the captured stone touch an own string of one liberty that touches two basic
        ko mouths (the spec's A-12 reading of "a group with two kos and only one liberty")?

        The mouths are of either colour, as in Figure 2, where each enclosed string holds one ko
        and its opponent the other: the string touches an opponent's mouth by the stone, and its
        own by the empty point, its liberty (the string itself may be that mouth's stone)."""
        pos, nbrs, colour = self.game.position, self.game.board.neighbour_indices, seat + 1
        stones = pos.stones
        q = probe.captured[0].stones[0]
        for r in nbrs[q]:
            string = pos.chain[r]
            if string is None or string.colour != colour or len(string.libs) != 1:
                continue
            mouths = {s for t in string.stones for s in nbrs[t] if _mouth_stone(stones, nbrs, s)}
            for liberty in string.libs:
                mouths.update(s for s in nbrs[liberty] if _mouth_stone(stones, nbrs, s))
            if len(mouths) >= 2:
                return True
        return False

    # --- words ----------------------------------------------------------------------------------

    def explain(self, reason: Reason, point: str, player: str) -> str:
        names = self.game.board.points
        if reason is Reason.CYCLE_SET:
            capturer, at = self._capture
            return (f"{self.game.players[capturer].capitalize()}'s capture at {names[at]} has the cycle set "
                    f"{self._points(self._cycle_set)}: {point} is in it, play elsewhere first (Hansen rule 9)")
        seat = self.game.players.index(player)
        p = self.game.board.index(point)
        if reason is Reason.DISALLOWED:
            signature = self.signature(p, self.game.position.probe(p, seat + 1))
            return (f"{point} has the signature {self._points(signature)} of {player}'s counteracted move: "
                    f"it is disallowed except as a ko threat (Hansen rule 15)")
        if reason is Reason.TKO:
            return (f"{point} would capture a ko with a string of one liberty and two kos: "
                    f"only as a ko threat (Hansen A3, two kos one liberty)")
        return super().explain(reason, point, player)

    def _points(self, points: frozenset[int]) -> str:
        names = self.game.board.points
        return "{" + ", ".join(names[q] for q in sorted(points)) + "}"

    def copy(self, game: "GameView") -> "CycleSets":
        other = object.__new__(CycleSets)
        other.__dict__.update(self.__dict__)
        other.game = game
        other._first = dict(self._first)
        other._identity = dict(self._identity)
        other._pending = list(self._pending)
        other._banned = [set(s) for s in self._banned]
        other._banned_points = [set(s) for s in self._banned_points]
        other._banned_all = set(self._banned_all)
        other._heat()
        return other


#: what the quick path calls after a quiet play (``after_quiet_play``): the judgement of
#: :meth:`CycleSets.stone_played`, or H13 for the reply to the move in ``_waiting``
_JUDGE = CycleSets.stone_played
_REPLY = CycleSets.replied


def _threatened(others: list[Chain]) -> list[Chain]:
    """H11: the opponent strings beside a stone about to be played (``others``, a string beside
    it on two sides listed twice) that it takes from two liberties to one."""
    chains = []
    for c in others:
        if len(c.libs) == 2:
            chains.append(c)
    return chains


def _threats(p: int, chains: list[Chain]) -> tuple[list[int] | None, list[int] | None]:
    """H11, H14: one stone of each string a stone on ``p`` threatens (``chains``, a string beside
    ``p`` on two sides listed twice), and the signature's stone and threatened points (None,
    None where there are none)."""
    threatened = signature = None
    for c in chains:
        r = c.stones[0]
        if threatened is None:
            threatened, signature = [r], [p]
        elif r in threatened:
            continue
        else:
            threatened.append(r)
        signature += c.stones
    return threatened, signature


def _basic_ko(probe: Probe) -> bool:
    """A1': it takes one stone, and the capturing stone is then a lone stone whose only liberty
    is the point it took."""
    return len(probe.captured) == 1 and len(probe.captured[0].stones) == 1 and not probe.own and not probe.empties


def _mouth_stone(stones: list[int], nbrs: tuple[tuple[int, ...], ...], s: int) -> bool:
    """Spec A-12: is ``s`` the stone of a basic ko mouth, of either colour? A stone whose
    neighbours are all the other colour's but one empty point, whose other neighbours are all
    the stone's colour."""
    colour = stones[s]
    if colour == EMPTY:
        return False
    mouth = -1
    for t in nbrs[s]:
        if stones[t] == EMPTY:
            if mouth >= 0:
                return False
            mouth = t
        elif stones[t] == colour:
            return False
    return mouth >= 0 and all(stones[t] == colour for t in nbrs[mouth] if t != s)
