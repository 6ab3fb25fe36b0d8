"""The messages of the wire protocol, one frozen dataclass each.

Client messages are checked strictly (`protocol.schema`): unknown fields, wrong types and oversized
values are refused. Server messages are read leniently by clients (`parse_server`): a client must
ignore fields and event kinds it does not know, so the server can grow within a protocol version.
Every client message may carry an integer `id`; the server copies it into its direct reply.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .schema import number, sized, text

NAME_MAX = 32            # display and user names
TOKEN_MAX = 64
PASSWORD_MAX = 128
ROOM_MAX = 32            # room ids and invitation codes
MOVE_MAX = 64            # move strings ("rank 1 2 2 4 ...", point names of graph boards)
CHAT_MAX = 500
TITLE_MAX = 80
PLAYERS_MAX = 8
SEQ_MAX = 2**53          # a client sequence number fits a double, for JavaScript clients
ID_MAX = 2**53
GRAPH_MAX = 4096         # entries in a board graph's "points" / "edges"
CLOCK_MAX = 64           # a clock spec string ("fischer:300+10max600") or entries of its map form


# ---------------------------------------------------------------------------------------- settings

@dataclass(frozen=True, kw_only=True)
class RoomSettings:
    """What `create` asks for; the engine decides whether the combination is playable.

    `board` is a spec string for `gorules.Board.parse` ("19", "9x9", "torus:9x9", a shipped graph
    name) or a graph map `{"points": [...], "edges": [[a, b], ...], "coords": {...}}`.
    `clock` is a spec string ("none", "absolute:600", "byoyomi:600+5x30", "fischer:300+10",
    "canadian:600+300/25") or the map form of the clock settings.
    """

    rules: str = text(32)
    board: str | dict = sized(GRAPH_MAX, default="19")
    players: int = number(2, PLAYERS_MAX, default=2)
    komi: float | None = number(-1000, 1000, default=None)
    handicap: int = number(0, 25, default=0)
    handicap_mode: str = text(8, default="fixed")
    superko: str | None = text(16, default=None)
    clock: str | dict | None = sized(CLOCK_MAX, default=None)
    private: bool = False
    title: str = text(TITLE_MAX, min_len=0, default="")
    bots: int = number(0, PLAYERS_MAX - 1, default=0)
    """The last `bots` seats are played by the server's own bot (so a game against bots survives
    its players' programs and the server's restarts)."""

    def to_json(self) -> dict[str, Any]:
        """The settings as a plain map (stored with the room, shown in listings)."""
        return dataclasses.asdict(self)


def engine_options(settings: dict[str, Any]) -> dict[str, Any]:
    """The keyword options for `gorules.Game` that a room's settings map sets.

    Here, beside the settings, because the server and every client build the same game from them.
    """
    options: dict[str, Any] = {}
    if settings.get("komi") is not None:
        options["komi"] = settings["komi"]
    if settings.get("handicap"):
        options["handicap"] = settings["handicap"]
        options["handicap_mode"] = settings.get("handicap_mode") or "fixed"
    if settings.get("superko") is not None:
        options["superko"] = settings["superko"]
    return options


# ---------------------------------------------------------------------------------- client -> server

@dataclass(frozen=True, kw_only=True)
class ClientMessage:
    """Base of the messages a client sends."""

    TYPE: ClassVar[str] = ""
    id: int | None = number(0, ID_MAX, default=None)


@dataclass(frozen=True, kw_only=True)
class Hello(ClientMessage):
    """First message. Exactly one of: `name` (new session), `token` (resume), `user`+`password`."""

    TYPE: ClassVar[str] = "hello"
    protocol: int = number(0, 1000)
    name: str | None = text(NAME_MAX, default=None)
    token: str | None = text(TOKEN_MAX, default=None)
    user: str | None = text(NAME_MAX, default=None)
    password: str | None = text(PASSWORD_MAX, default=None)
    client: str | None = text(64, min_len=0, default=None)


@dataclass(frozen=True, kw_only=True)
class Register(ClientMessage):
    """Bind the current session to a new registered user name with a password."""

    TYPE: ClassVar[str] = "register"
    user: str = text(NAME_MAX)
    password: str = text(PASSWORD_MAX)


@dataclass(frozen=True, kw_only=True)
class ListRooms(ClientMessage):
    """Ask for the public rooms that are waiting for players or being played."""

    TYPE: ClassVar[str] = "list"


@dataclass(frozen=True, kw_only=True)
class Create(ClientMessage):
    """Create a room; the reply is `created` (the creator still has to `sit`)."""

    TYPE: ClassVar[str] = "create"
    settings: RoomSettings


@dataclass(frozen=True, kw_only=True)
class Sit(ClientMessage):
    """Take a seat (a given one or the first free); the reply is the room's snapshot."""

    TYPE: ClassVar[str] = "sit"
    room: str = text(ROOM_MAX)
    seat: int | None = number(0, PLAYERS_MAX - 1, default=None)
    invite: str | None = text(ROOM_MAX, default=None)


@dataclass(frozen=True, kw_only=True)
class Watch(ClientMessage):
    """Subscribe to a room's events; with `since`, get only the events after that version."""

    TYPE: ClassVar[str] = "watch"
    room: str = text(ROOM_MAX)
    since: int | None = number(0, SEQ_MAX, default=None)
    invite: str | None = text(ROOM_MAX, default=None)


@dataclass(frozen=True, kw_only=True)
class Leave(ClientMessage):
    """Stop watching a room; before the game starts, also give up the seat held there."""

    TYPE: ClassVar[str] = "leave"
    room: str = text(ROOM_MAX)


