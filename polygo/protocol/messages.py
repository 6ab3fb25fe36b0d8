"""The messages of the wire protocol, one msgspec Struct each.

Client messages are checked strictly, in the same pass that decodes them (`polygo.protocol.codec`):
unknown fields, wrong types and oversized values are refused, each field's bounds are in its type
below. Server messages are read leniently by clients (`parse_server`): a client must ignore fields
and event kinds it does not know, so the server can grow within a protocol version. Every client
message may carry an integer `id`; the server copies it into its direct reply. The JSON Schema in
docs/schema/ is generated from these classes (`python -m polygo.protocol.jsonschema`).
"""

import math
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta, Struct

NAME_MAX = 32            # display and user names
TOKEN_MAX = 64
PASSWORD_MAX = 128
ROOM_MAX = 32            # room ids and invitation codes
MOVE_MAX = 64            # move strings ("rank 1 2 2 4 ...", point names of graph boards)
CHAT_MAX = 500
PV_MAX = 32              # moves in an analysis' principal variation
TITLE_MAX = 80
PLAYERS_MAX = 8
SEQ_MAX = 2**53          # a client sequence number fits a double, for JavaScript clients
ID_MAX = 2**53
LIST_MAX = 100           # rooms in one page of `list`
GRAPH_MAX = 4096         # entries in a board graph's "points" / "edges"
CLOCK_MAX = 64           # a clock spec string ("fischer:300+10max600") or entries of its map form


def text(max_len: int, *, min_len: int = 1, about: str = "") -> Any:
    """A string of `min_len`..`max_len` characters."""
    return Annotated[str, Meta(min_length=min_len, max_length=max_len, description=about or None)]


def number(kind: type, low: float, high: float, about: str = "") -> Any:
    """An integer or a number (`kind`) within [low, high]."""
    return Annotated[kind, Meta(ge=low, le=high, description=about or None)]


Name = text(NAME_MAX)
RoomId = text(ROOM_MAX, about="a room id")
Invite = text(ROOM_MAX, about="a private room's invitation code")
RequestId = number(int, 0, ID_MAX, "copied into the direct reply")
Seq = number(int, 0, SEQ_MAX)
ChatText = text(CHAT_MAX)
Graph = Annotated[dict[str, Any], Meta(max_length=GRAPH_MAX, description=
                  'a board graph {"points": [...], "edges": [[a, b], ...], "coords": {...}}')]
Options = Annotated[dict[str, Any], Meta(max_length=16, description=
                    'any other option of the ruleset by its engine name, e.g. {"a1": "off"}')]
ClockMap = Annotated[dict[str, Any], Meta(max_length=CLOCK_MAX, description=
                     'a clock\'s map form {"kind": "fischer", "main": 300, "increment": 10}')]


# ---------------------------------------------------------------------------------------- settings

