"""The house bot in the marking phase: its own view of the dead stones against the marks.

Marks are agreements, and a bot that accepts whatever is marked can be robbed (OGS dropped bot
marking after players marked bots' living groups dead). The house bot judges the marks as the GTP
bridge does with its engine's `final_status_list dead` (`polygo.client.marking`), with the stones the
play-outs of `polygo.server.house.life` call dead as its view, one move at a time (it is asked again after
every change):

- a chain it calls dead that nobody marked: ``dead P``;
- a marked chain it calls alive: ``alive P`` (a chain its own player marked dead is a concession,
  and stays marked);
- a disagreement, that is a chain it unmarked and someone marked again, or one it marked and
  someone unmarked: ``resume``, and the chain is settled on the board (under area scoring capturing
  dead stones costs nothing), or under Nieminen's rules ``dispute P`` for its own chain, the play-out
  his rules give; after `MAX_RESUMES` play-outs in one game it accepts the marks under protest;
- otherwise ``done``.

Every player still in the game judges, so the same holds with three players or more. The view
is passed in: the play-outs run in a worker thread (`polygo.server.house.bots`), this module decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from polygo.rules import Game

MAX_RESUMES = 2
"""Play-outs the house bot asks for in one game before it accepts disputed marks under protest."""
MARKING_WORDS = frozenset({"dead", "alive", "done", "rank", "accept", "reject"})
"""The moves of a marking phase (a ranking may be proposed at any time under the Kee rules)."""


@dataclasses.dataclass(frozen=True)
class Marking:
    """The bot's answer: a move, and a sentence for the room when it accepts marks under protest."""

    move: str
    protest: str | None = None


def house_marking(game: Game, seat: int, dead: Collection[str]) -> Marking | None:
    """The next marking move of `seat`, whose view of the dead stones is `dead`; None when it
    has accepted the marks as they stand."""
    if seat in game.accepted:
        return None
    marked, view = set(game.dead), set(dead)
    marks = _marks_this_phase(game)
    protest = None
    for chain in _chains(game, view | marked):
        called_dead, is_marked = bool(chain & view), bool(chain & marked)
        if called_dead == is_marked:
            continue
        point = min(chain, key=game.board.index)
        owner = game.stone_at(point)
        said = [(s, word) for s, word, p in marks if p in chain]
        deads = [s for s, word in said if word == "dead"]
        if is_marked and deads and deads[-1] == owner != seat:
            continue                                   # its owner concedes it
        word = "dead" if called_dead else "alive"
        if (seat, word) not in said:
            return Marking(f"{word} {point}")
        answer = _settle(game, seat, point, owner)
        if answer is not None:
            return Marking(answer)
        protest = (f"I accept the marks under protest: the chain at {point} is {word}, and "
                   f"{MAX_RESUMES} play-outs did not settle it.")
    return Marking("done", protest) if game.why_illegal("done", seat) is None else None


def _settle(game: Game, seat: int, point: str, owner: int | None) -> str | None:
    """Play a disputed chain out (``dispute P`` for its own chain where the rules have it, else
    ``resume``), or None once the bot has asked for `MAX_RESUMES` play-outs in this game."""
    asked = sum(1 for play in game.history
                if play.seat == seat and play.move.partition(" ")[0] in ("resume", "dispute"))
    if asked >= MAX_RESUMES:
        return None
    if owner == seat and game.why_illegal(f"dispute {point}", seat) is None:
        return f"dispute {point}"
    return "resume" if game.why_illegal("resume", seat) is None else None


def _marks_this_phase(game: Game) -> list[tuple[int, str, str]]:
    """The marks made since the marking began, in order, as (seat, "dead" or "alive", point)."""
    marks: list[tuple[int, str, str]] = []
    for play in reversed(game.history):
        word, _, point = play.move.partition(" ")
        if word not in MARKING_WORDS:
            break
        if word != "done":
            marks.append((play.seat, word, point))
    return marks[::-1]


def _chains(game: Game, points: Collection[str]) -> list[frozenset[str]]:
    """The distinct chains holding these points, in the order of the board's points."""
    stones = game.stones()
    chains: list[frozenset[str]] = []
    for point in game.board.points:
        if point in points and point in stones and not any(point in c for c in chains):
            colour, chain, todo = stones[point], {point}, [point]
            while todo:
                for n in game.board.neighbours(todo.pop()):
                    if n not in chain and stones.get(n) == colour:
                        chain.add(n)
                        todo.append(n)
            chains.append(frozenset(chain))
    return chains