@dataclass(frozen=True, kw_only=True)
class Move(ClientMessage):
    """A move string for the sender's seat (see docs/engine.md); `seq` makes resending safe."""

    TYPE: ClassVar[str] = "move"
    room: str = text(ROOM_MAX)
    move: str = text(MOVE_MAX)
    seq: int = number(0, SEQ_MAX)


@dataclass(frozen=True, kw_only=True)
class Undo(ClientMessage):
    """Ask the other players to let the sender take back its last move."""

    TYPE: ClassVar[str] = "undo"
    room: str = text(ROOM_MAX)


@dataclass(frozen=True, kw_only=True)
class UndoReply(ClientMessage):
    """Accept or refuse the pending undo request."""

    TYPE: ClassVar[str] = "undo_reply"
    room: str = text(ROOM_MAX)
    accept: bool


@dataclass(frozen=True, kw_only=True)
class Chat(ClientMessage):
    """A line of chat for everyone in the room."""

    TYPE: ClassVar[str] = "chat"
    room: str = text(ROOM_MAX)
    text: str = text(CHAT_MAX)


@dataclass(frozen=True, kw_only=True)
class ListGames(ClientMessage):
    """Ask for finished games, newest first."""

    TYPE: ClassVar[str] = "games"
    limit: int = number(1, 200, default=50)
    offset: int = number(0, 10**9, default=0)


@dataclass(frozen=True, kw_only=True)
class GetGame(ClientMessage):
    """Ask for one game's record, as a JSON map or as SGF text."""

    TYPE: ClassVar[str] = "game"
    room: str = text(ROOM_MAX)
    format: str = text(8, default="json")


CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {
    cls.TYPE: cls for cls in (Hello, Register, ListRooms, Create, Sit, Watch, Leave, Move, Undo,
                              UndoReply, Chat, ListGames, GetGame)
}


# ---------------------------------------------------------------------------------- server -> client

@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    """A message class's field names (dataclasses.fields is too slow for every message sent)."""
    return tuple(f.name for f in dataclasses.fields(cls))


@dataclass(frozen=True, kw_only=True)
class ServerMessage:
    """Base of the messages the server sends; `id` echoes the request's id in direct replies."""

    TYPE: ClassVar[str] = ""
    id: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """The message as a plain map, `type` first, fields that are None left out."""
        out: dict[str, Any] = {"type": self.TYPE}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True, kw_only=True)
class Welcome(ServerMessage):
    """Reply to hello: the session's token (keep it), identity, seats held and the server's limits."""

    TYPE: ClassVar[str] = "welcome"
    protocol: int
    token: str
    name: str
    user: str | None = None
    seats: list = field(default_factory=list)
    limits: dict = field(default_factory=dict)
    server: str = "polygo"


@dataclass(frozen=True, kw_only=True)
class Error(ServerMessage):
    """A refused message: `code` (protocol.ErrorCode), a sentence, and context when known."""

    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    ref: str | None = None       # the type of the refused message
    room: str | None = None
    seq: int | None = None
    reason: str | None = None    # the engine's reason code, for illegal-move
    field: str | None = None


@dataclass(frozen=True, kw_only=True)
class Ok(ServerMessage):
    """Success of a request that has no other reply (register, leave, undo, undo_reply, chat)."""

    TYPE: ClassVar[str] = "ok"
    ref: str
    room: str | None = None


@dataclass(frozen=True, kw_only=True)
class Ack(ServerMessage):
    """A move is durably stored and applied as event `version` of the room."""

    TYPE: ClassVar[str] = "ack"
    room: str
    seq: int
    version: int


@dataclass(frozen=True, kw_only=True)
class Created(ServerMessage):
    """A new room; `invite` is the code to share for a private room."""

    TYPE: ClassVar[str] = "created"
    room: str
    invite: str | None = None


@dataclass(frozen=True, kw_only=True)
class Rooms(ServerMessage):
    """Reply to list."""

    TYPE: ClassVar[str] = "rooms"
    rooms: list = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Snapshot(ServerMessage):
    """A room's whole state at `version`; events with higher versions follow."""

    TYPE: ClassVar[str] = "snapshot"
    room: str
    version: int
    status: str                  # "waiting", "playing", "ended"
    settings: dict
    seats: list
    game: dict
    clocks: dict | None = None
    undo: dict | None = None     # the pending undo request


@dataclass(frozen=True, kw_only=True)
class Events(ServerMessage):
    """Reply to watch with `since`: the missed events, oldest first."""

    TYPE: ClassVar[str] = "events"
    room: str
    events: list = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Event(ServerMessage):
    """One change in a room. On the wire its `data` fields sit beside room, version and kind."""

    TYPE: ClassVar[str] = "event"
    room: str
    version: int
    kind: str
    data: dict = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {"type": "event", "room": self.room, "version": self.version, "kind": self.kind, **self.data}


@dataclass(frozen=True, kw_only=True)
class Games(ServerMessage):
    """Reply to games: finished games, newest first."""

    TYPE: ClassVar[str] = "games"
    games: list = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class GameRecord(ServerMessage):
    """Reply to game: `record` is a map (format "json") or SGF text (format "sgf")."""

    TYPE: ClassVar[str] = "game"
    room: str
    format: str
    record: Any


SERVER_MESSAGES: dict[str, type[ServerMessage]] = {
    cls.TYPE: cls for cls in (Welcome, Error, Ok, Ack, Created, Rooms, Snapshot, Events, Event,
                              Games, GameRecord)
}
