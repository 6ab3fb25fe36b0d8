"""HTTP JSON on the game port: rulesets, pools, standings, players, game records (docs/pools.md, "HTTP").

    GET /api/rulesets                   the rulesets this server plays, as `welcome.rulesets` lists them
    GET /api/pools                      the pools, with seekers and arena members now
    GET /api/pools/<pool>/standings     the pool's players by rating (?limit=, ?offset=)
    GET /api/players/<name>             a registered player's ratings, rating history, recent games
    GET /api/games/<room>.json          a game's record as JSON (the wire's `game` reply's record)
    GET /api/games/<room>.sgf           the same as SGF (two-player grids)
    GET /api/pools/<pool>/games         the pool's latest rated games, with links to their records (?limit=, ?offset=)
    GET /api/pools/<pool>/games.zip     the pool's latest rated games in one archive (?limit=, at most 500)

They read what the wire's listings read (the store and the hub), through `http.Endpoints`' hook
for /api/ paths. Answers are JSON with `Cache-Control: no-store`, except a finished game's record,
which never changes (`max-age` a day). A private room's game answers 404 like a missing one.
An archive replays every game in it on the server's loop, so one is built at a time; another asked
for meanwhile answers 503 with Retry-After.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import zipfile
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from polygo.protocol import ProtocolError
from polygo.protocol.messages import NAME_MAX
from polygo.rules import describe_presets

from ..rooms.games import board_of

if TYPE_CHECKING:
    from ..hub import Hub

STANDINGS = re.compile(r"/api/pools/([a-z0-9-]{1,32})/standings")
PLAYER = re.compile(r"/api/players/([^/]{1,96})")
GAME = re.compile(r"/api/games/([A-Za-z0-9]{1,32})\.(json|sgf)")
ARCHIVE = re.compile(r"/api/pools/([a-z0-9-]{1,32})/games\.zip")
POOL_GAMES = re.compile(r"/api/pools/([a-z0-9-]{1,32})/games")
FINISHED_MAX_AGE = 86400
ARCHIVE_MAX = 500
"""Games in one archive at most (`?limit=`, default 100)."""


def _answer(status: HTTPStatus, body: bytes, content_type: str, cache: str = "no-store") -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", cache)])
    return Response(status.value, status.phrase, headers, body)


def _json(value: Any, status: HTTPStatus = HTTPStatus.OK, cache: str = "no-store") -> Response:
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return _answer(status, body, "application/json", cache)


def _missing(what: str) -> Response:
    return _json({"error": "not-found", "message": what}, HTTPStatus.NOT_FOUND)


class Api:
    """The /api/ routes of one server."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._archiving = asyncio.Lock()

    async def __call__(self, request: Request) -> Response:
        parts = urlsplit(request.path)
        path, query = parts.path, parse_qs(parts.query)
        if path == "/api/rulesets":
            return _json({"rulesets": describe_presets()})
        if path == "/api/pools":
            return _json({"pools": self.hub.pool_list()})
        match = STANDINGS.fullmatch(path)
        if match:
            return await self._standings(match[1], query)
        match = PLAYER.fullmatch(path)
        if match:
            name = unquote(match[1])
            if len(name) > NAME_MAX or not name.isprintable():
                return _missing(f"no registered player {name!r}")
            return await self._player(name)
        match = GAME.fullmatch(path)
        if match:
            return await self._game(match[1], match[2])
        match = ARCHIVE.fullmatch(path)
        if match:
            return await self._archive(match[1], query)
        match = POOL_GAMES.fullmatch(path)
        if match:
            return await self._pool_games(match[1], query)
        return _missing(f"no such resource {path!r}; see /api/pools")

    def _pool_page(self, pool: str, query: dict[str, list[str]]) -> tuple[int, int] | Response:
        """A pool's listing's limit (at most 200) and offset, or the answer refusing them."""
        if pool not in self.hub.pools:
            return _missing(f"no pool {pool!r}")
        try:
            return _bounded(query, "limit", 50, 200), _bounded(query, "offset", 0, 10**9)
        except ValueError:
            return _json({"error": "bad-field", "message": "limit and offset are whole numbers"},
                         HTTPStatus.BAD_REQUEST)

    async def _standings(self, pool: str, query: dict[str, list[str]]) -> Response:
        page = self._pool_page(pool, query)
        if isinstance(page, Response):
            return page
        limit, offset = page
        online = self.hub.arena.online(pool)
        rows = await self.hub.pool_queries.standings(pool, limit, offset)
        for row in rows:
            row["in_arena"] = row["player"] in online
        return _json({"pool": pool, "standings": rows})

    async def _pool_games(self, pool: str, query: dict[str, list[str]]) -> Response:
        """The pool's latest rated games, each with its players, places and record URLs (SGF for
        two-player grids only, as `/api/games/<room>.sgf` answers)."""
        page = self._pool_page(pool, query)
        if isinstance(page, Response):
            return page
        limit, offset = page
        found = self.hub.pools[pool]
        sgf = found.players == 2 and board_of(found.board).kind == "grid"
        games = await self.hub.pool_queries.pool_game_list(pool, limit, offset)
        for game in games:
            game["json"] = f"/api/games/{game['room']}.json"
            game["sgf"] = f"/api/games/{game['room']}.sgf" if sgf else None
        return _json({"pool": pool, "games": games, "archive": f"/api/pools/{pool}/games.zip"})

    async def _archive(self, pool: str, query: dict[str, list[str]]) -> Response:
        """The pool's latest rated games, each as JSON and (two-player grids) SGF, in a zip."""
        if pool not in self.hub.pools:
            return _missing(f"no pool {pool!r}")
        try:
            limit = _bounded(query, "limit", 100, ARCHIVE_MAX)
        except ValueError:
            return _json({"error": "bad-field", "message": "limit is a whole number"}, HTTPStatus.BAD_REQUEST)
        if self._archiving.locked():
            return _json({"error": "busy", "message": "an archive is being built; ask again in a few seconds"},
                         HTTPStatus.SERVICE_UNAVAILABLE)
        async with self._archiving:
            data = io.BytesIO()
            with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
                for room in await self.hub.pool_queries.pool_games(pool, limit):
                    record = (await self.hub.record(room, "json")).record
                    archive.writestr(f"{pool}/{room}.json", json.dumps(record, ensure_ascii=False))
                    try:
                        archive.writestr(f"{pool}/{room}.sgf", (await self.hub.record(room, "sgf")).record)
                    except ProtocolError:
                        pass        # not a two-player grid: its JSON is the record
        body = data.getvalue()
        headers = Headers([("Content-Type", "application/zip"), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-store"),
                           ("Content-Disposition", f'attachment; filename="polygo-{pool}.zip"')])
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, body)

    async def _player(self, name: str) -> Response:
        if await self.hub.store.get_user(name) is None:
            return _missing(f"no registered player {name!r}")
        ratings = await self.hub.pool_queries.ratings_of(name)
        return _json({"name": name, "ratings": {pool: r.to_json() for pool, r in sorted(ratings.items())},
                      "history": await self.hub.pool_queries.history(name),
                      "recent": await self.hub.pool_queries.recent_games(name)})

    async def _game(self, room: str, fmt: str) -> Response:
        row = await self.hub.store.game(room)
        if row is None or row["invite"] is not None:
            return _missing(f"no game {room!r}")
        try:
            record = (await self.hub.record(room, fmt)).record
        except ProtocolError as exc:
            return _json({"error": exc.code.value, "message": exc.message}, HTTPStatus.NOT_FOUND)
        cache = f"public, max-age={FINISHED_MAX_AGE}" if row["result"] is not None else "no-store"
        if fmt == "sgf":
            return _answer(HTTPStatus.OK, record.encode(), "application/x-go-sgf; charset=utf-8", cache)
        return _json(record, cache=cache)


def _bounded(query: dict[str, list[str]], key: str, default: int, most: int) -> int:
    """A whole-number query parameter, clamped to 0 (1 for limits) .. `most`; ValueError if not a number."""
    value = int(query.get(key, [str(default)])[0])
    return min(most, max(1 if key == "limit" else 0, value))
