"""The built-in bot: a quick, sensible player for any board, any number of players, every ruleset.

It reads each legal play one move deep (`tactics.Snapshot.effect`): it captures when it can,
escapes atari, puts opponents in atari, never fills its own eyes nor plays into its own settled
regions, never puts itself in atari for nothing, and passes when no useful play is left. Under the
Kee rules it appeals (rule 12) when the play it wants most is prohibited by rule 11 alone. In the
Lasker-Maas phase 2, where each stone comes from the prisoners' place, the same reading fills the
neutral points and leaves its own territory alone. A game that runs past `WIND_DOWN` moves per
point (rulesets with simple ko allow endless cycles) gets only passes from it. In the marking phase
it accepts the marks, and it accepts a ranking proposal that places it no worse than the board does.

`choose_move` is a pure function of the game, the seat and a seeded `random.Random`: the same
inputs give the same move, which the benchmark and the tests rely on.
"""

from __future__ import annotations

import random

from gorules import Game

from client_cli.tactics import Effect, Snapshot

CAPTURE = 10.0
SAVE = 8.0
ATARI = 2.0
APPEAL_THRESHOLD = CAPTURE
"""An appeal is worth making only for a play that captures (or saves) something."""
WIND_DOWN = 5
"""Moves per point after which the bot only passes: under simple ko (Japanese rules) play can
cycle for ever, and two bots passing end any game."""


def choose_move(game: Game, seat: int, rng: random.Random) -> str | None:
    """The move the bot sends now for `seat`, or None when it has nothing to do."""
    if game.result is not None or game.phase == "ended":
        return None
    if game.phase == "scoring":
        return None if seat in game.accepted else "done"
    if game.proposal is not None:
        answer = _answer_proposal(game, seat)
        if answer is not None:
            return answer
    if game.to_move != seat:
        return None
    return turn_play(game, seat, rng)


def turn_play(game: Game, seat: int, rng: random.Random) -> str:
    """The bot's stone play, appeal or pass when it is `seat`'s turn."""
    if len(game.history) > WIND_DOWN * len(game.board.points):
        return "pass"
    snapshot = Snapshot(game.board, game.stones())
    best_move, best_value = "pass", 0.0
    for move in game.legal_moves():
        if move == "pass":
            continue
        # `legal_moves` lists "appeal P" only where the cycle rule alone prohibits P.
        point = move.removeprefix("appeal ")
        value = value_of(snapshot.effect(point, seat), snapshot, rng)
        if value is None or (point != move and value < APPEAL_THRESHOLD):
            continue
        if value > best_value:
            best_move, best_value = move, value
    return best_move


def value_of(effect: Effect, snapshot: Snapshot, rng: random.Random) -> float | None:
    """How much the bot wants this play; None when the play is not useful at all."""
    if effect.liberties == 0:
        return None
    if effect.eye and not effect.saved:
        return None
    tactical = CAPTURE * effect.captured + SAVE * effect.saved
    if effect.liberties == 1 and not effect.captured:
        return None
    tactical += ATARI * effect.ataris
    if effect.own_region and tactical <= 0:
        return None
    shape = 0.1 * effect.liberties + 0.2 * len(snapshot.neighbours[effect.point])
    return tactical + shape + rng.random()


def _answer_proposal(game: Game, seat: int) -> str | None:
    """Accept a pending ranking proposal that places `seat` no worse than the board does.

    None when `seat` made or already answered the pending proposal (the last `rank` of the record).
    """
    for play in reversed(game.history):
        if play.seat == seat and play.move in ("accept", "reject"):
            return None
        if play.move.startswith("rank "):
            if play.seat == seat:
                return None
            break
    return proposal_answer(game, seat)


def proposal_answer(game: Game, seat: int) -> str:
    """"accept" for the pending ranking proposal when it places `seat` no worse than the board does."""
    assert game.proposal is not None
    return "accept" if game.proposal[seat] <= game.ranking()[seat] else "reject"
