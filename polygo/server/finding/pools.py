"""Pools: named kinds of rated game (ruleset, players, board, clock), as data.

A pool is what a seek, a challenge or the arena names instead of a room's whole settings, and what
ratings are kept per: a 3-player Kee rating on hex5 says nothing of a 9x9 Chinese one. The server
ships a few (`SHIPPED`); the operator adds more, replaces a shipped one by its name, or turns one
off, in a TOML file given with `--pools FILE` (docs/server.md, "Pools"):

    [pools.japanese-13x13]
    rules = "japanese"
    board = "13"
    clock = "byoyomi:600+5x30"
    title = "Japanese rules on 13x13"

    [pools.chinese-9x9]
    enabled = false

Every pool is checked as a room's settings would be (the engine builds its game) when the file is
read, so a bad file stops the server at start with a sentence naming the pool, never later at a
seek.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from polygo.protocol import RoomSettings

from ..rooms.games import SettingsError, normalize

POOL_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
"""Pool names: lower-case letters, digits and '-', as they appear in URLs (/api/pools/<name>)."""

KEYS = frozenset({"rules", "players", "board", "clock", "komi", "title", "rated", "arena", "enabled", "options"})


class PoolError(ValueError):
    """A pool file or a pool that the server cannot serve; the message names the pool."""


@dataclass(frozen=True)
class Pool:
    """One pool. `rated`: its games change ratings (only registered accounts may seek it).
    `arena`: players may also join it to be paired continuously (`arena.py`)."""

    name: str
    rules: str
    players: int = 2
    board: str = "19"
    clock: str = "none"
    komi: float | None = None
    title: str = ""
    rated: bool = True
    arena: bool = False
    options: dict[str, Any] | None = None

    def room_settings(self) -> RoomSettings:
        """The settings of a room of this pool."""
        return RoomSettings(rules=self.rules, board=self.board, players=self.players, komi=self.komi,
                            clock=self.clock, options=self.options, title=self.title or self.name)

    def stored_settings(self) -> dict[str, Any]:
        """The room's settings as the store keeps them: the normalized settings, marked with the
        pool's name and whether the game is rated (what the rating update reads at its end)."""
        return dict(normalize(self.room_settings()), pool=self.name, rated=self.rated)

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


SHIPPED: tuple[Pool, ...] = (
    Pool("kee-3p-hex5", "kee", players=3, board="hex5", clock="fischer:300+5",
         title="Kee rules, three players on hex5"),
    Pool("chinese-9x9", "chinese", board="9x9", clock="byoyomi:300+5x30", title="Chinese rules, 9x9"),
    Pool("chinese-19x19", "chinese", board="19", clock="byoyomi:1200+5x30", title="Chinese rules, 19x19"),
    Pool("japanese-13x13", "japanese", board="13", clock="byoyomi:600+5x30", title="Japanese rules, 13x13"),
    Pool("arena-9x9", "chinese", board="9x9", clock="fischer:120+2", arena=True,
         title="Bot arena: Chinese rules, 9x9, fast"),
)
"""The pools every server has unless its pool file turns them off."""


def check(pool: Pool) -> Pool:
    """`pool` if a room of it can be made, else PoolError naming the pool and the engine's reason."""
    if not POOL_NAME.fullmatch(pool.name):
        raise PoolError(f"pool name {pool.name!r}: use 1 to 32 lower-case letters, digits and '-'")
    try:
        stored = pool.stored_settings()
    except (SettingsError, ValueError, TypeError) as exc:
        raise PoolError(f"pool {pool.name!r}: {exc}") from None
    if pool.arena and stored["clock"]["kind"] == "none":
        raise PoolError(f"pool {pool.name!r}: an arena needs a clock (its games must end with nobody watching)")
    return pool


def load(path: str | Path | None) -> dict[str, Pool]:
    """The shipped pools with the file's changes, by name; PoolError on a bad file or pool."""
    pools = {pool.name: pool for pool in SHIPPED}
    if path is None:
        return pools
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PoolError(f"cannot read the pool file {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PoolError(f"the pool file {path} is not TOML: {exc}") from None
    extra = set(data) - {"pools"}
    if extra:
        raise PoolError(f"the pool file {path} has {', '.join(sorted(extra))}; it holds only [pools.NAME] tables")
    tables = data.get("pools", {})
    if not isinstance(tables, dict):
        raise PoolError(f"the pool file {path}: pools is a table of [pools.NAME] tables")
    for name, table in tables.items():
        pools.pop(name, None)
        pool = _from_table(name, table, pools_before={p.name: p for p in SHIPPED})
        if pool is not None:
            pools[name] = check(pool)
    return pools


def _from_table(name: str, table: Any, pools_before: dict[str, Pool]) -> Pool | None:
    """A pool from its TOML table; None if it says `enabled = false`. A table naming a shipped
    pool starts from it, so changing its clock alone is one line."""
    if not isinstance(table, dict):
        raise PoolError(f"pool {name!r}: [pools.{name}] must be a table")
    unknown = set(table) - KEYS
    if unknown:
        raise PoolError(f"pool {name!r}: unknown keys {', '.join(sorted(unknown))} "
                        f"(known: {', '.join(sorted(KEYS))})")
    if table.get("enabled", True) is False:
        return None
    fields = {key: value for key, value in table.items() if key != "enabled"}
    base = pools_before.get(name)
    if base is None and "rules" not in fields:
        raise PoolError(f"pool {name!r}: rules is missing (a ruleset preset such as \"chinese\")")
    types = {"rules": str, "players": int, "board": str, "clock": str, "komi": (int, float), "title": str,
             "rated": bool, "arena": bool, "options": dict}
    for key, value in fields.items():
        if not isinstance(value, types[key]) or (key != "rated" and key != "arena" and isinstance(value, bool)):
            raise PoolError(f"pool {name!r}: {key} has the wrong type ({type(value).__name__})")
    if "komi" in fields:
        fields["komi"] = float(fields["komi"])
    return replace(base, **fields) if base is not None else Pool(name=name, **fields)
