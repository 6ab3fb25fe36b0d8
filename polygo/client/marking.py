"""What a bot answers in the marking phase: its own view of the dead stones against the marks.

Marks are agreements, and a bot that accepts whatever is marked can be robbed (OGS dropped bot
marking after opponents marked bots' living groups dead). So a bot compares the marks with the
chains it calls dead, one move at a time (the SDK asks again after every change):

- a chain it calls dead that is not marked: ``dead P``;
- a marked chain it calls alive: ``alive P``; if that chain is marked again after the bot unmarked
  it in this marking phase, the players disagree, and the bot sends ``resume`` to play it out (as KGS
  bots do, playing the cleanup with ``kgs-genmove_cleanup``): under area scoring capturing dead
  stones costs nothing, so the stones left after a play-out are alive;
- after `max_resumes` play-outs the bot accepts the marks under protest (`Marking.protest` says so);
- otherwise ``done``.

The game's `dead` list and the bot's view are sets of points; a chain counts as the bot's dead
chain when any of its stones is in the bot's view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from polygo.rules import Game

MAX_RESUMES = 2
"""Play-outs a bot asks for in one game before it accepts disputed marks under protest."""


@dataclasses.dataclass(frozen=True)
class Marking:
    """The bot's answer: a move, and a sentence for the room when the marks are accepted under protest."""

    move: str
    protest: str | None = None


def chain_at(game: Game, point: str) -> frozenset[str]:
    """The points of the chain of stones at `point` (empty when the point is empty)."""
    stones = game.stones()
    colour = stones.get(point)
    if colour is None:
        return frozenset()
    chain, todo = {point}, [point]
    while todo:
        for n in game.board.neighbours(todo.pop()):
            if n not in chain and stones.get(n) == colour:
                chain.add(n)
                todo.append(n)
    return frozenset(chain)


def chains_of(game: Game, points: Collection[str]) -> list[frozenset[str]]:
    """The distinct chains holding these points, in the order of the board's points."""
    chains: list[frozenset[str]] = []
    wanted = set(points)
    for point in game.board.points:
        if point in wanted and not any(point in c for c in chains):
            chain = chain_at(game, point)
            if chain:
                chains.append(chain)
    return chains


def marking_move(game: Game, seat: int, dead: Collection[str] | None,
                 max_resumes: int | None = MAX_RESUMES) -> Marking:
    """The next marking move of `seat`, whose view of the dead stones is `dead` (None: no view, accept
    any marks). `max_resumes` None: never accept disputed marks (resume again each time)."""
    marked = set(game.dead)
    if dead is None:
        return Marking("done")
    mine = set(dead)
    for chain in chains_of(game, mine):
        if not chain & marked:
            return Marking(f"dead {min(chain)}")
    unmarked_by_me = _unmarked_this_phase(game, seat)
    for chain in chains_of(game, marked):
        if chain & mine:
            continue
        point = min(chain)
        if not chain & unmarked_by_me:
            return Marking(f"alive {point}")
        resumes = sum(1 for play in game.history if play.seat == seat and play.move == "resume")
        if max_resumes is None or resumes < max_resumes:
            return Marking("resume")
        return Marking("done", f"I accept the marks under protest: the chain at {point} is alive, and "
                               f"{resumes} play-outs did not settle it.")
    return Marking("done")


def _unmarked_this_phase(game: Game, seat: int) -> set[str]:
    """The points `seat` sent `alive` for since the marking phase began (or play last resumed)."""
    points: set[str] = set()
    for play in reversed(game.history):
        word, _, rest = play.move.partition(" ")
        if word not in ("dead", "alive", "done", "rank", "accept", "reject"):
            break
        if word == "alive" and play.seat == seat:
            points |= chain_at(game, rest) or {rest}
    return points
