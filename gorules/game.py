"""The game: turn order, legality with its reasons, the history, the phases and the result.

The board answers "what is here"; the game answers "may this be played now". A move is
checked completely before anything changes, so a refused move leaves the game as it was.

Terms follow the rule texts: an *appearance* of a position is the initial position or a
position produced by a stone play (Kee); the *live* game is the sequence of plays that
stand, the *record* (``history``) keeps rescinded plays too, marked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from .board import Board
from .ending import ending_procedure
from .errors import IllegalMove, Reason, RulesetError
from .handicap import fixed_handicap_points
from .moves import ENDING_ACTIONS, Action, Move, parse_move
from .position import EMPTY, Chain, Position, Probe, join
from .repetition import repetition_rule
from .repetition.rule import REFUSES_CAPTURES, WATCHES_ATARIS, WATCHES_CAPTURES
from .ruleset import HandicapBonus, HandicapMode, Ruleset, Scoring, Suicide, preset

SEAT_NAMES = ("black", "white", "red", "blue", "green", "yellow", "purple", "orange")

# NamedTuple's own constructor is a Python function; plays and live entries are built per move.
_new_tuple = tuple.__new__
_STONE = Action.STONE   # a global, not an enum attribute lookup, on the path of every stone play
_QUICK_PHASES = frozenset({"play", "phase-1"})   # where Game.play's quick path makes stone plays
_PASS = Move(Action.PASS, "pass")
_CAPTURES, _REFUSES_CAPTURES = WATCHES_CAPTURES, REFUSES_CAPTURES
# whether a ``watches`` value has WATCHES_ATARIS, by value: the quick path asks it on every play
# beside an opponent chain under a rule that watches anything, and CPython 3.11 specialises a
# tuple's read, not an ``&`` of two ints (issue 13, branch hansen13k)
_SEES_ATARIS = tuple(bool(w & WATCHES_ATARIS)
                     for w in range((WATCHES_CAPTURES | WATCHES_ATARIS | REFUSES_CAPTURES) + 1))


class Play(NamedTuple):
    """One accepted move of the record (a named tuple: built on every play, it must be cheap)."""

    seat: int
    move: str
    rescinded: bool = False
    captures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Result:
    reason: str                 # "passes", "agreement", "resignation", "timeout", "no-result"
    ranking: tuple[int, ...]    # place per seat, 1 is first (all 1 for "no-result")
    score: tuple[float, ...]    # points per seat


class LiveEntry(NamedTuple):
    """One entry of the live game (the plays that stand), as the rule modules read it. Its index
    in the record is not in it (``Game._live_records`` works those out), so that a stone play's
    entry is a value kept from one play on that point to the next, not a tuple built per play."""

    seat: int
    action: Action  # STONE, PASS or APPEAL
    point: int      # the stone's point, -1 for passes


# the live entries of passes and appealing passes, per seat: values, built once
_PASSED = [LiveEntry(seat, Action.PASS, -1) for seat in range(len(SEAT_NAMES))]
_APPEALED = [LiveEntry(seat, Action.APPEAL, -1) for seat in range(len(SEAT_NAMES))]
_PASS_PLAYS = [Play(seat, "pass") for seat in range(len(SEAT_NAMES))]
_new_chain = object.__new__


class Game:
    """A game of Go or a relative, for any number of players on any board."""

    def __init__(self, board: Board, rules: "str | Ruleset" = "kee",
                 players: "int | Sequence[str]" = 2, **options: Any):
        ruleset = preset(rules) if isinstance(rules, str) else rules
        if options:
            ruleset = ruleset.with_options(**options)
        # at most 29 attributes on a game: CPython 3.11 keeps an instance's attributes in values
        # read by position only up to 29 names (a class with 30 gets a dict per instance), which
        # Game.play reads some twenty times a play through the slower hinted lookup
        # (LOAD_ATTR_WITH_HINT, not LOAD_ATTR_INSTANCE_VALUE; docs/speed.md, issue 13's sixth
        # round: Jasiek's memory)
        self.board = board
        self.rules = ruleset
        self.players = _seat_names(players)
        n = len(self.players)
        if ruleset.max_players is not None and n > ruleset.max_players:
            raise RulesetError(f"{ruleset.name} is for {ruleset.max_players} players, not {n}")
        if ruleset.handicap and n != 2:
            raise RulesetError("handicap is for two-player games")
        self._initial = self._initial_stones()
        self._initial_prisoners = [0] * n
        self._half_point = 0.0
        if ruleset.scoring is Scoring.LASKER_MAAS:
            stones = int(ruleset.komi)
            self._initial_prisoners = [max(stones, 0), max(-stones, 0)]
            self._half_point = abs(ruleset.komi - stones)
        self._raw: list[Play] = []   # the record; ``rescinded`` is read from ``_rescinded``
        self._quick = _quick_records(board, n)
        self._rescinded: set[int] = set()
        self._active = [True] * n
        self._following = self._find_following()
        self._dropped: list[int] = []
        self._rule = repetition_rule(self)
        self._ending = ending_procedure(self)
        self._move_cap = ruleset.move_cap_per_point * len(board)
        self._last_index = self._move_cap - 1 if self._move_cap else math.inf   # of a live play, by the cap
        self._no_suicide = ruleset.suicide is Suicide.FORBIDDEN
        self._phase = self._ending.first_phase
        self._phase_start = 0
        self._proposal: tuple[int, ...] | None = None
        self._proposal_accepts: set[int] = set()
        self._result: Result | None = None
        self._ended_by: str | None = None   # the result's reason, from the end of the game on
        self._agreed: tuple[int, ...] | None = None
        self._reset_live()

    # --- set-up -------------------------------------------------------------------------

    def _initial_stones(self) -> list[int]:
        stones = [EMPTY] * len(self.board)
        for name, seat in self.rules.setup.items():
            p = self.board.find(name)
            if p is None:
                raise RulesetError(f"setup names unknown point {name!r}")
            if not 0 <= seat < len(self.players):
                raise RulesetError(f"setup puts a stone of seat {seat} on {name}, but seats are 0..{len(self.players) - 1}")
            stones[p] = seat + 1
        if self.rules.handicap and self.rules.handicap_mode is HandicapMode.FIXED:
            for name in fixed_handicap_points(self.board, self.rules.handicap):
                stones[self.board.index(name)] = 1
        return stones

    def _reset_live(self) -> None:
        """Back to the initial position with no plays; the replay of the live game starts here."""
        n = len(self.players)
        self._pos = Position(self.board, n, self._initial)
        if any(not c.libs for c in self._pos.chains()):
            raise RulesetError("the set-up position has a chain without liberties")
        self._live: list[LiveEntry] = []
        self._prisoners = list(self._initial_prisoners)
        fixed = self.rules.handicap and self.rules.handicap_mode is HandicapMode.FIXED
        self._free_left = self.rules.handicap if self.rules.handicap_mode is HandicapMode.FREE else 0
        self._turn = 1 if fixed else 0
        self._rule.reset()

    # --- queries --------------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        return self._turn if self._phase in ("play", "phase-1", "phase-2", "dispute") else None

    @property
    def over(self) -> bool:
        return self._phase in ("scoring", "ended")

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def result(self) -> Result | None:
        """Worked out when first asked for, not by the play that ended the game: scoring the
        final position costs as much as a hundred plays, and a replay need not ask."""
        self._settle()
        return self._result

    def _settle(self) -> None:
        """Work the result out, if the game has ended and nobody has asked for it yet."""
        if self._result is None and self._ended_by is not None:
            reason = self._ended_by
            ranking = (1,) * len(self.players) if reason == "no-result" else tuple(self.ranking())
            self._result = Result(reason, ranking, tuple(self.score()))

    @property
    def prisoners(self) -> list[int]:
        return list(self._prisoners)

    @property
    def active(self) -> list[bool]:
        return list(self._active)

    @property
    def dead(self) -> list[str]:
        return sorted(self.board.points[p] for p in self._ending.dead)

    @property
    def disputed(self) -> list[str]:
        """The chain being played out (Nieminen N14), ``[]`` outside a dispute play-out."""
        return self._ending.disputed

    @property
    def accepted(self) -> list[int]:
        return sorted(self._ending.accepted)

    @property
    def proposal(self) -> tuple[int, ...] | None:
        return self._proposal

    @property
    def history(self) -> list[Play]:
        rescinded = self._rescinded
        return [play._replace(rescinded=True) if i in rescinded else play for i, play in enumerate(self._raw)]

    @property
    def last_move(self) -> str | None:
        for entry in reversed(self._live):
            if entry.action is Action.STONE:
                return self.board.points[entry.point]
        return None

    @property
    def position_hash(self) -> int:
        return self._pos.hash

    def stones(self) -> dict[str, int]:
        return {self.board.points[p]: s - 1 for p, s in enumerate(self._pos.stones) if s != EMPTY}

    def stone_at(self, point: str) -> int | None:
        s = self._pos.stones[self.board.index(point)]
        return None if s == EMPTY else s - 1

    def ko_analysis(self) -> list[dict[str, Any]]:
        """The ko positions on the board (Jasiek's New Ko Rules; empty under other rules):
        points, mouths, coupling, type, state, disturber, and the seat the fighting rule bars."""
        return self._rule.ko_analysis()

    def consecutive_passes(self) -> int:
        """Passes at the end of the live game (since the phase began, in Lasker-Maas)."""
        count, live = 0, self._live
        for i in range(len(live) - 1, self._phase_start - 1, -1):
            if live[i].action is _STONE:
                break
            count += 1
        return count

    # --- legality ---------------------------------------------------------------------------

    def why_illegal(self, move: str, seat: int | None = None) -> str | None:
        """``None`` if ``move`` may be played now, else its reason code."""
        if self._legal_stone(move, seat) is not None:
            return None
        try:
            self._check(move, seat)
        except IllegalMove as exc:
            return exc.reason.value
        return None

    def legal_moves(self) -> list[str]:
        """Every legal turn play of the player to move: points, ``pass`` and valid appeals."""
        seat = self.to_move
        if seat is None:
            return []
        refused = self._refused(seat)
        names = self.board.points
        moves = [names[p] for p, s in enumerate(self._pos.stones) if s == EMPTY and p not in refused]
        moves.extend(self._turn_words(seat, refused))
        return moves

    def legal_turn(self) -> tuple[dict[str, str], list[str]]:
        """What the player to move may play, in two parts: the empty points it may not play, each
        with its reason code (as :meth:`why_illegal` gives it), and its legal turn plays that are
        not stone plays (``pass``, the ending procedure's words, valid appeals). Every other empty
        point is a legal stone play. ``({}, [])`` when nobody is to move.

        One computation for both parts, cheaper than :meth:`legal_moves`: a server sends it with
        every move so that clients need no rules engine.
        """
        seat = self.to_move
        if seat is None:
            return {}, []
        refused = self._refused(seat)
        if not refused:     # most turns: every empty point is a legal stone play, and no appeal
            return {}, self._turn_words(seat, refused)
        names = self.board.points
        return {names[p]: reason.value for p, reason in refused.items()}, self._turn_words(seat, refused)

    def _turn_words(self, seat: int, refused: dict[int, Reason]) -> list[str]:
        if self._free_left and not self.rules.passes_any_time:
            return []
        words = list(self._ending.turn_words(seat))
        if refused:
            appealable, names = self._rule.appealable, self.board.points
            words.extend("appeal " + names[p] for p, reason in refused.items() if reason is appealable)
        return words

    def _refused(self, seat: int) -> dict[int, Reason]:
        """Every empty point ``seat`` may not play now, with its reason, in the board's order.

        Only suspects are probed: a play the position calls plain (no capture, no possible
        suicide, no board that stood before) is refused only where the repetition rule names the
        point itself. The same answer as asking :meth:`_stone_reason` about every empty point, at a
        fraction of the cost: the server sends it with every move.
        """
        pos, named = self._pos, self._rule.suspects(seat)
        if not named and not pos.has_suspects(seat + 1):    # most turns: every play is a plain one
            return {}
        suspects = pos.suspects(seat + 1)
        suspects.update(named)
        stones, refused = self._pos.stones, {}
        for p in sorted(suspects):
            if stones[p] == EMPTY:
                reason = self._stone_reason(seat, p)
                if reason is not None:
                    refused[p] = reason
        return refused

    def _stone_reason(self, seat: int, p: int, probe: Probe | None = None) -> Reason | None:
        """Why ``seat`` may not place a stone on empty point ``p`` now, or None.

        ``probe`` is the position's probe of that play, when the caller already has it.
        """
        pos = self._pos
        if probe is None:
            probe = pos.probe(p, seat + 1)
        if probe.suicide and (self._no_suicide or probe.hash == pos.hash):
            return Reason.SUICIDE
        return self._rule.refuse(seat, p, probe)

    def _turn_after_stone(self, seat: int) -> int:
        return seat if self._free_left > 1 else self._next_seat(seat)

    def _next_seat(self, seat: int) -> int:
        return self._following[seat]

    def _find_following(self) -> list[int]:
        """The next active seat after each seat, kept in a table: every stone play asks for it."""
        n = len(self.players)
        following = []
        for seat in range(n):
            later = ((seat + step) % n for step in range(1, n + 1))
            following.append(next((other for other in later if self._active[other]), seat))
        return following

    def _check(self, text: str, seat: int | None) -> Move:
        """Parse and check a move completely, without changing anything."""
        move = parse_move(text, self.board)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < len(self.players)):
            raise IllegalMove(Reason.BAD_SEAT, f"there is no seat {seat!r} in this game", text)
        if move.action in (Action.STONE, Action.PASS, Action.APPEAL):
            self._check_turn_play(move, seat)
        else:
            self._check_action(move, self._acting_seat(move, seat))
        return move

    def _acting_seat(self, move: Move, seat: int | None) -> int:
        if seat is None:
            seat = self.to_move
        if seat is None:
            raise IllegalMove(Reason.BAD_SEAT, f"{move.text!r} needs the seat that makes it", move.text)
        if not self._active[seat]:
            raise IllegalMove(Reason.DROPPED_OUT, f"{self.players[seat]} has dropped out", move.text)
        return seat

    def _check_turn_play(self, move: Move, seat: int | None) -> None:
        if self.over:
            raise IllegalMove(Reason.GAME_OVER, f"{move.text!r}: play has ended", move.text)
        if seat is not None and seat != self._turn:
            raise IllegalMove(Reason.NOT_YOUR_TURN,
                              f"it is {self.players[self._turn]}'s turn, not {self.players[seat]}'s", move.text)
        seat = self._turn
        if move.action is Action.STONE:
            self._check_stone(move, seat)
            return
        if self._free_left and not self.rules.passes_any_time:
            raise IllegalMove(Reason.HANDICAP, f"{self.players[seat]} must place "
                              f"{self._free_left} more handicap stone(s) before passing", move.text)
        if move.action is Action.APPEAL:
            self._check_appeal(move, seat)
        else:
            self._ending.check_pass(move, seat)

    def _check_stone(self, move: Move, seat: int) -> None:
        name = self.board.points[move.point]
        if self._pos.stones[move.point] != EMPTY:
            raise IllegalMove(Reason.OCCUPIED, f"{name} is occupied", move.text)
        reason = self._stone_reason(seat, move.point)
        if reason is not None:
            raise IllegalMove(reason, self._explain(reason, name, seat), move.text)

    def _check_appeal(self, move: Move, seat: int) -> None:
        """Kee rule 12: the named play must be prohibited by rule 11 and by nothing else."""
        appealable = self._rule.appealable
        if appealable is None:
            raise IllegalMove(Reason.NO_APPEALS, f"{self.rules.name} has no appealing passes", move.text)
        name = self.board.points[move.point]
        if self._pos.stones[move.point] != EMPTY:
            raise IllegalMove(Reason.NOT_PROHIBITED, f"cannot appeal for {name}: it is occupied", move.text)
        reason = self._stone_reason(seat, move.point)
        if reason is not appealable:
            why = "it is legal" if reason is None else self._explain(reason, name, seat)
            raise IllegalMove(Reason.NOT_PROHIBITED,
                              f"cannot appeal for {name}: it is not prohibited by the cycle prohibition ({why})",
                              move.text)

    def _explain(self, reason: Reason, point: str, seat: int) -> str:
        if reason is Reason.SUICIDE:
            return f"{point} would be suicide that leaves the board unchanged or is forbidden here"
        return self._rule.explain(reason, point, self.players[seat])

    def _check_action(self, move: Move, seat: int) -> None:
        action = move.action
        if self._phase == "ended":
            raise IllegalMove(Reason.GAME_OVER, f"{move.text!r}: the game has ended", move.text)
        if action in ENDING_ACTIONS:
            if action not in self._ending.actions:
                raise IllegalMove(Reason.BAD_MOVE, f"{move.text!r} is not a move of {self.rules.name}", move.text)
            self._ending.check(move, seat)
        elif action is Action.RANK:
            self._check_ranking(move)
        elif action in (Action.ACCEPT, Action.REJECT) and self._proposal is None:
            raise IllegalMove(Reason.NO_PROPOSAL, "there is no ranking proposal to answer", move.text)
        elif action in (Action.RESIGN, Action.TIMEOUT) and self.over:
            raise IllegalMove(Reason.GAME_OVER, f"{move.text!r}: play has ended", move.text)

    def _check_ranking(self, move: Move) -> None:
        """Kee rule 16: one place per seat, ties sharing a place as ``ranking()`` gives them.

        A place is one more than the number of seats placed better (``1 2 2``, ``1 1 3``), so
        ``2 2 2`` (nobody first) or ``1 1 2`` is not a ranking.
        """
        places, n = move.ranking, len(self.players)
        if len(places) != n:
            raise IllegalMove(Reason.BAD_RANKING, f"a ranking gives one place per seat ({n}), got {len(places)}",
                              move.text)
        if any(not 1 <= r <= n for r in places):
            raise IllegalMove(Reason.BAD_RANKING, f"places run from 1 to {n}", move.text)
        if any(r != 1 + sum(other < r for other in places) for r in places):
            raise IllegalMove(Reason.BAD_RANKING, "each place must be one more than the number of seats placed "
                              "better (as in 1 2 2 or 1 1 3)", move.text)

    # --- playing ----------------------------------------------------------------------------

    def play(self, move: str, seat: int | None = None) -> Play:
        """Apply ``move`` for ``seat`` (default: the player to move); IllegalMove if refused.

        A stone play by the player to move, in play (or Lasker-Maas phase 1), is made here in
        one piece: bots, replays and the server run it for every stone of every game, and a
        call or a tuple per step would cost more than the play itself (issue 13). It reads the
        neighbours once, for the verdict and for the placement (what :meth:`Position.probe` and
        :meth:`Position.place` do in two steps), builds no probe, and records the play with
        values kept per board (:func:`_quick_records`). It hands to the careful path (probe,
        ``refuse``, ``_apply_stone``) every play the rules must look at more closely: a
        suicide, a play on one of the repetition rule's ``hot_points`` or making a position in
        its ``hot_hashes``, a capture where the rule may refuse one; it shows the rule the
        captures and ataris it ``watches``, and records the play in the rule's ``left`` and
        ``positions`` (and ``quiet``, where it is a list) itself where the rule names them (see
        :class:`RepetitionRule`).
        """
        if type(move) is str and (seat is None or (type(seat) is int and seat == self._turn)):
            turn = self._turn
            known = self._quick[turn].get(move) or self._learn(turn, move)
            pos = self._pos
            stones = pos.stones
            rule = self._rule
            if known is None:
                if move == "pass" and self._phase in _QUICK_PHASES and not self._free_left:
                    return self._quick_pass()
            elif stones[known[0]] == EMPTY and self._phase in _QUICK_PHASES and not self._free_left \
                    and known[0] not in rule.hot_points:
                p, colour, key, play, entry = known
                chain = pos.chain
                h = pos.hash ^ key
                first = own = captured = others = None   # own: the player's chains beside p after the first
                empties: set[int] = set()   # the new stone's liberties, the set of a new chain
                for q in pos._nbrs[p]:
                    c = chain[q]
                    if c is None:
                        empties.add(q)
                    elif c.colour == colour:
                        if first is None:
                            first = c
                        elif c is not first:
                            if own is None:
                                own = [first, c]
                            elif c not in own:
                                own.append(c)
                    elif len(c.libs) == 1:
                        if captured is None:
                            captured = [c]
                            h ^= c.hash
                        elif c not in captured:
                            captured.append(c)
                            h ^= c.hash
                    elif others is None:
                        others = [c]
                    else:
                        others.append(c)
                breathes = empties or captured is not None   # not suicide
                if not breathes and first is not None:
                    for c in own or (first,):
                        if len(c.libs) > 1:   # a liberty besides p
                            breathes = True
                            break
                watched = rule.watches
                if breathes and h not in rule.hot_hashes and not (captured is not None and watched & _REFUSES_CAPTURES):
                    settled = None   # True: the rule's hook left stone_played nothing to do
                    if watched:
                        if captured is not None:
                            if watched & _CAPTURES:
                                settled = rule.before_stone(turn, p, _new_tuple(Probe, (
                                    captured, False, h, own or ([first] if first is not None else []),
                                    _distinct(others) if others is not None else [], list(empties))))
                        elif others is not None and _SEES_ATARIS[watched]:
                            # the loop below and the search for ataris in one loop over the
                            # chains, not two (a chain beside p on two sides is listed twice)
                            threatened = None   # the chains the stone takes from 2 liberties to 1
                            for c in others:
                                libs = c.libs
                                libs.discard(p)
                                if len(libs) == 1:
                                    if threatened is None:
                                        threatened = [c]
                                    else:
                                        threatened.append(c)
                            others = None   # their liberties are taken: nothing left for the loop below
                            if threatened is not None:
                                settled = rule.threatens(turn, p, threatened, own or (
                                    (first,) if first is not None else ()))
                    if others is not None:
                        for c in others:
                            c.libs.discard(p)
                    if first is None:
                        # a new chain: object.__new__ and four stores cost 75 ns, Chain's
                        # __init__ (a Python call) 105, for half the plays
                        chain[p] = lone = _new_chain(Chain)
                        lone.colour, lone.stones, lone.libs, lone.hash = colour, [p], empties, key
                    else:
                        if own is None:
                            merged = first
                            merged.stones.append(p)
                            merged.hash ^= key
                        else:
                            merged = join(chain, own, p, key)
                        libs = merged.libs
                        libs.discard(p)
                        libs |= empties
                        chain[p] = merged
                    stones[p] = colour
                    pos._dirty.append(p)
                    if captured is None:
                        pos.hash = h
                    else:
                        pos.hash ^= key   # and _remove takes each captured chain's key off
                        prisoners, names = self._prisoners, self.board.points
                        for c in captured:
                            pos._remove(c)
                            prisoners[c.colour - 1] += len(c.stones)
                        play = Play(turn, move, False, tuple(names[q] for c in captured for q in c.stones))
                        entry = LiveEntry(turn, _STONE, p)
                    self._raw.append(play)
                    if self._ending.watches_stones:
                        self._ending.stone_played(turn)
                    live = self._live
                    index = len(live)
                    live.append(entry)
                    self._turn = self._following[turn]
                    left = rule.left
                    if left is not None:
                        left[turn] = h
                    positions = rule.positions
                    # the jumps over the block below must stay within one byte (255 code units):
                    # a longer one costs every play of the presets that skip the block an
                    # EXTENDED_ARG (docs/speed.md, issue 13's eighth round)
                    if positions is None:
                        if rule.quiet is not True:
                            quiet = rule.quiet
                            if not quiet:
                                if not settled:
                                    if quiet is False:
                                        rule.stone_played(index, turn, p)
                                    else:   # None: a move waits for this reply (Hansen's H13)
                                        rule.replied(index, turn, p)
                            else:   # a list: the position the play made, under p
                                quiet[p] = h
                                if p in rule.walls:   # it may have walled a mouth's empty point
                                    rule.walled(index, turn, p)
                                if first is None and len(empties) == 1:
                                    rule.alone(index, turn, p, p)
                                if others is not None:
                                    for c in others:
                                        if len(c.libs) == 1 and len(c.stones) == 1:
                                            rule.alone(index, turn, p, c.stones[0])
                    else:
                        positions[h] = self._turn if rule.positions_by_turn else index
                    if index >= self._last_index:
                        self._finish("no-result")
                    return play
        legal = self._legal_stone(move, seat)
        if legal is not None:
            seat = self._turn
            raw = len(self._raw)
            self._raw.append(_new_tuple(Play, (seat, move, False, ())))
            captures = self._apply_stone(raw, seat, *legal)
            if captures:
                self._raw[raw] = play = Play(seat, move, False, captures)
                return play
            return self._raw[raw]
        parsed = self._check(move, seat)
        if parsed.action in (Action.STONE, Action.PASS, Action.APPEAL):
            seat = self._turn
        else:
            seat = self._acting_seat(parsed, seat)
        raw = len(self._raw)
        self._raw.append(Play(seat, parsed.text))
        handler = _HANDLERS[parsed.action]
        handler(self, raw, seat, parsed)
        play = self._raw[raw]
        return play._replace(rescinded=True) if raw in self._rescinded else play

    def _quick_pass(self) -> Play:
        """A plain pass by the player to move in play (no free placement left): what ``_check``
        asks of it without parsing it, and ``_do_pass`` written out (its four calls cost a third
        of a pass)."""
        seat = self._turn
        self._ending.check_pass(_PASS, seat)
        raw = len(self._raw)
        self._raw.append(_PASS_PLAYS[seat])
        live, rule = self._live, self._rule
        live.append(_PASSED[seat])
        rule.passed(len(live) - 1, seat, False)
        if rule.rescission_due(seat):
            self._rescind(raw)
            return _PASS_PLAYS[seat]._replace(rescinded=True)
        self._turn = self._following[seat]
        self._end_if_all_passed()
        if self._move_cap and len(live) >= self._move_cap and not self.over:   # the property last
            self._finish("no-result")
        return _PASS_PLAYS[seat]

    def _learn(self, seat: int, move: str) -> tuple[int, int, int, Play, LiveEntry] | None:
        """The quick path's records of ``seat``'s stone play named ``move`` (see
        :func:`_quick_records`), kept from now on; None if ``move`` is no point's exact name."""
        p = self.board.exact_index.get(move)
        if p is None:
            return None
        known = self._quick[seat][move] = (p, seat + 1, self._pos._z[seat + 1][p], Play(seat, move),
                                           LiveEntry(seat, _STONE, p))
        return known

    def _legal_stone(self, move: Any, seat: Any) -> tuple[int, Probe] | None:
        """(point, probe) if ``move`` is a legal stone play named exactly by its point, else None.

        The hot path of bots and replays: the checks ``_check`` makes for a stone play (seat,
        turn, phase, occupied, ``_stone_reason``) without building a ``Move``. None means "ask
        the general path", which plays the move or refuses it with its reason.
        """
        if type(move) is not str or (seat is not None and (type(seat) is not int or seat != self._turn)):
            return None
        p = self.board.exact_index.get(move)
        pos = self._pos
        if p is None or self._phase in ("scoring", "ended") or pos.stones[p] != EMPTY:
            return None
        turn = self._turn
        probe = pos.probe(p, turn + 1)
        if probe.suicide and (self._no_suicide or probe.hash == pos.hash):
            return None
        return None if self._rule.refuse(turn, p, probe) is not None else (p, probe)

    def _do_stone(self, raw: int, seat: int, move: Move) -> None:
        captures = self._apply_stone(raw, seat, move.point)
        if captures:
            self._raw[raw] = self._raw[raw]._replace(captures=captures)

    def _apply_stone(self, raw: int, seat: int, p: int, probe: Probe | None = None) -> tuple[str, ...]:
        """Place the stone, pay for it, pass the turn and count the position's appearance.

        Returns the names of the points it captured. One method, not several, because every
        stone play of every game runs through it.
        """
        phase_2 = self._phase == "phase-2"
        if phase_2:
            self._prisoners[seat] -= 1
        pos = self._pos
        if self._rule.watches_before_stone:   # not kept on the game: see __init__'s note on its attributes
            if probe is None:
                probe = pos.probe(p, seat + 1)
            self._rule.before_stone(seat, p, probe)
        removed = pos.place(p, seat + 1, probe)
        captures: tuple[str, ...] = ()
        if self._ending.watches_stones:
            self._ending.stone_played(seat)
        if removed:
            for chain in removed:
                self._prisoners[chain.colour - 1] += len(chain.stones)
            names = self.board.points
            captures = tuple(names[q] for chain in removed for q in chain.stones)
        if phase_2:
            self._top_up()
        index = len(self._live)
        self._live.append(_new_tuple(LiveEntry, (seat, _STONE, p)))
        if self._free_left:
            self._pass_turn(seat)
        else:
            self._turn = self._following[seat]
        self._rule.stone_played(index, seat, p)
        if self._move_cap and index + 1 >= self._move_cap:
            self._finish("no-result")
        return captures

    def _pass_turn(self, seat: int) -> None:
        """After ``seat``'s move: the next seat, or ``seat`` again during free handicap placement."""
        if self._free_left:
            self._turn = seat if self._free_left > 1 else self._next_seat(seat)
            self._free_left -= 1
        else:
            self._turn = self._next_seat(seat)

    def _top_up(self) -> None:
        """Lasker-Maas: when either colour's prisoners run out, one stone of each is added."""
        while min(self._prisoners) <= 0:
            self._prisoners = [c + 1 for c in self._prisoners]

    def _do_pass(self, raw: int, seat: int, move: Move) -> None:
        appealing = move.action is Action.APPEAL
        self._apply_pass(raw, seat, appealing)
        if not appealing and self._rule.rescission_due(seat):
            self._rescind(raw)
            return
        self._pass_turn(seat)
        self._end_if_all_passed()
        if self._move_cap and not self.over and len(self._live) >= self._move_cap:
            self._finish("no-result")

    def _apply_pass(self, raw: int, seat: int, appealing: bool) -> None:
        index = len(self._live)
        self._live.append((_APPEALED if appealing else _PASSED)[seat])
        self._rule.passed(index, seat, appealing)

    def _rescind(self, raw: int) -> None:
        """Kee rules 13-14: the stone play and the passes after it leave the live game."""
        start = max(i for i, e in enumerate(self._live) if e.action is Action.STONE)
        stone = self._live[start]
        records = self._live_records()
        self._rescinded.update(records[start:])
        self._rule.rescinded(start, stone.point)
        self._replay(list(zip(records[:start], self._live[:start])))
        self._phase_start = min(self._phase_start, start)
        self._turn = stone.seat

    def _live_records(self) -> list[int]:
        """Each live entry's index in the record: the turn plays (stone plays, passes, appeals)
        that no rescission took out, in order. Worked out when a rescission needs them, not
        kept per play."""
        index, rescinded = self.board.exact_index, self._rescinded
        records = [i for i, play in enumerate(self._raw) if i not in rescinded
                   and (play.move in index or play.move == "pass" or play.move.startswith("appeal "))]
        assert len(records) == len(self._live), "the live game is the record's turn plays that stand"
        return records

    def _replay(self, live: Iterable[tuple[int, LiveEntry]]) -> None:
        """Rebuild the position and the repetition data from a live sequence (record index and
        entry), unchecked."""
        self._reset_live()
        for raw, entry in live:
            if entry.action is Action.STONE:
                self._apply_stone(raw, entry.seat, entry.point)
            else:
                self._apply_pass(raw, entry.seat, entry.action is Action.APPEAL)
                self._pass_turn(entry.seat)

    def _end_if_all_passed(self) -> None:
        """Kee rule 15 and its kin: every player still in the game has passed since the last
        stone play (of this phase). A player who dropped out no longer counts, and neither do
        his passes."""
        if self._phase == "ended":  # the pass ended the game otherwise (Nieminen N12)
            return
        passed = set()
        live = self._live
        for i in range(len(live) - 1, self._phase_start - 1, -1):
            if live[i].action is _STONE:
                break
            passed.add(live[i].seat)
        if self._all_active_in(passed):
            self._ending.all_passed()

    def _do_drop(self, raw: int, seat: int, move: Move) -> None:
        reason = "timeout" if move.action is Action.TIMEOUT else "resignation"
        self.drop_out(seat, reason, record=False)

    def drop_out(self, seat: int, reason: str = "timeout", *, record: bool = True) -> None:
        """``seat`` leaves play: its stones stay, its turns are skipped, it is ranked last.

        In a two-player game (or when one player is left) this ends the game.
        """
        if record:
            self.play("timeout" if reason == "timeout" else "resign", seat=seat)
            return
        self._settle()   # a game already over keeps the result it ended with
        self._active[seat] = False
        self._following = self._find_following()
        self._dropped.append(seat)
        self._proposal = None
        if sum(self._active) <= 1:
            self._finish(reason)
            return
        if self._turn == seat:
            self._turn = self._next_seat(seat)
        if not self.over and self._live and self._live[-1].action is not Action.STONE:
            self._end_if_all_passed()

    def _do_ending(self, raw: int, seat: int, move: Move) -> None:
        self._ending.apply(seat, move)

    def _remove_dead(self) -> None:
        """Agreed dead stones leave the board; they go to the prisoners' place (their colour)."""
        dead = self._ending.dead
        for p in dead:
            self._prisoners[self._pos.stones[p] - 1] += 1
        self._pos.remove_points(sorted(dead))

    def _do_rank(self, raw: int, seat: int, move: Move) -> None:
        self._proposal = tuple(move.ranking)
        self._proposal_accepts = {seat}
        self._agree_if_all()

    def _do_accept(self, raw: int, seat: int, move: Move) -> None:
        self._proposal_accepts.add(seat)
        self._agree_if_all()

    def _do_reject(self, raw: int, seat: int, move: Move) -> None:
        self._proposal = None
        self._proposal_accepts = set()

    def _agree_if_all(self) -> None:
        """Kee rule 16: the game ends when every player agrees the ranking."""
        if self._all_active_in(self._proposal_accepts):
            self._agreed = self._proposal
            self._finish("agreement")

    def _all_active_in(self, seats: set[int]) -> bool:
        for seat, active in enumerate(self._active):
            if active and seat not in seats:
                return False
        return True

    def _finish(self, reason: str) -> None:
        """End the game; "no-result" (the move cap) ranks every seat first, as a void game."""
        self._phase = "ended"
        self._ended_by, self._result = reason, None

    # --- scoring ----------------------------------------------------------------------------

    def score(self) -> list[float]:
        """Points per seat from the current board (with agreed dead stones removed)."""
        n = len(self.players)
        if self.rules.scoring is Scoring.LASKER_MAAS:
            territory = self._pos.territory(n)
            points = [float(territory[s] - self._prisoners[s]) for s in range(n)]
            points[1] += self._half_point
            return points
        if self.rules.scoring in (Scoring.TERRITORY, Scoring.TERRITORY_LITERAL):
            territory = self._pos.territory(n, unbordered=self.rules.scoring is Scoring.TERRITORY_LITERAL)
            points = [float(territory[0] + self._prisoners[1]), float(territory[1] + self._prisoners[0])]
        else:
            points = [float(v) for v in self._pos.area(n)]
        if n == 2:
            points[1] += self.rules.komi + self._handicap_bonus()
        return points

    def _handicap_bonus(self) -> int:
        bonus = self.rules.handicap_bonus
        if bonus is HandicapBonus.NONE or not self.rules.handicap:
            return 0
        return self.rules.handicap - (1 if bonus is HandicapBonus.N_MINUS_1 else 0)

    def ranking(self) -> list[int]:
        """Place per seat (1 is first; ties share a place); dropped-out seats come last."""
        if self._agreed is not None:
            return list(self._agreed)
        if self._ended_by == "no-result":
            return [1] * len(self.players)
        if self._ended_by in ("resignation", "timeout") and len(self.players) == 2:
            loser = self._dropped[0]
            return [2 if s == loser else 1 for s in range(2)]
        score = self.score()
        white_wins_ties = self.rules.scoring is Scoring.LASKER_MAAS

        def key(seat: int) -> tuple[int, float, int]:
            """Smaller is better: active before dropped, more points, then White on a tie."""
            if not self._active[seat]:
                return (1, -self._dropped.index(seat), 0)
            return (0, -score[seat], int(white_wins_ties and seat != 1))

        keys = [key(s) for s in range(len(self.players))]
        return [1 + sum(other < mine for other in keys) for mine in keys]

    # --- copies and records ---------------------------------------------------------------

    def copy(self) -> "Game":
        """An independent game: nothing played on the copy shows in the original."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._pos = self._pos.copy()
        for name in ("_raw", "_live", "_prisoners", "_active", "_following", "_dropped",
                     "_initial_prisoners"):
            setattr(other, name, list(getattr(self, name)))
        for name in ("_rescinded", "_proposal_accepts"):
            setattr(other, name, set(getattr(self, name)))
        other._rule = self._rule.copy(other)
        other._ending = self._ending.copy(other)
        return other

    def to_record(self) -> dict[str, Any]:
        """Everything needed to rebuild this game: the board, the rules, the seats, every move."""
        return {"board": self.board.describe(), "rules": self.rules.name, "players": list(self.players),
                "options": self.rules.options(), "moves": [[play.seat, play.move] for play in self._raw]}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "Game":
        """Replay a record; IllegalMove names the first move that does not replay."""
        try:
            board = Board.from_spec(record["board"])
            game = cls(board, rules=record.get("rules", "kee"), players=record.get("players", 2),
                       **dict(record.get("options") or {}))
            moves = record.get("moves", [])
        except KeyError as exc:
            raise RulesetError(f"a game record needs {exc.args[0]!r}") from None
        except TypeError:
            raise RulesetError("a game record must be an object with board, rules, players and moves") from None
        for i, entry in enumerate(moves):
            if not isinstance(entry, (list, tuple)) or len(entry) != 2:
                raise RulesetError(f"move {i} of the record must be [seat, move], got {entry!r}")
            seat, move = entry
            try:
                game.play(move, seat=seat)
            except IllegalMove as exc:
                raise IllegalMove(exc.reason, f"move {i} ({move!r} by seat {seat}): {exc.message}", exc.move) from None
        return game

    def __repr__(self) -> str:
        return (f"Game({self.board!r}, rules={self.rules.name!r}, players={len(self.players)}, "
                f"moves={len(self._raw)}, phase={self._phase!r})")


def _quick_records(board: Board, colours: int) -> list[dict[str, tuple[int, int, int, Play, LiveEntry]]]:
    """Per seat, a point's exact name -> (point, colour, Zobrist key, Play, LiveEntry) of a stone
    play there that captures nothing: values of the seat and the point alone (and of the number
    of colours, which picks the Zobrist table), so every game on the board shares them, and one
    lookup finds all the quick path needs of the move (:meth:`Game._learn` adds a point's the
    first time it is played). Kept on the board, beside its cached properties."""
    by_colours = board.__dict__.setdefault("_quick_records", {})
    records = by_colours.get(colours)
    if records is None:
        records = by_colours[colours] = [{} for _ in range(colours)]
    return records


def _distinct(chains: list[Chain]) -> list[Chain]:
    """The chains without repeats (a chain beside the stone on two sides is listed twice)."""
    return chains if len(chains) == 1 else list(dict.fromkeys(chains))


def _seat_names(players: "int | Sequence[str]") -> tuple[str, ...]:
    if isinstance(players, bool):
        raise RulesetError("players must be a number of players or a list of names")
    if isinstance(players, int):
        if not 2 <= players <= len(SEAT_NAMES):
            raise RulesetError(f"a game has 2 to {len(SEAT_NAMES)} players, not {players}")
        return SEAT_NAMES[:players]
    names = tuple(players)
    if not 2 <= len(names) <= len(SEAT_NAMES) or not all(isinstance(n, str) and n for n in names):
        raise RulesetError(f"players must be 2 to {len(SEAT_NAMES)} non-empty names")
    if len(set(names)) != len(names):
        raise RulesetError("player names must differ")
    return names


_HANDLERS = {
    Action.STONE: Game._do_stone,
    Action.PASS: Game._do_pass,
    Action.APPEAL: Game._do_pass,
    Action.RESIGN: Game._do_drop,
    Action.TIMEOUT: Game._do_drop,
    **{action: Game._do_ending for action in ENDING_ACTIONS},
    Action.RANK: Game._do_rank,
    Action.ACCEPT: Game._do_accept,
    Action.REJECT: Game._do_reject,
}
