"""The stored side of pools: standings, a player's ratings and their history, seat counts for
fair seating, and the rebuild of every rating from the rated games in order.

Reads go through the store's reading connections (`Store.query`); the rebuild is a step of one
transaction (`Store.run_step`), like the live update it must agree with (`ratings.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..store import Store
from ..store.values import Step
from .ratings import RatedGame, Rating, replay

STANDINGS_MAX = 200
"""Players in one page of standings."""


class PoolQueries:
    """Queries over the ratings tables of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def standings(self, pool: str, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The pool's players by displayed rating, best first."""
        rows = await self.store.query(
            "SELECT player, mu, sigma, games, wins, updated_at FROM ratings WHERE pool = ?"
            " ORDER BY mu - 3 * sigma DESC, player LIMIT ? OFFSET ?", (pool, min(limit, STANDINGS_MAX), offset))
        return [dict(Rating(mu, sigma, games, wins).to_json(), player=player, rank=offset + i + 1, last_played=at)
                for i, (player, mu, sigma, games, wins, at) in enumerate(rows)]

    async def ratings_of(self, player: str) -> dict[str, Rating]:
        """The player's rating in each pool played."""
        rows = await self.store.query("SELECT pool, mu, sigma, games, wins FROM ratings WHERE player = ?", (player,))
        return {pool: Rating(mu, sigma, games, wins) for pool, mu, sigma, games, wins in rows}

    async def rating(self, pool: str, player: str) -> Rating:
        rows = await self.store.query("SELECT mu, sigma, games, wins FROM ratings WHERE pool = ? AND player = ?",
                                      (pool, player))
        return Rating(*rows[0]) if rows else Rating()

    async def history(self, player: str, limit: int = 100) -> list[dict[str, Any]]:
        """The player's rated games, the latest first: the room, the pool, the place, and the
        rating before and after."""
        rows = await self.store.query(
            "SELECT c.pool, c.room_id, g.finished_at, c.rank, c.mu_before, c.sigma_before, c.mu, c.sigma"
            " FROM rating_changes c JOIN rated_games g USING (room_id) WHERE c.player = ?"
            " ORDER BY g.seq DESC LIMIT ?", (player, limit))
        return [{"pool": pool, "room": room, "finished": at, "rank": rank,
                 "before": Rating(mu0, s0).display, "after": Rating(mu1, s1).display, "mu": mu1, "sigma": s1}
                for pool, room, at, rank, mu0, s0, mu1, s1 in rows]

    async def seat_counts(self, pool: str, players: list[str]) -> dict[str, list[int]]:
        """How often each player sat at each seat in the pool's rated games (fair seating)."""
        if not players:
            return {}
        marks = ", ".join("?" * len(players))
        rows = await self.store.query(
            f"SELECT player, seat, count(*) FROM rating_changes WHERE pool = ? AND player IN ({marks})"
            " GROUP BY player, seat", (pool, *players))
        counts: dict[str, list[int]] = {}
        for player, seat, n in rows:
            seats = counts.setdefault(player, [])
            seats.extend([0] * (seat + 1 - len(seats)))
            seats[seat] = n
        return counts

    async def pool_games(self, pool: str, limit: int) -> list[str]:
        """The rooms of the pool's latest rated games, the latest first."""
        rows = await self.store.query("SELECT room_id FROM rated_games WHERE pool = ? ORDER BY seq DESC LIMIT ?",
                                      (pool, limit))
        return [room for (room,) in rows]

    async def pool_game_list(self, pool: str, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """The pool's latest rated games, the latest first: the room, when it ended, and each
        seat's player and place."""
        rows = await self.store.query(
            "SELECT g.room_id, g.finished_at, c.seat, c.player, c.rank FROM rated_games g"
            " JOIN rating_changes c ON c.room_id = g.room_id WHERE g.room_id IN"
            " (SELECT room_id FROM rated_games WHERE pool = ? ORDER BY seq DESC LIMIT ? OFFSET ?)"
            " ORDER BY g.seq DESC, c.seat", (pool, limit, offset))
        games: dict[str, dict[str, Any]] = {}
        for room, at, _seat, player, rank in rows:
            game = games.setdefault(room, {"room": room, "finished": at, "players": [], "ranks": []})
            game["players"].append(player)
            game["ranks"].append(rank)
        return list(games.values())

    async def recent_games(self, player: str, limit: int = 20) -> list[dict[str, Any]]:
        """The player's latest finished games in public rooms (rated or not), the latest first:
        the room, its pool and rules, the player's seat and place, every seat's name, the result's
        reason, when it ended, and where its record is."""
        rows = await self.store.query(
            "SELECT s.room_id, s.seat, f.body, f.finished_at, c.settings FROM seats s"
            " JOIN sessions x ON x.token = s.token JOIN results f ON f.room_id = s.room_id"
            " JOIN rooms r ON r.room_id = s.room_id JOIN room_settings c ON c.room_id = s.room_id"
            ' WHERE x."user" = ? AND r.invite IS NULL'
            " ORDER BY f.finished_at DESC, s.room_id LIMIT ?", (player, limit))
        if not rows:
            return []
        marks = ", ".join("?" * len(rows))
        names: dict[str, dict[int, str | None]] = {}
        for room, seat, name in await self.store.query(
                f"SELECT s.room_id, s.seat, x.name FROM seats s LEFT JOIN sessions x ON x.token = s.token"
                f" WHERE s.room_id IN ({marks})", tuple(row[0] for row in rows)):
            names.setdefault(room, {})[seat] = name
        games = []
        for room, seat, body, at, settings_text in rows:
            result, settings = json.loads(body), json.loads(settings_text)
            seats = names.get(room, {})
            games.append({"room": room, "pool": settings.get("pool"), "rules": settings.get("rules"),
                          "seat": seat, "place": result["ranking"][seat], "reason": result["reason"],
                          "seats": [seats.get(i) for i in range(settings["players"])], "finished": at,
                          "record": f"/api/games/{room}.json"})
        return games

    async def rebuild(self, write: bool = True) -> "Rebuilt":
        """Recompute every rating from the rated games in order and (with `write`) write them
        back, in one transaction; returns what differed."""
        report = Rebuilt()
        await self.store.run_step(rebuild_step(report, write))
        return report


@dataclass
class Rebuilt:
    """What a rebuild did: games replayed, and the (pool, player) whose stored rating differed."""

    games: int = 0
    players: int = 0
    differed: list[tuple[str, str]] = field(default_factory=list)


def rebuild_step(report: Rebuilt, write: bool = True) -> Step:
    """Read the rated games in order, replay them (`ratings.replay`), and with `write` rewrite
    `ratings` and each seat's before/after in `rating_changes`."""
    rows = yield ("SELECT g.room_id, g.pool, g.finished_at, c.seat, c.player, c.rank FROM rated_games g"
                  " JOIN rating_changes c ON c.room_id = g.room_id ORDER BY g.seq, c.seat", ())
    games: list[RatedGame] = []
    finished: list[float] = []
    for room, pool, at, seat, player, rank in rows:
        if not games or games[-1].room != room:
            games.append(RatedGame(room, pool, (), ()))
            finished.append(at)
        last = games[-1]
        games[-1] = RatedGame(room, pool, last.players + (player,), last.ranks + (rank,))
    ratings, changes = replay(games)
    stored = yield ("SELECT pool, player, mu, sigma, games, wins FROM ratings", ())
    now = {(pool, player): Rating(mu, sigma, n, wins) for pool, player, mu, sigma, n, wins in stored}
    report.games, report.players = len(games), len(ratings)
    report.differed = sorted(key for key in set(now) | set(ratings) if now.get(key) != ratings.get(key))
    if not write:
        return
    last_played: dict[tuple[str, str], float] = {}
    for game, at in zip(games, finished):
        for player in game.players:
            last_played[(game.pool, player)] = at
    yield ("DELETE FROM ratings", ())
    for (pool, player), rating in sorted(ratings.items()):
        yield ("INSERT INTO ratings (pool, player, mu, sigma, games, wins, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
               (pool, player, rating.mu, rating.sigma, rating.games, rating.wins, last_played[(pool, player)]))
    for game, seats in zip(games, changes):
        for seat, (before, after) in enumerate(seats):
            yield ("UPDATE rating_changes SET mu_before = ?, sigma_before = ?, mu = ?, sigma = ?"
                   " WHERE room_id = ? AND seat = ?", (before.mu, before.sigma, after.mu, after.sigma, game.room, seat))
