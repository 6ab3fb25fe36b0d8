"""A client's mirror of one room, kept from the server's snapshot and events (no I/O).

The mirror holds a real `polygo.rules.Game`, rebuilt from the snapshot's history and advanced with each
`move` event, so bots search it and the terminal draws it with the same engine the server judges
with. An event that does not follow the last version applied, or that the mirror cannot apply, makes
`apply_event` answer False: the caller then resyncs (`watch` with `since`), or takes a fresh
snapshot when `needs_snapshot` says the mirror no longer agrees with the server.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from polygo.rules import Board, Game, GoRulesError
from polygo.protocol import Event, Events, Snapshot, engine_options

CHAT_KEPT = 50
LOG_KEPT = 200


def board_of(view: dict[str, Any]) -> Board:
    """The board of a snapshot's `game`: by its spec where it has one, else the graph itself."""
    spec = view.get("board_spec")
    if isinstance(spec, str) and not spec.endswith(".json"):
        return Board.parse(spec)
    return Board.from_json(view["board"])


@dataclasses.dataclass
class Clocks:
    """The clocks as last reported, and the local time (monotonic seconds) of that report.

    `settings` is the room's clock (the settings' map form, e.g. `{"kind": "byoyomi", "main": 600,
    "periods": 5, "period": 30}`); with it, a running byo-yomi clock counts from one period into
    the next between two reports, as the server's does.
    """

    running: int | None
    seats: list[dict[str, Any]]
    at: float
    settings: dict[str, Any] | None = None

    def state(self, seat: int, now: float) -> tuple[float, int, float, int]:
        """(main, periods, period_left, stones_left) of `seat` at `now`, counted down locally."""
        clock = self.seats[seat]
        main = float(clock.get("main") or 0.0)
        periods = int(clock.get("periods") or 0)
        period_left = float(clock.get("period_left") or 0.0)
        stones = int(clock.get("stones_left") or 0)
        spent = self._spent(seat, now)
        if main > spent:
            return main - spent, periods, period_left, stones
        over = spent - main
        kind = (self.settings or {}).get("kind")
        length = float((self.settings or {}).get("period") or 0.0)
        if kind == "byoyomi" and length > 0 and over >= period_left and periods > 0:
            lost = 1 + int((over - period_left) // length)
            if lost >= periods:
                return 0.0, 0, 0.0, stones
            return 0.0, periods - lost, length - (over - period_left) % length, stones
        return 0.0, periods, max(0.0, period_left - over), stones

    def left(self, seat: int, now: float) -> float:
        """Seconds left for `seat` in its current main time or period, counted down locally."""
        main, _, period_left, _ = self.state(seat, now)
        return main if main > 0 else period_left

    def _spent(self, seat: int, now: float) -> float:
        """Seconds `seat`'s clock has run since the report (none unless it is the running one)."""
        return max(0.0, now - self.at) if self.running == seat else 0.0

    def describe(self, seat: int, now: float) -> str:
        """The clock as players read it, for every kind: main time, then what follows it.

        `9:58+5x30s` (byo-yomi: main, then 5 periods of 30 s), `0:27 x3` (in byo-yomi: this period's
        time, 3 periods left counting this one), `9:58+5:00/25` and `4:12 /20` (Canadian: the block's
        time and the stones still owed in it), `4:58 +10s` (Fischer increment), `4:58` (absolute),
        `2d 23h 59m` (correspondence, a day or more left).
        """
        if self.seats[seat].get("main") is None:
            return ""
        main, periods, period_left, stones = self.state(seat, now)
        settings = self.settings or {}
        kind = settings.get("kind")
        if kind == "corr" and main >= 86400:
            days, rest = divmod(int(main), 86400)
            return f"{days}d {rest // 3600}h {rest // 60 % 60:02d}m"
        if main > 0:
            text = _mmss(main)
            if kind == "byoyomi":
                text += f"+{periods}x{_seconds(float(settings.get('period') or period_left))}"
            elif kind == "canadian":
                text += f"+{_mmss(float(settings.get('period') or period_left))}/{settings.get('stones', stones)}"
            elif kind == "fischer" and settings.get("increment"):
                text += f" +{_seconds(float(settings['increment']))}"
            elif kind is None and periods:
                text += f" +{periods}p"
            return text
        if kind == "canadian" or (kind is None and stones):
            return f"{_mmss(period_left)} /{stones}"
        if kind == "byoyomi" or (kind is None and periods):
            return f"{_mmss(period_left)} x{periods}"
        return _mmss(0.0)


def _mmss(seconds: float) -> str:
    whole = int(math.ceil(seconds - 1e-9)) if seconds > 0 else 0
    if whole >= 3600:
        return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return f"{whole // 60}:{whole % 60:02d}"


def _seconds(value: float) -> str:
    return f"{value:g}s" if value < 60 or value % 60 else f"{int(value) // 60}m"


class RoomView:
    """What a client knows of a room: settings, seats, the game, clocks, chat, at `version`."""

    def __init__(self, snapshot: Snapshot, now: float) -> None:
        self.room = snapshot.room
        self.chat: list[tuple[str, str]] = []
        self.chat_total = 0
        """Chat lines seen since the view was made (`chat` keeps the last CHAT_KEPT of them)."""
        self.analysis: dict[int, dict[str, Any]] = {}
        """The latest `analysis` event of each seat (score, winrate, pv, index), for spectators."""
        self.last_kind = "snapshot"
        self.apply_snapshot(snapshot, now)

    def apply_snapshot(self, snapshot: Snapshot, now: float) -> None:
        """Replace everything with the snapshot's state (the move log is rebuilt from the history)."""
        self.version = snapshot.version
        self.status = snapshot.status
        self.settings = dict(snapshot.settings)
        self.seats = [dict(seat) for seat in snapshot.seats]
        view = snapshot.game
        self.result = view.get("result")
        self.undo = snapshot.undo
        self.clocks = self._clocks(snapshot.clocks, now)
        self.game = Game(board_of(view), rules=view.get("rules") or self.settings["rules"],
                         players=view.get("players") or len(self.seats), **engine_options(self.settings))
        self.log: list[LogEntry] = []
        self.captured = [0] * len(self.game.players)
        for seat, move, *_ in view.get("history", []):
            self._play(move, seat)
        self.last_kind = "snapshot"
        self.needs_snapshot = False

    def apply_events(self, events: Events, now: float) -> bool:
        """Apply a `watch` reply's missed events; False when one of them cannot be applied."""
        for data in events.events:
            head = {k: data[k] for k in ("version", "kind") if k in data}
            rest = {k: v for k, v in data.items() if k not in ("version", "kind", "type", "room")}
            if len(head) != 2:
                return False
            event = Event(room=self.room, version=head["version"], kind=head["kind"], data=rest)
            if event.version <= self.version:
                continue
            if not self.apply_event(event, now):
                return False
        return True

    def apply_event(self, event: Event, now: float) -> bool:
        """Apply the next event; True when applied (or already seen), False when a resync is needed.
        Presence takes no version of its own (it carries the room's latest): it never advances the
        mirror, and one ahead of it says the mirror missed an event (a resync's reply and the
        presence sent after it may arrive in either order here)."""
        if event.kind == "presence":
            return event.version <= self.version
        if event.version <= self.version:
            return True
        if event.version != self.version + 1:
            return False
        data = event.data
        try:
            self._apply(event.kind, data)
        except (GoRulesError, KeyError, IndexError, TypeError, ValueError):
            self.needs_snapshot = True
            return False
        if "clocks" in data:
            self.clocks = self._clocks(data["clocks"], now)
        if data.get("result") is not None:
            self.result = data["result"]
            self.status = "ended"
        self.version = event.version
        self.last_kind = event.kind
        if "to_move" in data and self.game.to_move != data["to_move"]:
            self.needs_snapshot = True
            return False
        return True

    def _apply(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "seat":
            seat = self.seats[data["seat"]]
            seat["name"], seat["user"] = data.get("name"), data.get("user")
            self._note(data["seat"], "sits down" if data.get("name") else "leaves the seat")
        elif kind == "start":
            self.status = "playing"
            self._note(None, "the game starts")
        elif kind == "move":
            self._play(data["move"], data["seat"])
            self.undo = None
            if self.game.phase == "ended":
                self.status = "ended"
        elif kind == "timeout":
            if self.game.active[data["seat"]]:
                self._play("timeout", data["seat"])
            if self.game.phase == "ended":
                self.status = "ended"
        elif kind == "undo-request":
            self.undo = {"seat": data["seat"], "accepted": []}
            self._note(data["seat"], "asks to take back the last move ('undo yes' / 'undo no')")
        elif kind == "undo-reply":
            if not data.get("accept"):
                self.undo = None
            elif self.undo is not None:
                self.undo["accepted"].append(data["seat"])
            self._note(data["seat"], "agrees to the undo" if data.get("accept") else "refuses the undo")
        elif kind == "undo":
            moves = [[p.seat, p.move] for p in self.game.history]
            taken = moves.pop(data["index"])
            record = self.game.to_record()
            record["moves"] = moves
            self.game = Game.from_record(record)
            self.captured = captures_by_seat(self.game)
            self.undo = None
            self._note(taken[0], f"takes back {taken[1]} (undo)")
        elif kind == "analysis":
            self.analysis[data["seat"]] = data
        elif kind == "chat":
            self.chat.append((data.get("name") or "?", data.get("text", "")))
            self.chat_total += 1
            del self.chat[:-CHAT_KEPT]

    def _play(self, move: str, seat: int) -> None:
        """Play a move of the history on the mirror, and say in the log what it did."""
        before = self.game.stones()
        rescinded = {i for i, p in enumerate(self.game.history) if p.rescinded} if move == "pass" else set()
        play = self.game.play(move, seat=seat)
        taken = sum(1 for p in play.captures if before.get(p) not in (None, seat))
        self.captured[seat] += taken
        self._note(seat, describe_play(self.game, play.move, seat, taken), len(self.game.history))
        if move == "pass":
            for i, p in enumerate(self.game.history):
                if p.rescinded and i not in rescinded and p.move != "pass" and not p.move.startswith("appeal"):
                    self._note(seat, f"rescinds {self.game.players[p.seat]}'s {p.move} (Kee rule 13): "
                                     f"it leaves the board and {self.game.players[p.seat]} plays again")
        if self.game.result is not None and self.game.phase == "ended":
            self._note(None, f"game over: {result_line(self.game.players, _result_map(self.game))}")

    def _note(self, seat: int | None, text: str, number: int | None = None) -> None:
        self.log.append(LogEntry(seat, text, number))
        del self.log[:-LOG_KEPT]

    def _clocks(self, data: dict[str, Any] | None, now: float) -> Clocks | None:
        if not data:
            return None
        clock = self.settings.get("clock")
        return Clocks(running=data.get("running"), seats=list(data.get("seats") or []), at=now,
                      settings=clock if isinstance(clock, dict) else None)

    def seat_name(self, seat: int) -> str:
        return self.seats[seat].get("name") or "(free)"


@dataclasses.dataclass(frozen=True)
class LogEntry:
    """One line of the move log: who (a seat, or None for the room), what, at which move number."""

    seat: int | None
    text: str
    number: int | None = None


def describe_play(game: Game, move: str, seat: int, taken: int) -> str:
    """What a move of the history did, in words (`game` is the game just after it)."""
    word, _, rest = move.partition(" ")
    if word == "pass":
        return "passes"
    if word == "appeal":
        return f"appeals for {rest} (an appealing pass, Kee rule 12)"
    if word == "resign":
        return "resigns" if len(game.players) == 2 else "resigns and drops out"
    if word == "timeout":
        return "runs out of time" + ("" if len(game.players) == 2 else " and drops out")
    if word == "dead":
        return f"marks {rest} {'dead' if rest in game.dead else 'alive'}"
    if word == "done":
        return "accepts the dead marks ('done')"
    if word == "resume":
        return "disputes the marks: play resumes"
    if word == "rank":
        return f"proposes the ranking {rest} ('accept' / 'reject')"
    if word in ("accept", "reject"):
        return f"{word}s the proposed ranking"
    return move + (f", capturing {taken}" if taken else "")


def captures_by_seat(game: Game) -> list[int]:
    """Stones of the others that each seat captured over the live history of `game`."""
    replay = Game.from_record({**game.to_record(), "moves": []})
    captured = [0] * len(game.players)
    for play in game.history:
        before = replay.stones()
        done = replay.play(play.move, seat=play.seat)
        captured[play.seat] += sum(1 for p in done.captures if before.get(p) not in (None, play.seat))
    return captured


def _result_map(game: Game) -> dict[str, Any]:
    result = game.result
    assert result is not None
    return {"reason": result.reason, "ranking": list(result.ranking), "score": list(result.score)}


def result_text(players: tuple[str, ...] | list[str], result: dict[str, Any]) -> str:
    """A result as Go players write it: `W+7.5`, `B+R` (resignation), `W+T` (time), `Jigo`; with
    three or more players, the places and scores.

    >>> result_text(["black", "white"], {"reason": "passes", "ranking": [2, 1], "score": [40, 47.5]})
    'W+7.5'
    >>> result_text(["black", "white"], {"reason": "resignation", "ranking": [1, 2], "score": [0, 0]})
    'B+R'
    """
    ranking, score = result.get("ranking") or [], result.get("score") or []
    reason = result.get("reason")
    if len(players) == 2 and len(ranking) == 2:
        if ranking[0] == ranking[1]:
            return "Jigo (a draw)"
        winner = 0 if ranking[0] < ranking[1] else 1
        letter = {"black": "B", "white": "W"}.get(players[winner], players[winner])
        if reason == "resignation":
            return f"{letter}+R"
        if reason == "timeout":
            return f"{letter}+T"
        margin = abs(score[0] - score[1]) if len(score) == 2 else 0
        return f"{letter}+{margin:g}"
    places = sorted(range(len(ranking)), key=lambda s: ranking[s])
    parts = [f"{ranking[s]}. {players[s]}" + (f" {score[s]:g}" if s < len(score) else "") for s in places]
    return ", ".join(parts)


REASON_WORDS = {"passes": "by passes", "resignation": "by resignation", "timeout": "on time",
                "agreement": "by agreement", "no-result": "no result"}
"""How a result's reason is said after it: `W+7.5 (by passes)`, `1. red 38, 2. white 3 (by passes)`."""


def result_line(players: tuple[str, ...] | list[str], result: dict[str, Any]) -> str:
    """The result and, in brackets, how the game ended.

    >>> result_line(["black", "white", "red"], {"reason": "passes", "ranking": [3, 2, 1], "score": [0, 3, 38]})
    '1. red 38, 2. white 3, 3. black 0 (by passes)'
    """
    reason = result.get("reason")
    return f"{result_text(players, result)} ({REASON_WORDS.get(str(reason), reason)})"
