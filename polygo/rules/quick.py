"""The quick path: an optimisation of :meth:`Game.play` for the moves most games are made of.

It changes no rule. For a stone play by the player to move in play (or Lasker-Maas phase 1),
and for a plain pass, it does what the readable path in ``game.py`` does (check, probe, ask the
repetition rule, place, record), in one function that reads the stone's neighbours once and
builds no probe; so it works on the game's and the position's own state, as their methods do
(``Position.probe`` and ``Position.place`` written out as one). It makes only the plays the repetition rule has said it need not see before
they are made (the quick-path attributes of :class:`RepetitionRule`, docs/engine.md) and
returns None for every other move before changing anything: the readable path then plays it.

``tests/rules/test_quick_path.py`` plays both paths side by side over recorded and random
games and compares every observable after every move. Why each trick here stays, with its
measurements: docs/performance.md.
"""

from __future__ import annotations

from typing import Any

from .board import Board
from .moves import Action, Move
from .plays import PASS_PLAYS, PASSED, LiveEntry, Play
from .position import EMPTY, Chain, Probe, join

Known = tuple[int, int, int, Play, LiveEntry]   # point, colour, Zobrist key, its Play, its LiveEntry

_QUICK_PHASES = frozenset({"play", "phase-1"})
_STONE = Action.STONE
_PASS = Move(Action.PASS, "pass")
_new_tuple = tuple.__new__     # a named tuple without its Python-level constructor
_new_chain = object.__new__    # a chain without its Python-level __init__


def play_quickly(game: Any, move: object, seat: object) -> Play | None:
    """``game.play(move, seat)`` for a plain stone play or pass; None (nothing changed) for any
    other move. ``game`` is a :class:`polygo.rules.game.Game` (untyped here: game.py imports this)."""
    if type(move) is not str or not (seat is None or (type(seat) is int and seat == game._turn)):
        return None
    turn = game._turn
    known = game._quick[turn].get(move) or learn(game, turn, move)
    if game._phase not in _QUICK_PHASES or game._free_left:
        return None
    if known is None:
        return _pass(game) if move == "pass" else None
    pos = game.position
    stones = pos.stones
    rule = game._rule
    p, colour, key, play, entry = known
    if stones[p] != EMPTY or p in rule.hot_points:
        return None
    chain = pos.chain
    h = pos.hash ^ key
    first = own = captured = others = None   # own: the player's chains beside p, when more than one
    empties: set[int] = set()   # the new stone's liberties: the set of a new chain
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
    if not breathes or h in rule.hot_hashes or (captured is not None and rule.refuses_captures):
        return None
    # the play is legal, and the rule need not see it before it is made: from here on it is made
    settled = None   # True: the rule's hook has done what stone_played would
    if captured is not None:
        if rule.sees_captures:
            settled = rule.before_stone(turn, p, _new_tuple(Probe, (
                captured, False, h, own or ([first] if first is not None else []),
                _distinct(others) if others is not None else [], list(empties))))
    elif others is not None and rule.sees_ataris:
        threatened = None   # the chains the stone takes from two liberties to one
        for c in others:
            libs = c.libs
            libs.discard(p)
            if len(libs) == 1:
                if threatened is None:
                    threatened = [c]
                else:
                    threatened.append(c)
        others = None   # their liberties are taken already
        if threatened is not None:
            settled = rule.threatens(turn, p, threatened, own or ((first,) if first is not None else ()))
    if others is not None:
        for c in others:
            c.libs.discard(p)
    if first is None:
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
        prisoners, names = game._prisoners, game.board.points
        for c in captured:
            pos._remove(c)
            prisoners[c.colour - 1] += len(c.stones)
        play = Play(turn, move, False, tuple(names[q] for c in captured for q in c.stones))
        entry = LiveEntry(turn, _STONE, p)
    game._raw.append(play)
    if game._ending.watches_stones:
        game._ending.stone_played(turn)
    live = game._live
    index = len(live)
    live.append(entry)
    game._turn = game._following[turn]
    # what stone_played would record of a quiet play, in the stores the rule names
    left = rule.left
    if left is not None:
        left[turn] = h
    appearances = rule.appearances
    if appearances is not None:
        appearances[h] = index
    situations = rule.situations
    if situations is not None:
        situations[h] = game._turn
    watch = rule.mouth_watch
    if watch is not None:   # the rule looks for the mouths a quiet play makes (Jasiek's, asleep)
        watch[p] = h
        if p in rule.walls:
            rule.walled(index, turn, p)
        if first is None and len(empties) == 1:
            rule.alone(index, turn, p, p)
        if others is not None:
            for c in others:
                if len(c.libs) == 1 and len(c.stones) == 1:
                    rule.alone(index, turn, p, c.stones[0])
    else:
        after = rule.after_quiet_play
        if after is not None and not settled:
            after(rule, index, turn, p)
    if index >= game._last_index:
        game.finish("no-result")
    return play


def _pass(game: Any) -> Play:
    """A plain pass by the player to move in play: ``Game._check`` and ``Game._do_pass`` for it,
    without parsing it."""
    seat = game._turn
    game._ending.check_pass(_PASS, seat)
    game._raw.append(PASS_PLAYS[seat])
    live, rule = game._live, game._rule
    live.append(PASSED[seat])
    rule.passed(len(live) - 1, seat, False)
    if rule.rescission_due(seat):
        game._rescind()
        return PASS_PLAYS[seat]._replace(rescinded=True)
    game._turn = game._following[seat]
    game._end_if_all_passed()
    if game._move_cap and len(live) >= game._move_cap and not game.over:
        game.finish("no-result")
    return PASS_PLAYS[seat]


def learn(game: Any, seat: int, move: str) -> Known | None:
    """The quick path's values for ``seat``'s stone play named ``move``, kept from now on; None
    if ``move`` is no point's exact name."""
    p = game.board.exact_index.get(move)
    if p is None:
        return None
    known = game._quick[seat][move] = (p, seat + 1, game.position._z[seat + 1][p], Play(seat, move),
                                       LiveEntry(seat, _STONE, p))
    return known


def quick_records(board: Board, colours: int) -> list[dict[str, Known]]:
    """Per seat, a point's exact name -> the values of a stone play there that captures nothing.
    They depend on the board, the seat and the number of colours alone, so they are kept on the
    board (like its cached properties) and shared by every game on it."""
    by_colours = board.__dict__.setdefault("_quick_records", {})
    records = by_colours.get(colours)
    if records is None:
        records = by_colours[colours] = [{} for _ in range(colours)]
    return records


def _distinct(chains: list[Chain]) -> list[Chain]:
    """The chains without repeats (a chain beside the stone on two sides is listed twice)."""
    return chains if len(chains) == 1 else list(dict.fromkeys(chains))
