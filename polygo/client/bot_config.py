"""`polygo bot --config bot.toml`: a bot operator's settings, read with tomllib and checked key by key.

What gtp2ogs and lichess-bot operators set in their config files: the engine, the games to accept,
the chat lines, the undo and resign policies, how many games at once. Every key is checked before
anything starts; all the bad keys are reported at once, each with its table and a sentence
(`BotConfigError`, a usage error).
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from pathlib import Path
from typing import Any

from polygo.client.errors import UsageError
from polygo.client.gtp_game import grid_dims
from polygo.protocol.clock_settings import KINDS as CLOCK_KINDS


class BotConfigError(UsageError):
    """The config file cannot be used: one line per bad key."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        super().__init__(f"{path}: " + "; ".join(problems))
        self.problems = problems


@dataclasses.dataclass(frozen=True)
class Accept:
    """Which rooms the bot sits in; empty lists and None bounds accept anything."""

    boards: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    players: tuple[int, ...] = ()
    komi: tuple[float, float] | None = None
    handicap: tuple[int, int] = (0, 9)
    clocks: tuple[str, ...] = ()
    main_time: tuple[float, float] | None = None
    overtime: tuple[float, float] | None = None
    pools: tuple[str, ...] = ()
    """Pools whose games (seeks, challenges, the arena) the bot plays; rooms of no pool pass this filter."""
    rated: str = "both"
    """"rated", "unrated" or "both": which games the bot plays, by whether they change ratings."""

    def refusal(self, settings: dict[str, Any]) -> str | None:
        """Why a room with these settings is not for this bot (None: it is)."""
        pool, rated = settings.get("pool"), bool(settings.get("rated"))
        if self.pools and pool is not None and pool not in self.pools:
            return f"pool {pool} is not one of {', '.join(self.pools)}"
        if self.rated != "both" and rated != (self.rated == "rated"):
            return f"only {self.rated} games"
        board = settings.get("board")
        dims = grid_dims(settings)
        names = {str(board)} | ({f"{dims[0]}x{dims[1]}"} if dims else set())
        if self.boards and not names & {_board_name(b) for b in self.boards}:
            return f"board {board!r} is not one of {', '.join(self.boards)}"
        if self.rules and settings.get("rules") not in self.rules:
            return f"rules {settings.get('rules')} are not one of {', '.join(self.rules)}"
        if self.players and settings.get("players", 2) not in self.players:
            return f"{settings.get('players')} players is not one of {self.players}"
        komi = settings.get("komi")
        if self.komi is not None and komi is not None and not self.komi[0] <= komi <= self.komi[1]:
            return f"komi {komi} is outside {self.komi[0]:g}..{self.komi[1]:g}"
        handicap = settings.get("handicap") or 0
        if not self.handicap[0] <= handicap <= self.handicap[1]:
            return f"handicap {handicap} is outside {self.handicap[0]}..{self.handicap[1]}"
        return self._clock_refusal(settings.get("clock"))

    def _clock_refusal(self, clock: Any) -> str | None:
        kind = clock.get("kind", "none") if isinstance(clock, dict) else "none"
        if self.clocks and kind not in self.clocks:
            return f"a {kind} clock is not one of {', '.join(self.clocks)}"
        if kind == "none" or not isinstance(clock, dict):
            return None
        main = float(clock.get("main") or 0)
        if self.main_time is not None and not self.main_time[0] <= main <= self.main_time[1]:
            return f"main time {main:g} s is outside {self.main_time[0]:g}..{self.main_time[1]:g} s"
        extra = float(clock.get("period") or clock.get("increment") or 0)
        if self.overtime is not None and kind != "absolute" and not self.overtime[0] <= extra <= self.overtime[1]:
            return f"overtime {extra:g} s is outside {self.overtime[0]:g}..{self.overtime[1]:g} s"
        return None


def _board_name(board: str) -> str:
    """A grid spec as WxH ("19" -> "19x19"); other boards as written."""
    dims = grid_dims({"board": board})
    return board if dims is None else f"{dims[0]}x{dims[1]}"


@dataclasses.dataclass(frozen=True)
class BotConfig:
    """A whole config file, defaults filled in."""

    server: str | None = None
    name: str | None = None
    token_file: Path | None = None
    log_level: str = "INFO"
    gtp: str | None = None
    builtin: bool = False
    seed: int | None = None
    timeout: float = 60.0
    move_overhead: float = 0.0
    analysis: bool = False
    accept: Accept = Accept()
    max_games: int = 1
    total_games: int = 0
    idle_timeout: float = 300.0
    greeting: str = ""
    farewell: str = ""
    undo: str = "refuse"
    resign: str = "engine"
    max_resumes: int | None = 2
    seek: tuple[str, ...] = ()
    arena: str | None = None
    challenges: bool = False
    user: str | None = None
    password_env: str = "POLYGO_PASSWORD"


LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class _Reader:
    """Takes keys out of one table, checking each; what is left over is unknown."""

    def __init__(self, table: dict[str, Any], where: str, problems: list[str]) -> None:
        self.table = dict(table)
        self.where = where
        self.problems = problems

    def _bad(self, key: str, sentence: str) -> None:
        self.problems.append(f"{self.where}{key}: {sentence}")

    def take(self, key: str, kind: type | tuple[type, ...], default: Any, *, check=None, hint: str = "") -> Any:
        if key not in self.table:
            return default
        value = self.table.pop(key)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            self._bad(key, f"expected {hint or ' or '.join(k.__name__ for k in kinds)}, got {value!r}")
            return default
        if check is not None:
            sentence = check(value)
            if sentence:
                self._bad(key, sentence)
                return default
        return value

    def strings(self, key: str, allowed: tuple[str, ...] = ()) -> tuple[str, ...]:
        def check(values: list) -> str | None:
            if not all(isinstance(v, str) for v in values):
                return f"expected a list of strings, got {values!r}"
            wrong = [v for v in values if allowed and v not in allowed]
            return f"unknown {', '.join(map(repr, wrong))} (known: {', '.join(allowed)})" if wrong else None
        return tuple(self.take(key, list, [], check=check, hint="a list of strings"))

    def span(self, key: str, default: tuple | None, *, whole: bool = False) -> tuple | None:
        def check(values: list) -> str | None:
            numbers = (int,) if whole else (int, float)
            if len(values) != 2 or not all(isinstance(v, numbers) and not isinstance(v, bool) and math.isfinite(v)
                                           for v in values) or values[0] > values[1]:
                return f"expected [low, high] ({'whole ' if whole else ''}numbers, low <= high), got {values!r}"
            return None
        value = self.take(key, list, None, check=check, hint="[low, high]")
        return default if value is None else tuple(value)

    def number(self, key: str, default: float, *, low: float = 0.0, above: bool = False) -> float:
        def check(value: float) -> str | None:
            ok = math.isfinite(value) and (value > low if above else value >= low)
            return None if ok else f"expected a number {'above' if above else 'at least'} {low:g}, got {value!r}"
        return float(self.take(key, (int, float), default, check=check, hint="a number"))

    def count(self, key: str, default: int, *, low: int = 0) -> int:
        return self.take(key, int, default, check=lambda v: None if v >= low else f"expected {low} or more, got {v}",
                         hint="a whole number")

    def finish(self) -> None:
        for key in self.table:
            self._bad(key, "unknown key")


def read_config(path: Path) -> BotConfig:
    """The config at `path`; `BotConfigError` listing every bad key, or a file that cannot be read."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"cannot read the bot config {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not TOML: {exc}") from None
    return parse_config(data, path)


def parse_config(data: dict[str, Any], path: Path = Path("bot.toml")) -> BotConfig:
    """Check a parsed TOML document key by key (see docs/bots.md for the keys)."""
    problems: list[str] = []
    top = _Reader(data, "", problems)
    values: dict[str, Any] = {
        "server": top.take("server", str, None),
        "name": top.take("name", str, None, check=lambda v: None if 1 <= len(v) <= 32 else "expected 1 to 32 characters"),
        "log_level": top.take("log_level", str, "INFO",
                              check=lambda v: None if v in LEVELS else f"expected one of {', '.join(LEVELS)}"),
    }
    token_file = top.take("token_file", str, None)
    values["token_file"] = None if token_file is None else Path(token_file).expanduser()
    tables = {name: _Reader(top.take(name, dict, {}, hint="a table"), f"{name}.", problems)
              for name in ("engine", "accept", "games", "chat", "policy", "find")}
    values["user"] = top.take("user", str, None,
                              check=lambda v: None if 1 <= len(v) <= 32 else "expected 1 to 32 characters")
    values["password_env"] = top.take("password_env", str, "POLYGO_PASSWORD")
    top.finish()
    engine, accept, games, chat, policy, find = (tables[n] for n in ("engine", "accept", "games", "chat", "policy",
                                                                     "find"))
    values["gtp"] = engine.take("command", str, None, check=lambda v: None if v.strip() else "is empty")
    values["builtin"] = engine.take("builtin", bool, False)
    values["seed"] = engine.take("seed", int, None)
    values["timeout"] = engine.number("timeout", 60.0, above=True)
    values["move_overhead"] = engine.number("move_overhead", 0.0)
    values["analysis"] = engine.take("analysis", bool, False)
    if (values["gtp"] is None) == (not values["builtin"]):
        problems.append("engine: give exactly one of command = \"...\" (a GTP engine) and builtin = true")
    values["accept"] = Accept(
        boards=accept.strings("boards"), rules=accept.strings("rules"),
        players=tuple(accept.take("players", list, [], hint="a list of player counts",
                                  check=lambda v: None if all(isinstance(n, int) and 2 <= n <= 8 for n in v)
                                  else f"expected counts of 2 to 8, got {v!r}")),
        komi=accept.span("komi", None), handicap=accept.span("handicap", (0, 9), whole=True),
        clocks=accept.strings("clocks", CLOCK_KINDS), main_time=accept.span("main_time", None),
        overtime=accept.span("overtime", None), pools=accept.strings("pools"),
        rated=accept.take("rated", str, "both", check=lambda v: None if v in ("both", "rated", "unrated")
                          else 'expected "both", "rated" or "unrated"'))
    values["seek"] = find.strings("seek")
    values["arena"] = find.take("arena", str, None)
    values["challenges"] = find.take("challenges", bool, False)
    values["max_games"] = games.count("max_concurrent", 1, low=1)
    values["total_games"] = games.count("total", 0)
    values["idle_timeout"] = games.number("idle_timeout", 300.0, above=True)
    values["greeting"] = chat.take("greeting", str, "")
    values["farewell"] = chat.take("farewell", str, "")
    values["undo"] = policy.take("undo", str, "refuse",
                                 check=lambda v: None if v in ("refuse", "accept") else "expected \"refuse\" or \"accept\"")
    values["resign"] = policy.take("resign", str, "engine",
                                   check=lambda v: None if v in ("engine", "never") else "expected \"engine\" or \"never\"")
    resumes = policy.take("max_resumes", (int, str), 2, hint="a whole number or \"never\"",
                          check=lambda v: None if v == "never" or (isinstance(v, int) and v >= 0)
                          else "expected a whole number or \"never\"")
    values["max_resumes"] = None if resumes == "never" else resumes
    for reader in tables.values():
        reader.finish()
    if problems:
        raise BotConfigError(path, problems)
    return BotConfig(**values)
