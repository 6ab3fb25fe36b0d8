"""Ratings: the Weng-Lin Bayesian rating of every registered player in every pool, by `openskill`'s
Plackett-Luce model (Weng and Lin, "A Bayesian Approximation Method for Online Ranking", JMLR 12,
2011), the model made for rankings of any number of players; nothing here does the model's math.

Why it looks like this:

- The ranking fed to the model is the game's `Result.ranking` as the engine worked it out (Kee's
  agreed ranking, the score order, dropped-out seats last in the order they dropped), so every rule
  text rates the same way and ties stay ties.
- A finished game is rated only when every seat is a distinct registered account, every seat made a
  move of its own (a pass counts; resigning or timing out does not), and the game has a result
  (the move cap's "no-result" is a void game). `rated_game` says which.
- The update is written in the transaction that stores the game's result (`Store.record`'s
  `step`): `update_step` is a sans-I/O generator the store's database drives inside that
  transaction, yielding each statement and receiving each query's rows. It reads the ratings as
  committed plus what earlier steps of the same transaction wrote, so two games that share a player
  and end in one batch are applied in order; on PostgreSQL the database takes one lock for such
  steps, so two nodes' games apply one after the other. A game's ``rated_games`` row makes the
  step a no-op the second time: exactly once, whatever is replayed after a crash.
- Ratings are a function of the rated games in order (``rated_games.seq``): `replay` computes them
  from the stored rankings alone, which is what ``polygo-server ratings --rebuild`` writes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from openskill.models import PlackettLuce

from ..store.values import Step

MODEL = PlackettLuce()
"""openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300."""

DISPLAY_SCALE = 40.0
DISPLAY_OFFSET = 1000.0
"""The number shown is 1000 + 40 (mu - 3 sigma), rounded: a new player shows 1000, and the scale is
Elo-like (a converged average player near 1820)."""

PROVISIONAL_SIGMA = 5.0
"""Above this sigma (some 10 to 15 games against the field) the rating is shown with a "?"."""

@dataclass(frozen=True)
class Rating:
    """A player's rating in one pool."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0

    @property
    def display(self) -> int:
        """The one number people read: the ordinal mu - 3 sigma on the display scale."""
        return round(DISPLAY_SCALE * (self.mu - 3 * self.sigma) + DISPLAY_OFFSET)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    def to_json(self) -> dict[str, Any]:
        return {"rating": self.display, "provisional": self.provisional, "mu": self.mu, "sigma": self.sigma,
                "games": self.games, "wins": self.wins}


@dataclass(frozen=True)
class RatedGame:
    """What the rating update needs of a finished game: its pool, each seat's account and place."""

    room: str
    pool: str
    players: tuple[str, ...]
    ranks: tuple[int, ...]


def rated_game(room: str, settings: dict[str, Any], users: Sequence[str | None],
               history: Iterable[tuple[int, str, bool]], result: dict[str, Any] | None) -> RatedGame | None:
    """The game to rate, or None if it is not rated: not a rated pool's room, a seat without a
    registered account (or one account at two seats), a seat that never moved, or no ranking."""
    pool = settings.get("pool")
    if not settings.get("rated") or not isinstance(pool, str) or result is None:
        return None
    if result.get("reason") == "no-result" or any(user is None for user in users) or len(set(users)) != len(users):
        return None
    moved = {seat for seat, move, _ in history if move.split()[0].lower() not in ("resign", "timeout")}
    if moved != set(range(len(users))):
        return None
    ranks = tuple(int(rank) for rank in result["ranking"])
    return RatedGame(room, pool, tuple(users), ranks)


def rate(before: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one game: the model's new mu and sigma, one more game, a win for a first place."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=list(ranks))
    return [Rating(team[0].mu, team[0].sigma, r.games + 1, r.wins + (rank == 1))
            for team, r, rank in zip(after, before, ranks)]


def update_step(game: RatedGame, at: float) -> Step:
    """The rating update of `game`, run inside the transaction that stores its result (see the
    module's docstring): yields statements (SQLite's `?` placeholders), receives each one's rows."""
    if (yield ("SELECT 1 FROM rated_games WHERE room_id = ?", (game.room,))):
        return
    for player in sorted(set(game.players)):
        yield ("INSERT INTO ratings (pool, player, mu, sigma, games, wins, updated_at) VALUES (?, ?, ?, ?, 0, 0, ?)"
               " ON CONFLICT (pool, player) DO NOTHING", (game.pool, player, MODEL.mu, MODEL.sigma, at))
    marks = ", ".join("?" * len(game.players))
    rows = yield (f"SELECT player, mu, sigma, games, wins FROM ratings WHERE pool = ? AND player IN ({marks})",
                  (game.pool, *game.players))
    current = {player: Rating(mu, sigma, games, wins) for player, mu, sigma, games, wins in rows}
    before = [current[player] for player in game.players]
    after = rate(before, game.ranks)
    yield ("INSERT INTO rated_games (room_id, pool, finished_at) VALUES (?, ?, ?)", (game.room, game.pool, at))
    for seat, (player, rank, old, new) in enumerate(zip(game.players, game.ranks, before, after)):
        yield ("INSERT INTO rating_changes (room_id, seat, pool, player, rank, mu_before, sigma_before, mu, sigma)"
               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (game.room, seat, game.pool, player, rank, old.mu, old.sigma, new.mu, new.sigma))
        yield ("UPDATE ratings SET mu = ?, sigma = ?, games = ?, wins = ?, updated_at = ?"
               " WHERE pool = ? AND player = ?", (new.mu, new.sigma, new.games, new.wins, at, game.pool, player))


def replay(games: Iterable[RatedGame]) -> tuple[dict[tuple[str, str], Rating], list[list[tuple[Rating, Rating]]]]:
    """Ratings computed from scratch from the rated games in order: the final rating by (pool,
    player), and each game's (before, after) per seat."""
    ratings: dict[tuple[str, str], Rating] = {}
    changes = []
    for game in games:
        before = [ratings.get((game.pool, player), Rating()) for player in game.players]
        after = rate(before, game.ranks)
        for player, new in zip(game.players, after):
            ratings[(game.pool, player)] = new
        changes.append(list(zip(before, after)))
    return ratings, changes
