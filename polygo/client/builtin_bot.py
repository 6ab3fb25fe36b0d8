"""The built-in bot: a quick, sensible player for any board, any number of players, every ruleset.

It reads each legal play one move deep (`tactics.Snapshot.effect`): it captures when it can,
escapes atari, puts opponents in atari, never fills its own eyes nor plays into its own settled
regions, never puts itself in atari for nothing, and passes when no useful play is left. Under the
Kee rules it appeals (rule 12) when the play it wants most is prohibited by rule 11 alone. In the
Lasker-Maas phase 2, where each stone comes from the prisoners' place, the same reading fills the
neutral points and leaves its own territory alone. A game that runs past `WIND_DOWN` moves per
point (rulesets with simple ko allow endless cycles) gets only passes from it. In the marking phase
it accepts the marks, and it accepts a ranking proposal that places it no worse than the board does.

Under Nieminen's rules it disputes a chain of its own marked dead that has two or more liberties
(a chain it cannot read as dead one move deep), instead of accepting the mark. In the play-out it
plays by the same reading: as the attacker it tries to capture and passes when nothing useful is
left; as the owner it answers a play that needs an answer and otherwise gives a stone (filling its
own territory would cost the same point). It never loops: the dispute superko makes every
play-out finite, a chain that survived one cannot be disputed again, and it passes whenever a
pass is allowed and no play is worth making.

`choose_move` is a pure function of the game, the seat and a seeded `random.Random`: the same
inputs give the same move, which the benchmark and the tests rely on.
"""

from __future__ import annotations

import random

from polygo.rules import Game

from polygo.client.tactics import Effect, Snapshot

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
        disputed = _chain_to_dispute(game, seat)
        if disputed is not None:
            return "dispute " + disputed
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
    legal = game.legal_moves()
    # a Nieminen play-out: the owner may not pass after a play; he gives a stone instead
    idle = "pass" if "pass" in legal else "give"
    if len(game.history) > WIND_DOWN * len(game.board.points):
        return idle
    snapshot = Snapshot(game.board, game.stones())
    # the owner of a disputed chain plays only to capture or to save; anything else is a gift
    best_move, best_value = idle, (SAVE if game.phase == "dispute" and _owns_dispute(game, seat) else 0.0)
    for move in legal:
        if move in ("pass", "give"):
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


def _owns_dispute(game: Game, seat: int) -> bool:
    """Is `seat` the owner in the current play-out? The owner makes its first move (N14)."""
    history = game.history
    start = max(i for i, play in enumerate(history) if play.move.startswith("dispute "))
    first = history[start + 1].seat if start + 1 < len(history) else game.to_move
    return first == seat


def _chain_to_dispute(game: Game, seat: int) -> str | None:
    """A point of a chain of `seat`'s marked dead that it does not read as dead, if the rules allow
    a play-out of it (Nieminen N14)."""
    dead = [p for p in game.dead if game.stone_at(p) == seat]
    if not dead:
        return None
    snapshot = Snapshot(game.board, game.stones())
    for point in dead:
        if len(snapshot.chain_of[point].liberties) >= 2 and game.why_illegal("dispute " + point, seat) is None:
            return point
    return None


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
