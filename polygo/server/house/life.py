"""Which stones the house bot calls dead: the owners of the points after random play-outs.

After the passes the house bot must judge the dead-stone marks, its own chains' and everyone
else's, under every ruleset with a marking phase, for any number of players, on any board graph.
Reading life and death by rule (eyes, Benson's test) answers only the settled shapes; a Monte Carlo
estimate of ownership, as Fuego and GNU Go's Monte Carlo mode use at the end of a game, answers the
usual ones too: from the final position each player in turn plays a random point that is not one
of its own eyes and not a suicide or a self-atari of several stones, until every player passes.
A stone whose point ends owned by someone else (a stone of another colour, or an empty region
bordered by another colour only) in most play-outs is called dead.

The play-outs know only captures (no ko, no supply): they are a reading, the engine stays the judge
of legality. `dead_stones` is a pure function of the stones, the board and a seeded
`random.Random`; it costs far more than a move, the more so on large boards, so the house bot
runs it in a worker thread, once per position.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence

from polygo.rules import Board, Game

PLAYOUTS = 40
DEAD_SHARE = 0.6
"""A stone is dead when its point goes to another colour in at least this share of the play-outs."""
EMPTY = -1


@dataclasses.dataclass(frozen=True)
class Question:
    """What the play-outs read, copied out of a `Game` so that a worker thread can read it while the
    room plays on: the board, the initial stones, the stone plays of the live game in order (seat,
    point), and the seats still playing in turn order."""

    board: Board
    initial: Mapping[str, int]
    plays: Sequence[tuple[int, str]]
    players: Sequence[int]

    @classmethod
    def of(cls, game: Game) -> "Question":
        initial = Game(game.board, rules=game.rules, players=game.players).stones()
        plays = [(play.seat, play.move) for play in game.history
                 if not play.rescinded and play.move in game.board]
        return cls(game.board, initial, plays, [s for s, active in enumerate(game.active) if active])


def dead_stones(question: Question, rng: random.Random, playouts: int = PLAYOUTS) -> set[str]:
    """The points of the stones the play-outs call dead.

    A play-out may not bring back a position of the game or of itself (positional superko, on
    Zobrist hashes): under the Kee rules' cycle prohibition, as in Kee example I, a capture the
    rules forbid is no threat."""
    board = question.board
    colours = 1 + max([*question.players, *question.initial.values(), *(s for s, _ in question.plays)], default=0)
    keys = [[rng.getrandbits(64) for _ in range(colours)] for _ in board.points]
    game = _Playout(board.neighbour_indices, keys, _colours(board, question.initial), rng, set())
    for seat, point in question.plays:
        game.place(board.exact_index[point], seat)
    start = game.colour
    lost = [0] * len(start)
    for _ in range(playouts):
        owner = _Playout(board.neighbour_indices, keys, start, rng, game.seen).run(question.players)
        for p, colour in enumerate(start):
            if colour != EMPTY and owner[p] != colour:
                lost[p] += 1
    return {board.points[p] for p, n in enumerate(lost) if n >= DEAD_SHARE * playouts}


def _colours(board: Board, stones: Mapping[str, int]) -> list[int]:
    colour = [EMPTY] * len(board.points)
    for point, seat in stones.items():
        colour[board.exact_index[point]] = seat
    return colour


class _Playout:
    """One random game from a position: plays, captures, and the players' eyes left alone."""

    def __init__(self, neighbours: Sequence[Sequence[int]], keys: Sequence[Sequence[int]],
                 start: list[int], rng: random.Random, seen: set[int]) -> None:
        self.neighbours = neighbours
        self.keys = keys
        self.colour = list(start)
        self.rng = rng
        self.hash = 0
        for p, c in enumerate(start):
            if c != EMPTY:
                self.hash ^= keys[p][c]
        self.seen = set(seen) | {self.hash}
        self.empty = [p for p, c in enumerate(start) if c == EMPTY]
        self.where = {p: i for i, p in enumerate(self.empty)}

    def run(self, players: Sequence[int]) -> list[int]:
        """Play until every player passes (or a cap on the moves); each point's owner at the end."""
        cap, passes, turn = 3 * len(self.colour), 0, 0
        while players and passes < len(players) and cap > 0:
            cap -= 1
            player = players[turn % len(players)]
            turn += 1
            if self._random_play(player):
                passes = 0
            else:
                passes += 1
        return self.owners()

    def owners(self) -> list[int]:
        """Each point's owner: its stone's colour, or the one colour bordering its empty region."""
        owner = list(self.colour)
        seen: set[int] = set()
        for start, c in enumerate(self.colour):
            if c != EMPTY or start in seen:
                continue
            region, borders, todo = {start}, set(), [start]
            while todo:
                for n in self.neighbours[todo.pop()]:
                    if self.colour[n] != EMPTY:
                        borders.add(self.colour[n])
                    elif n not in region:
                        region.add(n)
                        todo.append(n)
            seen |= region
            if len(borders) == 1:
                colour = borders.pop()
                for p in region:
                    owner[p] = colour
        return owner

    def _random_play(self, player: int) -> bool:
        """Try the empty points in a random order (a partial shuffle of the list of them)."""
        empty, untried = self.empty, len(self.empty)
        while untried:
            i = self.rng.randrange(untried)
            p = empty[i]
            if self._acceptable(p, player) and self._new_position(p, player):
                return True
            untried -= 1
            self._swap(i, untried)
        return False

    def _swap(self, i: int, j: int) -> None:
        empty = self.empty
        empty[i], empty[j] = empty[j], empty[i]
        self.where[empty[i]], self.where[empty[j]] = i, j

    def _acceptable(self, p: int, player: int) -> bool:
        """Not an eye of the player's own, not a suicide, not a self-atari of several stones."""
        around = self.neighbours[p]
        if sum(1 for n in around if self.colour[n] == EMPTY) >= 2:
            return True
        if all(self.colour[n] == player for n in around):
            return False
        self.colour[p] = player
        try:
            for n in around:
                c = self.colour[n]
                if c != EMPTY and c != player and not self._liberties(n, 1):
                    return True
            stones, liberties = self._chain(p)
            return len(liberties) >= 2 or (len(liberties) == 1 and len(stones) == 1)
        finally:
            self.colour[p] = EMPTY

    def _new_position(self, p: int, player: int) -> bool:
        """Play at `p` unless the position it makes has been seen (then nothing changes)."""
        captures = [n for n in self.neighbours[p]
                    if self.colour[n] not in (EMPTY, player) and self._liberties_without(n, p)]
        if not captures:
            self.place(p, player)
            return True
        before = list(self.colour), list(self.empty), dict(self.where), self.hash, set(self.seen)
        self.place(p, player)
        if self.hash in before[4]:
            self.colour, self.empty, self.where, self.hash, self.seen = before
            return False
        return True

    def _liberties_without(self, n: int, p: int) -> bool:
        """Whether the chain at `n` has no liberty but `p`: a stone at `p` captures it."""
        self.colour[p] = -2
        try:
            return not self._liberties(n, 1)
        finally:
            self.colour[p] = EMPTY

    def place(self, p: int, player: int) -> None:
        """A stone of `player` at the empty `p`: captures, then the suicide of its own chain; the
        position it makes is seen."""
        self._set(p, player)
        for n in self.neighbours[p]:
            c = self.colour[n]
            if c != EMPTY and c != player and not self._liberties(n, 1):
                self._remove(self._chain(n)[0])
        if not self._liberties(p, 1):
            self._remove(self._chain(p)[0])
        self.seen.add(self.hash)

    def _set(self, p: int, player: int) -> None:
        self.colour[p] = player
        self.hash ^= self.keys[p][player]
        self._swap(self.where[p], len(self.empty) - 1)
        self.empty.pop()
        del self.where[p]

    def _remove(self, stones: set[int]) -> None:
        for s in stones:
            self.hash ^= self.keys[s][self.colour[s]]
            self.colour[s] = EMPTY
            self.where[s] = len(self.empty)
            self.empty.append(s)

    def _chain(self, p: int) -> tuple[set[int], set[int]]:
        colour, stones, liberties, todo = self.colour[p], {p}, set(), [p]
        while todo:
            for n in self.neighbours[todo.pop()]:
                c = self.colour[n]
                if c == EMPTY:
                    liberties.add(n)
                elif c == colour and n not in stones:
                    stones.add(n)
                    todo.append(n)
        return stones, liberties

    def _liberties(self, p: int, enough: int) -> bool:
        """Whether the chain at `p` has at least `enough` liberties (stops looking once it has)."""
        colour, seen, found, todo = self.colour[p], {p}, set(), [p]
        while todo:
            for n in self.neighbours[todo.pop()]:
                c = self.colour[n]
                if c == EMPTY:
                    found.add(n)
                    if len(found) >= enough:
                        return True
                elif c == colour and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return False
