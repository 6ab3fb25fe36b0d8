"""A client's mirror of one room, kept from the server's snapshot and events (no I/O).

The mirror holds a real `gorules.Game`, rebuilt from the snapshot's history and advanced with each
`move` event, so bots search it and the terminal draws it with the same engine the server judges
with. An event that does not follow the last version applied, or that the mirror cannot apply, makes
`apply_event` answer False: the caller then resyncs (`watch` with `since`), or takes a fresh
snapshot when `needs_snapshot` says the mirror no longer agrees with the server.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gorules import Board, Game, GoRulesError
from protocol import Event, Events, Snapshot, engine_options

CHAT_KEPT = 50


def board_of(view: dict[str, Any]) -> Board:
    """The board of a snapshot's `game`: by its spec where it has one, else the graph itself."""
    spec = view.get("board_spec")
    if isinstance(spec, str) and not spec.endswith(".json"):
        return Board.parse(spec)
    return Board.from_json(view["board"])


@dataclasses.dataclass
class Clocks:
    """The clocks as last reported, and the local time (monotonic seconds) of that report."""

    running: int | None
    seats: list[dict[str, Any]]
    at: float

    def left(self, seat: int, now: float) -> float:
        """Seconds left for `seat` in its current main time or period, counted down locally."""
        clock = self.seats[seat]
        main = float(clock.get("main") or 0.0)
        period = float(clock.get("period_left") or 0.0)
        if self.running != seat:
            return main if main > 0 else period
        spent = self._spent(seat, now)
        if main > spent:
            return main - spent
        return max(0.0, period - (spent - main))

    def _spent(self, seat: int, now: float) -> float:
        """Seconds `seat`'s clock has run since the report (none unless it is the running one)."""
        return max(0.0, now - self.at) if self.running == seat else 0.0

    def describe(self, seat: int, now: float) -> str:
        """`m:ss`, with the periods left in byo-yomi and the stones left in Canadian overtime."""
        left = self.left(seat, now)
        text = f"{int(left) // 60}:{int(left) % 60:02d}"
        clock = self.seats[seat]
        if not clock.get("main") and clock.get("periods"):
            text += f" ({clock['periods']}p)"
        if not clock.get("main") and clock.get("stones_left"):
            text += f" /{clock['stones_left']}"
        return text


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
        """Replace everything with the snapshot's state."""
        self.version = snapshot.version
        self.status = snapshot.status
        self.settings = dict(snapshot.settings)
        self.seats = [dict(seat) for seat in snapshot.seats]
        view = snapshot.game
        self.result = view.get("result")
        self.undo = snapshot.undo
        self.clocks = _clocks(snapshot.clocks, now)
        self.game = Game(board_of(view), rules=view.get("rules") or self.settings["rules"],
                         players=view.get("players") or len(self.seats), **engine_options(self.settings))
        for seat, move, *_ in view.get("history", []):
            self.game.play(move, seat=seat)
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
        """Apply the next event; True when applied (or already seen), False when a resync is needed."""
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
            self.clocks = _clocks(data["clocks"], now)
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
        elif kind == "start":
            self.status = "playing"
        elif kind == "move":
            self.game.play(data["move"], seat=data["seat"])
            self.undo = None
            if self.game.phase == "ended":
                self.status = "ended"
        elif kind == "timeout":
            if self.game.active[data["seat"]]:
                self.game.play("timeout", seat=data["seat"])
            if self.game.phase == "ended":
                self.status = "ended"
        elif kind == "undo-request":
            self.undo = {"seat": data["seat"], "accepted": []}
        elif kind == "undo-reply":
            if not data.get("accept"):
                self.undo = None
            elif self.undo is not None:
                self.undo["accepted"].append(data["seat"])
        elif kind == "undo":
            moves = [[p.seat, p.move] for p in self.game.history]
            del moves[data["index"]]
            record = self.game.to_record()
            record["moves"] = moves
            self.game = Game.from_record(record)
            self.undo = None
        elif kind == "analysis":
            self.analysis[data["seat"]] = data
        elif kind == "chat":
            self.chat.append((data.get("name") or "?", data.get("text", "")))
            self.chat_total += 1
            del self.chat[:-CHAT_KEPT]

    def seat_name(self, seat: int) -> str:
        return self.seats[seat].get("name") or "(free)"


def _clocks(data: dict[str, Any] | None, now: float) -> Clocks | None:
    if not data:
        return None
    return Clocks(running=data.get("running"), seats=list(data.get("seats") or []), at=now)
