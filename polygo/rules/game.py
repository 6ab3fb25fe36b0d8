"""The game: turn order, legality with its reasons, the history, the phases and the result.

The board answers "what is here"; the game answers "may this be played now". A move is
checked completely before anything changes, so a refused move leaves the game as it was.

Terms follow the rule texts: an *appearance* of a position is the initial position or a
position produced by a stone play (Kee); the *live* game is the sequence of plays that
stand, the *record* (``history``) keeps rescinded plays too, marked.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .board import Board
from .ending import ending_procedure
from .errors import IllegalMove, Reason, RulesetError
from .handicap import fixed_handicap_points
from .moves import ENDING_ACTIONS, Action, Move, parse_move
from .plays import APPEALED, PASSED, SEAT_NAMES, LiveEntry, Play
from .position import EMPTY, Position, Probe
from .quick import play_quickly, quick_records
from .repetition import repetition_rule
from .ruleset import HandicapBonus, HandicapMode, Ruleset, Scoring, Suicide, preset

__all__ = ["Game", "Play", "LiveEntry", "Result", "SEAT_NAMES"]

_TURN_PLAYS = frozenset({Action.STONE, Action.PASS, Action.APPEAL})


@dataclass(frozen=True)
class Result:
    reason: str                 # "passes", "agreement", "resignation", "timeout", "no-result"
    ranking: tuple[int, ...]    # place per seat, 1 is first (all 1 for "no-result")
    score: tuple[float, ...]    # points per seat


class Game:
    """A game of Go or a relative, for any number of players on any board."""

    def __init__(self, board: Board, rules: "str | Ruleset" = "kee",
                 players: "int | Sequence[str]" = 2, **options: Any):
        ruleset = preset(rules) if isinstance(rules, str) else rules
        if options:
            ruleset = ruleset.with_options(**options)
        # at most 29 attributes on a game, for the quick path's speed (docs/performance.md)
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
        self._quick = quick_records(board, n)   # (quick.py)
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

    def _initial_stones(self) -> tuple[int, ...]:
        """The set-up position, kept all game: without set-up stones the empty board's one tuple,
        shared by the games of its size, not a list of its own in every game (a pointer a point)."""
        fixed = self.rules.handicap and self.rules.handicap_mode is HandicapMode.FIXED
        if not self.rules.setup and not fixed:
            return _empty_board(len(self.board))
        stones = [EMPTY] * len(self.board)
        for name, seat in self.rules.setup.items():
            p = self.board.find(name)
            if p is None:
                raise RulesetError(f"setup names unknown point {name!r}")
            if not 0 <= seat < len(self.players):
                raise RulesetError(f"setup puts a stone of seat {seat} on {name}, but seats are 0..{len(self.players) - 1}")
            stones[p] = seat + 1
        if fixed:
            for name in fixed_handicap_points(self.board, self.rules.handicap):
                stones[self.board.index(name)] = 1
        return tuple(stones)

    def _reset_live(self) -> None:
        """Back to the initial position with no plays; the replay of the live game starts here."""
        n = len(self.players)
        self.position = Position(self.board, n, self._initial)
        if any(not c.libs for c in self.position.chains()):
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
        final position costs as much as many plays, and a replay need not ask."""
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
        return self.position.hash

    def stones(self) -> dict[str, int]:
        return {self.board.points[p]: s - 1 for p, s in enumerate(self.position.stones) if s != EMPTY}

    def stone_at(self, point: str) -> int | None:
        s = self.position.stones[self.board.index(point)]
        return None if s == EMPTY else s - 1

    def ko_analysis(self) -> list[dict[str, Any]]:
        """The ko positions on the board (Jasiek's New Ko Rules; empty under other rules):
        points, mouths, coupling, type, state, disturber, and the seat the fighting rule bars."""
        return self._rule.ko_analysis()

    def consecutive_passes(self) -> int:
        """Passes at the end of the live game (since the phase began, in Lasker-Maas)."""
        count, live = 0, self._live
        for i in range(len(live) - 1, self._phase_start - 1, -1):
            if live[i].action is Action.STONE:
                break
            count += 1
        return count

    # --- the view the rule modules have (polygo/rules/view.py) -----------------------------------

    @property
    def turn(self) -> int:
        """The seat whose turn it is (or was, once play has ended)."""
        return self._turn

    @property
    def live(self) -> Sequence[LiveEntry]:
        """The live game: the turn plays that stand, oldest first (read, do not change)."""
        return self._live

    @property
    def phase_start(self) -> int:
        """The live index where the current phase began: its passes count from there."""
        return self._phase_start

    def set_phase(self, phase: str) -> None:
        self._phase = phase

    def start_phase(self, phase: str, to_move: int | None = None) -> None:
        """Begin ``phase`` here (its passes count from now), with ``to_move`` to move if given."""
        self._phase, self._phase_start = phase, len(self._live)
        if to_move is not None:
            self._turn = to_move

    def set_turn(self, seat: int) -> None:
        self._turn = seat

    def give_prisoner(self, seat: int) -> None:
        """``seat`` gives a stone to the prisoners' place instead of playing (Nieminen N14b)."""
        self._prisoners[seat] += 1
        self._rule.gave(seat)

    # --- legality ---------------------------------------------------------------------------

    def why_illegal(self, move: str, seat: int | None = None) -> str | None:
        """``None`` if ``move`` may be played now, else its reason code."""
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
        moves = [names[p] for p, s in enumerate(self.position.stones) if s == EMPTY and p not in refused]
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
        pos, named = self.position, self._rule.suspects(seat)
        if not named and not pos.has_suspects(seat + 1):    # most turns: every play is a plain one
            return {}
        suspects = pos.suspects(seat + 1)
        suspects.update(named)
        stones, refused = self.position.stones, {}
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
        pos = self.position
        if probe is None:
            probe = pos.probe(p, seat + 1)
        if probe.suicide and (self._no_suicide or probe.hash == pos.hash):
            return Reason.SUICIDE
        return self._rule.refuse(seat, p, probe)

    def seat_after_stone(self, seat: int) -> int:
        return seat if self._free_left > 1 else self.next_seat(seat)

    def next_seat(self, seat: int) -> int:
        return self._following[seat]

    def _find_following(self) -> list[int]:
        """The next active seat after each seat, kept in a table: every stone play asks for it."""
        n = len(self.players)
        following = []
        for seat in range(n):
            later = ((seat + step) % n for step in range(1, n + 1))
            following.append(next((other for other in later if self._active[other]), seat))
        return following

    def _check(self, text: str, seat: int | None) -> tuple[Move, Probe | None]:
        """Parse and check a move completely, without changing anything; a stone play's probe."""
        move = parse_move(text, self.board)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < len(self.players)):
            raise IllegalMove(Reason.BAD_SEAT, f"there is no seat {seat!r} in this game", text)
        if move.action in _TURN_PLAYS:
            return move, self._check_turn_play(move, seat)
        self._check_action(move, self._acting_seat(move, seat))
        return move, None

    def _acting_seat(self, move: Move, seat: int | None) -> int:
        if seat is None:
            seat = self.to_move
        if seat is None:
            raise IllegalMove(Reason.BAD_SEAT, f"{move.text!r} needs the seat that makes it", move.text)
        if not self._active[seat]:
            raise IllegalMove(Reason.DROPPED_OUT, f"{self.players[seat]} has dropped out", move.text)
        return seat

    def _check_turn_play(self, move: Move, seat: int | None) -> Probe | None:
        if self.over:
            raise IllegalMove(Reason.GAME_OVER, f"{move.text!r}: play has ended", move.text)
        if seat is not None and seat != self._turn:
            raise IllegalMove(Reason.NOT_YOUR_TURN,
                              f"it is {self.players[self._turn]}'s turn, not {self.players[seat]}'s", move.text)
        seat = self._turn
        if move.action is Action.STONE:
            return self._check_stone(move, seat)
        if self._free_left and not self.rules.passes_any_time:
            raise IllegalMove(Reason.HANDICAP, f"{self.players[seat]} must place "
                              f"{self._free_left} more handicap stone(s) before passing", move.text)
        if move.action is Action.APPEAL:
            self._check_appeal(move, seat)
        else:
            self._ending.check_pass(move, seat)
        return None

    def _check_stone(self, move: Move, seat: int) -> Probe:
        """The stone play's probe, if ``seat`` may make it; IllegalMove with the reason if not."""
        name = self.board.points[move.point]
        if self.position.stones[move.point] != EMPTY:
            raise IllegalMove(Reason.OCCUPIED, f"{name} is occupied", move.text)
        probe = self.position.probe(move.point, seat + 1)
        reason = self._stone_reason(seat, move.point, probe)
        if reason is not None:
            raise IllegalMove(reason, self._explain(reason, name, seat), move.text)
        return probe

    def _check_appeal(self, move: Move, seat: int) -> None:
        """Kee rule 12: the named play must be prohibited by rule 11 and by nothing else."""
        appealable = self._rule.appealable
        if appealable is None:
            raise IllegalMove(Reason.NO_APPEALS, f"{self.rules.name} has no appealing passes", move.text)
        name = self.board.points[move.point]
        if self.position.stones[move.point] != EMPTY:
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

        In the rule texts' order: parse the move and check the seat, the turn and the phase, and
        for a stone play ask the position what the stone would do (a probe) and the repetition
        rule whether it may (:meth:`_check`); then record it and make it (:meth:`_apply_stone`:
        the position, the repetition rule and the ending procedure each take note).
        :func:`quick.play_quickly` makes most stone plays and passes the same way in fewer steps.
        """
        played = play_quickly(self, move, seat)
        if played is not None:
            return played
        parsed, probe = self._check(move, seat)
        if parsed.action in _TURN_PLAYS:
            seat = self._turn
        else:
            seat = self._acting_seat(parsed, seat)
        raw = len(self._raw)
        self._raw.append(Play(seat, parsed.text))
        if parsed.action is Action.STONE:
            captures = self._apply_stone(seat, parsed.point, probe)
            if captures:
                self._raw[raw] = self._raw[raw]._replace(captures=captures)
        else:
            _HANDLERS[parsed.action](self, seat, parsed)
        play = self._raw[raw]
        return play._replace(rescinded=True) if raw in self._rescinded else play

    def _apply_stone(self, seat: int, p: int, probe: Probe | None = None) -> tuple[str, ...]:
        """Place the stone, pay for it, pass the turn and count the position's appearance;
        returns the names of the points it captured. ``probe``: the play's, if the caller has it."""
        phase_2 = self._phase == "phase-2"
        if phase_2:
            self._prisoners[seat] -= 1
        pos, rule = self.position, self._rule
        if probe is None:
            probe = pos.probe(p, seat + 1)
        if rule.watches_before_stone:
            rule.before_stone(seat, p, probe)
        removed = pos.place(p, seat + 1, probe)
        if self._ending.watches_stones:
            self._ending.stone_played(seat)
        for chain in removed:
            self._prisoners[chain.colour - 1] += len(chain.stones)
        names = self.board.points
        captures = tuple(names[q] for chain in removed for q in chain.stones)
        if phase_2:
            self.top_up()
        index = len(self._live)
        self._live.append(LiveEntry(seat, Action.STONE, p))
        self._pass_turn(seat)
        rule.stone_played(index, seat, p)
        if self._move_cap and index + 1 >= self._move_cap:
            self.finish("no-result")
        return captures

    def _pass_turn(self, seat: int) -> None:
        """After ``seat``'s move: the next seat, or ``seat`` again during free handicap placement."""
        if self._free_left:
            self._turn = seat if self._free_left > 1 else self.next_seat(seat)
            self._free_left -= 1
        else:
            self._turn = self.next_seat(seat)

    def top_up(self) -> None:
        """Lasker-Maas: when either colour's prisoners run out, one stone of each is added."""
        while min(self._prisoners) <= 0:
            self._prisoners = [c + 1 for c in self._prisoners]

    def _do_pass(self, seat: int, move: Move) -> None:
        appealing = move.action is Action.APPEAL
        self._apply_pass(seat, appealing)
        if not appealing and self._rule.rescission_due(seat):
            self._rescind()
            return
        self._pass_turn(seat)
        self._end_if_all_passed()
        if self._move_cap and not self.over and len(self._live) >= self._move_cap:
            self.finish("no-result")

    def _apply_pass(self, seat: int, appealing: bool) -> None:
        index = len(self._live)
        self._live.append((APPEALED if appealing else PASSED)[seat])
        self._rule.passed(index, seat, appealing)

    def _rescind(self) -> None:
        """Kee rules 13-14: the stone play and the passes after it leave the live game."""
        start = max(i for i, e in enumerate(self._live) if e.action is Action.STONE)
        stone = self._live[start]
        records = self._live_records()
        self._rescinded.update(records[start:])
        self._rule.rescinded(start, stone.point)
        self._replay(self._live[:start])
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

    def _replay(self, live: Iterable[LiveEntry]) -> None:
        """Rebuild the position and the repetition data from a live sequence, unchecked."""
        self._reset_live()
        for entry in live:
            if entry.action is Action.STONE:
                self._apply_stone(entry.seat, entry.point)
            else:
                self._apply_pass(entry.seat, entry.action is Action.APPEAL)
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
            if live[i].action is Action.STONE:
                break
            passed.add(live[i].seat)
        if self.all_active_in(passed):
            self._ending.all_passed()

    def _do_drop(self, seat: int, move: Move) -> None:
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
            self.finish(reason)
            return
        if self._turn == seat:
            self._turn = self.next_seat(seat)
        if not self.over and self._live and self._live[-1].action is not Action.STONE:
            self._end_if_all_passed()

    def _do_ending(self, seat: int, move: Move) -> None:
        self._ending.apply(seat, move)

    def remove_dead(self) -> None:
        """Agreed dead stones leave the board; they go to the prisoners' place (their colour)."""
        dead = self._ending.dead
        for p in dead:
            self._prisoners[self.position.stones[p] - 1] += 1
        self.position.remove_points(sorted(dead))

    def _do_rank(self, seat: int, move: Move) -> None:
        self._proposal = tuple(move.ranking)
        self._proposal_accepts = {seat}
        self._agree_if_all()

    def _do_accept(self, seat: int, move: Move) -> None:
        self._proposal_accepts.add(seat)
        self._agree_if_all()

    def _do_reject(self, seat: int, move: Move) -> None:
        self._proposal = None
        self._proposal_accepts = set()

    def _agree_if_all(self) -> None:
        """Kee rule 16: the game ends when every player agrees the ranking."""
        if self.all_active_in(self._proposal_accepts):
            self._agreed = self._proposal
            self.finish("agreement")

    def all_active_in(self, seats: set[int]) -> bool:
        for seat, active in enumerate(self._active):
            if active and seat not in seats:
                return False
        return True

    def finish(self, reason: str) -> None:
        """End the game; "no-result" (the move cap) ranks every seat first, as a void game."""
        self._phase = "ended"
        self._ended_by, self._result = reason, None

    # --- scoring ----------------------------------------------------------------------------

    def score(self) -> list[float]:
        """Points per seat from the current board (with agreed dead stones removed)."""
        n = len(self.players)
        if self.rules.scoring is Scoring.LASKER_MAAS:
            territory = self.position.territory(n)
            points = [float(territory[s] - self._prisoners[s]) for s in range(n)]
            points[1] += self._half_point
            return points
        if self.rules.scoring in (Scoring.TERRITORY, Scoring.TERRITORY_LITERAL):
            territory = self.position.territory(n, unbordered=self.rules.scoring is Scoring.TERRITORY_LITERAL)
            points = [float(territory[0] + self._prisoners[1]), float(territory[1] + self._prisoners[0])]
        else:
            points = [float(v) for v in self.position.area(n)]
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
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.position = self.position.copy()
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
    def from_record(cls, record: Mapping[str, Any], board: Board | None = None) -> "Game":
        """Replay a record; IllegalMove names the first move that does not replay. `board`, when
        given, is the record's board already built (a server shares one among its games)."""
        try:
            board = Board.from_spec(record["board"]) if board is None else board
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
    Action.PASS: Game._do_pass,
    Action.APPEAL: Game._do_pass,
    Action.RESIGN: Game._do_drop,
    Action.TIMEOUT: Game._do_drop,
    **{action: Game._do_ending for action in ENDING_ACTIONS},
    Action.RANK: Game._do_rank,
    Action.ACCEPT: Game._do_accept,
    Action.REJECT: Game._do_reject,
}


@functools.lru_cache(maxsize=64)
def _empty_board(points: int) -> tuple[int, ...]:
    """The empty position of a board of `points` points (a few sizes are in use at a time)."""
    return (EMPTY,) * points