class RoomSettings(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What `create` asks for; the engine decides whether the combination is playable.

    `board` is a spec string for `polygo.rules.Board.parse` ("19", "9x9", "torus:9x9", a shipped graph
    name) or a graph map `{"points": [...], "edges": [[a, b], ...], "coords": {...}}`.
    `clock` is a spec string ("none", "absolute:600", "byoyomi:600+5x30", "fischer:300+10",
    "canadian:600+300/25", "corr:3d") or the map form of the clock settings. `options` holds any other option
    of the ruleset, by its engine name (`{"a1": "off", "move_cap_per_point": 5}`); the engine checks
    them.
    """

    rules: text(32, about="a ruleset preset")
    board: text(GRAPH_MAX, about="a board spec: 19, 9x9, torus:9x9, hex5") | Graph = "19"
    players: number(int, 2, PLAYERS_MAX) = 2
    komi: number(float, -1000, 1000) | None = None
    handicap: number(int, 0, 25) = 0
    handicap_mode: text(8, about="fixed or free") = "fixed"
    superko: text(16, about="situational or positional") | None = None
    options: Options | None = None
    clock: text(CLOCK_MAX, about="a clock spec: none, absolute:600, byoyomi:600+5x30, corr:3d, ...") | ClockMap | None = None
    private: bool = False
    title: text(TITLE_MAX, min_len=0) = ""
    bots: number(int, 0, PLAYERS_MAX - 1, "the last seats, played by the server's own bot") = 0
    """The last `bots` seats are played by the server's own bot (so a game against bots survives
    its players' programs and the server's restarts)."""

    def to_json(self) -> dict[str, Any]:
        """The settings as a plain map (stored with the room, shown in listings)."""
        return msgspec.structs.asdict(self)


WIRE_INT = 2**53
"""The largest integer (either sign) a free-form value (a board graph, options, a clock map) may hold:
msgpack carries 64 bits and JavaScript's numbers 53, so a value within this bound reads back the same
in every client."""


def unportable(value: Any, path: str = "") -> str | None:
    """Why `value` would not come back the same from msgpack, JSON and a JavaScript client, or None.

    Free-form fields (`Any` in the Structs above) are checked only for their size by decoding: a JSON
    integer beyond 64 bits or a msgpack NaN would be stored, then fail every msgpack encoding of the
    room (and every listing holding it) for good. A walk with a stack of its own, skipping strings
    and lists of strings (a graph's points and edges) in one step: called per item, the check of a
    large graph would hold the server's loop, and refused creates come in floods.
    """
    pending: list[tuple[Any, str]] = [(value, path)]
    while pending:
        value, path = pending.pop()
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, (list, tuple)):
            items = enumerate(value)
        else:
            why = _unportable_scalar(value, path)
            if why is not None:
                return why
            continue
        for key, item in items:
            if not isinstance(key, (str, int)):
                return f"{path or 'a value'}: keys must be strings"
            if type(item) is str or (type(item) is list and set(map(type, item)) <= _STRINGS):
                continue
            pending.append((item, f"{path}.{key}" if path else str(key)))
    return None


_STRINGS = {str}


def _unportable_scalar(value: Any, path: str) -> str | None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int):
        return None if -WIRE_INT <= value <= WIRE_INT else f"{path or 'a value'}: {value} is beyond +-2^53"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{path or 'a value'}: {value} is not a finite number"
    return f"{path or 'a value'}: {type(value).__name__} values are not allowed"


HANDICAP_KOMI = 0.5
"""The komi of a handicap room created without one."""


def engine_options(settings: dict[str, Any]) -> dict[str, Any]:
    """The keyword options for `polygo.rules.Game` that a room's settings map sets.

    Here, beside the settings, because the server and every client build the same game from them.
    A handicap room without a komi gets komi 0.5 (the OGS and KGS convention: the handicap stones
    are the compensation), except under Lasker-Maas, whose komi is counted in stones.
    """
    options: dict[str, Any] = {}
    if settings.get("komi") is not None:
        options["komi"] = settings["komi"]
    elif settings.get("handicap") and settings.get("rules") != "lasker-maas":
        options["komi"] = HANDICAP_KOMI
    if settings.get("handicap"):
        options["handicap"] = settings["handicap"]
        options["handicap_mode"] = settings.get("handicap_mode") or "fixed"
    if settings.get("superko") is not None:
        options["superko"] = settings["superko"]
    extra = settings.get("options") or {}
    if not all(isinstance(key, str) for key in extra):
        raise ValueError("options are named by strings")
    reserved = sorted(set(extra) & NOT_OPTIONS)
    if reserved:
        raise ValueError(f"options cannot set {', '.join(reserved)}: "
                         f"{'a set-up position is not a room setting' if reserved == ['setup'] else 'a setting of its own'}")
    options.update(extra)
    return options


NOT_OPTIONS = frozenset({"komi", "handicap", "handicap_mode", "superko", "setup"})
"""Engine options `options` may not name: settings of their own, and the set-up position (a room
starts from an empty board)."""


# ---------------------------------------------------------------------------------- client -> server

class ClientMessage(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    """Base of the messages a client sends; `TYPE` is its tag, the value of its "type" field."""

    TYPE: ClassVar[str] = ""
    id: RequestId | None = None


class Hello(ClientMessage, tag="hello"):
    """First message. Exactly one of: `name` (new session), `token` (resume), `user`+`password`."""

    protocol: number(int, 0, 1000, "the protocol version the client speaks")
    name: Name | None = None
    token: text(TOKEN_MAX) | None = None
    user: Name | None = None
    password: text(PASSWORD_MAX) | None = None
    client: text(64, min_len=0, about="the client program's name") | None = None


class Register(ClientMessage, tag="register"):
    """Bind the current session to a new registered user name with a password."""

    user: Name
    password: text(PASSWORD_MAX)


class Logout(ClientMessage, tag="logout"):
    """End the current session: its token no longer resumes; with `everywhere`, every session of
    the registered user ends too. The connection must say hello again."""

    everywhere: bool = False


class ListRooms(ClientMessage, tag="list"):
    """Ask for a page of the public rooms that are waiting for players or being played, oldest first."""

    limit: number(int, 1, LIST_MAX, "rooms in the page") = 50
    offset: number(int, 0, 10**9, "rooms skipped") = 0


class Create(ClientMessage, tag="create"):
    """Create a room; the reply is `created` (the creator still has to `sit`)."""

    settings: RoomSettings


class Sit(ClientMessage, tag="sit"):
    """Take a seat (a given one or the first free); the reply is the room's snapshot."""

    room: RoomId
    seat: number(int, 0, PLAYERS_MAX - 1) | None = None
    invite: Invite | None = None


class Watch(ClientMessage, tag="watch"):
    """Subscribe to a room's events; with `since`, get only the events after that version."""

    room: RoomId
    since: number(int, 0, SEQ_MAX) | None = None
    invite: Invite | None = None


class Leave(ClientMessage, tag="leave"):
    """Stop watching a room; before the game starts, also give up the seat held there."""

    room: RoomId


class Move(ClientMessage, tag="move"):
    """A move string for the sender's seat (see docs/engine.md); `seq` makes resending safe."""

    room: RoomId
    move: text(MOVE_MAX, about="a move string: D4, pass, appeal D4, resign, dead D4, done, ...")
    seq: Seq
    after: number(int, 0, SEQ_MAX, "the room version the sender decided at") | None = None
    """A `done` is refused (`stale-marks`) when the dead marks changed after `after`, so an
    acceptance never covers marks its sender had not seen."""


class Undo(ClientMessage, tag="undo"):
    """Ask the other players to let the sender take back its last move."""

    room: RoomId


class UndoReply(ClientMessage, tag="undo_reply"):
    """Accept or refuse the pending undo request."""

    room: RoomId
    accept: bool


class Chat(ClientMessage, tag="chat"):
    """A line of chat for everyone in the room."""

    room: RoomId
    text: ChatText


class Analysis(ClientMessage, tag="analysis"):
    """A seated player's (a bot's) view of the game, relayed to the room: score lead for the sender,
    win rate 0..1 for the sender, principal variation as move strings. Any of the three may be left out."""

    room: RoomId
    score: number(float, -10000, 10000, "the sender's score lead") | None = None
    winrate: number(float, 0, 1, "the sender's chance to win") | None = None
    pv: Annotated[list[text(MOVE_MAX)], Meta(max_length=PV_MAX, description="the principal variation")] | None = None


class SeatName(ClientMessage, tag="seat_name"):
    """Rename one's own seat in one room while its game is played (a bot whose engine failed says
    "gnugo (built-in bot)"). The session's name elsewhere is unchanged."""

    room: RoomId
    name: Name


class ListGames(ClientMessage, tag="games"):
    """Ask for finished games, newest first."""

    limit: number(int, 1, 200) = 50
    offset: number(int, 0, 10**9) = 0


class GetGame(ClientMessage, tag="game"):
    """Ask for one game's record, as a JSON map or as SGF text."""

    room: RoomId
    format: text(8, about="json or sgf") = "json"


class ListMyGames(ClientMessage, tag="my_games"):
    """Ask for every unfinished game the sender holds a seat in, those where it is the sender's
    turn first (correspondence players keep many games going at once)."""


# finding games: pools, seeks, challenges, the arena (docs/pools.md)

PoolName = text(32, about="a pool's name, e.g. chinese-9x9")
ChallengeId = text(ROOM_MAX, about="a challenge's id")


class ListPools(ClientMessage, tag="pools"):
    """Ask for the server's pools: what a seek, a challenge or the arena may name."""


class Seek(ClientMessage, tag="seek"):
    """Wait for a game: of a pool (rated if the pool is), or with custom settings (unrated).
    Exactly one of `pool` and `settings`. The reply is `seeking`; `matched` follows when a room
    with every seat filled has started. The seek ends with the connection, or with `unseek`."""

    pool: PoolName | None = None
    settings: RoomSettings | None = None


class Unseek(ClientMessage, tag="unseek"):
    """Stop the session's seek."""


class Challenge(ClientMessage, tag="challenge"):
    """Invite named registered players to a game: of a pool (rated if the pool is), or with
    custom settings (unrated); `players` are the other seats' players. The reply is `challenge`."""

    players: Annotated[list[Name], Meta(min_length=1, max_length=PLAYERS_MAX - 1)]
    pool: PoolName | None = None
    settings: RoomSettings | None = None


class ChallengeReply(ClientMessage, tag="challenge_reply"):
    """Accept or decline a challenge one was invited to (a challenger's decline withdraws it)."""

    challenge: ChallengeId
    accept: bool


class ListChallenges(ClientMessage, tag="challenges"):
    """Ask for the standing challenges to and from the session's user; from now on this connection
    is also sent each challenge's changes (`challenge`) as they happen."""


class Arena(ClientMessage, tag="arena"):
    """Join (or, with `join` false, leave) a pool's arena: the server pairs its free players
    continuously; each game comes as `matched`. Membership ends with the connection."""

    pool: PoolName
    join: bool = True


def _by_tag(*classes: type) -> dict[str, Any]:
    """The classes by their tag, each given its tag as `TYPE` (handlers and replies name it)."""
    for cls in classes:
        cls.TYPE = cls.__struct_config__.tag
    return {cls.TYPE: cls for cls in classes}


CLIENT_MESSAGES: dict[str, type[ClientMessage]] = _by_tag(
    Hello, Register, Logout, ListRooms, Create, Sit, Watch, Leave, Move, Undo, UndoReply, Chat, Analysis, SeatName,
    ListGames, GetGame, ListMyGames, ListPools, Seek, Unseek, Challenge, ChallengeReply, ListChallenges, Arena)


# ---------------------------------------------------------------------------------- server -> client

class ServerMessage(Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the messages the server sends; `id` echoes the request's id in direct replies."""

    TYPE: ClassVar[str] = ""
    id: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """The message as a plain map, `type` first, fields that are None left out."""
        out: dict[str, Any] = {"type": self.TYPE}
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


class Welcome(ServerMessage, tag="welcome"):
    """Reply to hello: the session's token (keep it), identity, seats held, the server's limits and
    the rulesets it plays (`polygo.rules.describe`; none from a server older than the field)."""

    protocol: int
    token: str
    name: str
    user: str | None = None
    seats: list[dict[str, Any]] = []
    limits: dict[str, Any] = {}
    server: str = "polygo"
    rulesets: list[dict[str, Any]] = []


class Error(ServerMessage, tag="error"):
    """A refused message: `code` (protocol.ErrorCode), a sentence, and context when known."""

    code: str
    message: str
    ref: str | None = None       # the type of the refused message
    room: str | None = None
    seq: int | None = None
    reason: str | None = None    # the engine's reason code, for illegal-move
    field: str | None = None
    node: str | None = None      # moved: the cluster node that serves the room
    url: str | None = None       # moved: where to reconnect to reach it (a path on the same host)
    retry_after: float | None = None   # unavailable: seconds before asking again


class Ok(ServerMessage, tag="ok"):
    """Success of a request that has no other reply (register, leave, undo, undo_reply, chat)."""

    ref: str
    room: str | None = None


class Ack(ServerMessage, tag="ack"):
    """A move is durably stored and applied as event `version` of the room."""

    room: str
    seq: int
    version: int

    def to_wire(self) -> dict[str, Any]:
        """`ServerMessage.to_wire` written out, for the reply every move gets: a map built at once,
        not field by field (tests/protocol/test_codec.py compares the two)."""
        if self.id is None:
            return {"type": "ack", "room": self.room, "seq": self.seq, "version": self.version}
        return {"type": "ack", "room": self.room, "seq": self.seq, "version": self.version, "id": self.id}


class Created(ServerMessage, tag="created"):
    """A new room; `invite` is the code to share for a private room."""

    room: str
    invite: str | None = None


class Rooms(ServerMessage, tag="rooms"):
    """Reply to list: one page; `total` public rooms in all, `next` the offset of the next page
    (absent on the last)."""

    rooms: list[dict[str, Any]] = []
    total: int | None = None
    next: int | None = None


class Snapshot(ServerMessage, tag="snapshot"):
    """A room's whole state at `version`; events with higher versions follow."""

    room: str
    version: int
    status: str                  # "waiting", "playing", "ended"
    settings: dict[str, Any]
    seats: list[dict[str, Any]]
    game: dict[str, Any]
    clocks: dict[str, Any] | None = None
    undo: dict[str, Any] | None = None     # the pending undo request
    you: dict[str, Any] | None = None      # to a seated session: {"seat", "last_seq"}
    chat: list[dict[str, Any]] = []        # the latest chat lines, oldest first, as their events


class Events(ServerMessage, tag="events"):
    """Reply to watch with `since`: the missed events, oldest first."""

    room: str
    events: list[dict[str, Any]] = []


class Event(ServerMessage, tag="event"):
    """One change in a room. On the wire its `data` fields sit beside room, version and kind."""

    room: str
    version: int
    kind: str
    data: dict[str, Any] = {}

    def to_wire(self) -> dict[str, Any]:
        return {"type": "event", "room": self.room, "version": self.version, "kind": self.kind, **self.data}


class Games(ServerMessage, tag="games"):
    """Reply to games: finished games, newest first."""

    games: list[dict[str, Any]] = []


class GameRecord(ServerMessage, tag="game"):
    """Reply to game: `record` is a map (format "json") or SGF text (format "sgf")."""

    room: str
    format: str
    record: Any


class MyGames(ServerMessage, tag="my_games"):
    """Reply to my_games: the sender's unfinished games, those where it is to move first (the
    earliest deadline first), and how many those are."""

    games: list[dict[str, Any]] = []
    your_turn: int = 0


class Pools(ServerMessage, tag="pools"):
    """Reply to pools: every pool, with how many seek it now and how many are in its arena."""

    pools: list[dict[str, Any]] = []


class Seeking(ServerMessage, tag="seeking"):
    """Reply to seek: the seek stands (its pool, or null for custom settings, and whether rated)."""

    pool: str | None = None
    rated: bool = False
    rating: int | None = None
    provisional: bool | None = None


class Matched(ServerMessage, tag="matched"):
    """A room was started for a seek, a challenge or the arena (`via`), every seat filled: the
    receiver holds `seat` there (sit or watch it to follow the game)."""

    room: str
    seat: int
    via: str
    pool: str | None = None
    challenge: str | None = None


class ChallengeState(ServerMessage, tag="challenge"):
    """A challenge as it stands: the reply to challenge, and each change sent to its parties."""

    challenge: dict[str, Any]


class Challenges(ServerMessage, tag="challenges"):
    """Reply to challenges: the standing challenges to and from the session's user."""

    challenges: list[dict[str, Any]] = []


SERVER_MESSAGES: dict[str, type[ServerMessage]] = _by_tag(
    Welcome, Error, Ok, Ack, Created, Rooms, Snapshot, Events, Event, Games, GameRecord, MyGames, Pools, Seeking,
    Matched, ChallengeState, Challenges)
