"""What the server sends, typed down to the last field: the snapshot's game, every event kind,
the listings and records.

`polygo.protocol.messages` holds the server's messages as the server builds them (maps inside); this
module describes the same messages field by field, for the JSON Schema in docs/schema/ and for
`check`, which the server tests run on every message the server sends them, so that the schema
and docs/protocol.md cannot drift from the server. The classes refuse fields they do not list
(a new field must be described here first); the published schema lets clients ignore them.
"""

from typing import Annotated, Any, Union

import msgspec
from msgspec import Meta, Struct

Seat = Annotated[int, Meta(ge=0)]
Point = str


class View(Struct, kw_only=True, forbid_unknown_fields=True):
    """A part of a server message."""


class Legal(View, kw_only=True):
    """What the player to move may play: every empty point not in `prohibited` is a legal stone
    play; `appeals` are the points an appealing pass may name; `pass` says whether it may pass."""

    seat: Seat
    pass_: bool = msgspec.field(name="pass")
    prohibited: dict[Point, str]
    appeals: list[Point]


class Ko(View, kw_only=True):
    """A ko position of Jasiek's New Ko Rules (`Game.ko_analysis()`, docs/rules/jasiek-nkr.md):
    `fighting_bar` is the seat the fighting rule keeps from a ko stone in it at its next move."""

    points: list[Point]
    mouths: list[list[Point]]
    coupling: list[Point]
    type: str
    state: str | None
    disturber: Seat | None
    disturber_barred: bool
    fighting_bar: Seat | None


class Changes(View, kw_only=True):
    """Apply `clear`, then `set`, to the stones to get the new position."""

    clear: list[Point]
    set: dict[Point, Seat]


class ClockState(View, kw_only=True):
    """Seconds left at the moment of the message; null main time means no limit."""

    main: float | None
    periods: int
    period_left: float | None
    stones_left: int


class Clocks(View, kw_only=True):
    """Every seat's clock; none runs while the room waits for players (the clocks as they will
    start) nor after the game. `deadline`, with a correspondence (`corr`) clock only, is when the
    running seat's flag falls, in seconds since the Unix epoch (the server's wall clock)."""

    running: Seat | None
    seats: list[ClockState]
    deadline: float | None = None


class Result(View, kw_only=True):
    """`ranking` is a place per seat (1 is first, ties share); `score` points per seat."""

    reason: str
    ranking: list[int]
    score: list[float]


class Proposal(View, kw_only=True):
    ranking: list[int]


class Settings(View, kw_only=True):
    """A room's settings as the server sends them: every value the effective one."""

    rules: str
    board: str | dict[str, Any]
    players: int
    komi: float
    handicap: int
    handicap_mode: str
    superko: str | None
    options: dict[str, Any] | None = None
    clock: dict[str, Any]
    private: bool
    title: str
    bots: int = 0
    pool: str | None = None
    """The pool of a room the server started for a seek, a challenge or the arena."""
    rated: bool = False


class SeatView(View, kw_only=True):
    seat: Seat
    colour: str
    name: str | None
    user: str | None


class GameView(View, kw_only=True):
    """The snapshot's `game`: the public state of the game."""

    rules: str
    board: dict[str, Any]
    board_spec: str | None = None
    players: list[str]
    to_move: Seat | None
    legal: Legal | None
    phase: str
    stones: dict[Point, Seat]
    prisoners: list[int]
    history: list[tuple[Seat, str, bool]]
    dead: list[Point]
    disputed: list[Point]
    accepted: list[Seat]
    proposal: Proposal | None
    dropped: list[Seat]
    result: Result | None
    kos: list[Ko] | None = None


class UndoPending(View, kw_only=True):
    seat: Seat
    accepted: list[Seat]


class You(View, kw_only=True):
    """To a seated session: its seat, and the highest seq acknowledged for it (null: none yet)."""

    seat: Seat
    last_seq: int | None


class Held(View, kw_only=True):
    room: str
    seat: Seat
    last_seq: int | None


class Limits(View, kw_only=True):
    frame: int
    create_frame: int
    rate: float
    burst: float
    rooms: int
    chat: int
    list: int = 100


class GtpRules(View, kw_only=True):
    """The nearest rules GTP engines have: GNU Go's command-line options, the name `kgs-rules`
    takes, the shorthand `kata-set-rules` takes."""

    gnugo: list[str]
    kgs: str
    katago: str


class Preset(View, kw_only=True):
    """A ruleset the server plays (`polygo.rules.PRESETS`) as it describes itself: `name` is what
    `settings.rules` takes; `scoring` the scoring family (`area`, `territory`, `lasker-maas`; a
    newer server may add others); `sgf` the SGF `RU` its records carry."""

    name: str
    title: str
    help: str
    scoring: str
    sgf: str
    gtp: GtpRules


class RoomSummary(View, kw_only=True):
    """A listed room; a graph board shows as "graph:N" (N points), `registered` marks the seats
    whose player is a registered user."""

    room: str
    title: str
    settings: Settings
    seats: list[str | None]
    registered: list[bool] = []
    status: str
    version: int


class GameSummary(View, kw_only=True):
    """A finished game; `moves` is the length of its history, `registered` marks the seats whose
    player is a registered user."""

    room: str
    settings: Settings
    seats: list[str | None]
    registered: list[bool] = []
    result: Result
    moves: int
    created: float
    finished: float


class Record(View, kw_only=True):
    """A game's JSON record; `record` is the engine's (`Game.from_record` replays it)."""

    room: str
    settings: Settings
    seats: list[str | None]
    record: dict[str, Any]
    history: list[tuple[Seat, str, bool]]
    result: Result | None
    created: float
    finished: float | None


class MyGame(View, kw_only=True):
    """One unfinished game of the asker's (`my_games`): its seat there, whose turn it is (null
    while the room waits for players, or nobody is to move), and when the mover's flag falls
    (seconds since the Unix epoch; null without a running clock, or for a live clock of a game
    not in the server's memory, which stands still until the game comes back)."""

    room: str
    title: str
    settings: Settings
    seats: list[str | None]
    seat: Seat
    status: str
    to_move: Seat | None
    your_turn: bool
    deadline: float | None
    version: int


# -- events: the fields beside "type", "room", "version" and "kind" -----------------------------------

class EventBody(View, tag_field="kind", kw_only=True):
    """One change of a room; as an item of `events`, without "type" and "room"."""

    version: int


class SeatEvent(EventBody, tag="seat", kw_only=True):
    """A seat was taken (`name`) or freed (`name` null)."""

    seat: Seat
    name: str | None
    user: str | None


class StartEvent(EventBody, tag="start", kw_only=True):
    to_move: Seat | None
    phase: str
    clocks: Clocks | None
    legal: Legal | None
    kos: list[Ko] | None = None


class MoveEvent(EventBody, tag="move", kw_only=True):
    """A move; `dead`, `accepted`, `proposal`, `dropped` come with every move that is not a stone
    play, `result` with the move that ended the game."""

    seat: Seat
    move: str
    seq: int
    index: int
    rescinded: list[int]
    changes: Changes
    to_move: Seat | None
    phase: str
    prisoners: list[int]
    clocks: Clocks | None
    legal: Legal | None
    kos: list[Ko] | None = None
    dead: list[Point] | None = None
    disputed: list[Point] | None = None
    accepted: list[Seat] | None = None
    proposal: Proposal | None = None
    dropped: list[Seat] | None = None
    result: Result | None = None


class UndoRequestEvent(EventBody, tag="undo-request", kw_only=True):
    seat: Seat


class UndoReplyEvent(EventBody, tag="undo-reply", kw_only=True):
    seat: Seat
    accept: bool


class UndoEvent(EventBody, tag="undo", kw_only=True):
    seat: Seat
    index: int
    changes: Changes
    to_move: Seat | None
    phase: str
    prisoners: list[int]
    clocks: Clocks | None
    legal: Legal | None
    kos: list[Ko] | None = None


class TimeoutEvent(EventBody, tag="timeout", kw_only=True):
    seat: Seat
    index: int
    changes: Changes
    dropped: list[Seat]
    to_move: Seat | None
    phase: str
    prisoners: list[int]
    clocks: Clocks | None
    legal: Legal | None
    kos: list[Ko] | None = None
    result: Result | None = None


class ChatEvent(EventBody, tag="chat", kw_only=True):
    """A chat line; `user` is the sender's registered name (null for a guest, whose `name` is
    only what it calls itself)."""

    seat: Seat | None
    name: str
    user: str | None = None
    text: str


class ChatLine(View, kw_only=True):
    """A chat line of a snapshot's tail: its `chat` event without the kind."""

    version: int
    seat: Seat | None
    name: str
    user: str | None = None
    text: str


class AnalysisEvent(EventBody, tag="analysis", kw_only=True):
    """A seated player's (a bot's) view of the position after `index` moves of `history`."""

    seat: Seat
    name: str
    index: int
    score: float | None = None
    winrate: float | None = None
    pv: list[str] | None = None


class PresenceEvent(EventBody, tag="presence", kw_only=True):
    """Who is in the room: `online` per seat (a connection of its session watches the room; the
    house bot always does), `spectators` (people watching without a seat: a guest session, or a
    registered user's sessions together) and the first 32 of
    their `names`, sorted. Not a change of the game: it carries the version of the room's latest
    event, is never stored, and is not among the events `watch` with `since` replays."""

    online: list[bool]
    spectators: int
    names: list[str]


class ClosedEvent(EventBody, tag="closed", kw_only=True):
    """The room is closed: `reason` "expired" (its game never started in time; the room is gone,
    not stored), "left" (its creator left it before it started, with nobody seated; gone too) or
    "operator" (the server's operator closed it; a game being played ends there, with the result
    reason `closed` in the records)."""

    reason: str
    message: str


EVENT_KINDS = (SeatEvent, StartEvent, MoveEvent, UndoRequestEvent, UndoReplyEvent, UndoEvent, TimeoutEvent,
               ChatEvent, AnalysisEvent, PresenceEvent, ClosedEvent)
AnyEvent = Union[EVENT_KINDS]


# -- the messages -----------------------------------------------------------------------------------------

class Message(View, tag_field="type", kw_only=True):
    """A message from the server; `id` echoes the request's in direct replies."""

    id: int | None = None


class Welcome(Message, tag="welcome", kw_only=True):
    protocol: int
    token: str
    name: str
    user: str | None = None
    seats: list[Held]
    limits: Limits
    server: str
    rulesets: list[Preset]


class Error(Message, tag="error", kw_only=True):
    code: str
    message: str
    ref: str | None = None
    room: str | None = None
    seq: int | None = None
    reason: str | None = None
    field: str | None = None
    node: str | None = None
    url: str | None = None
    retry_after: float | None = None


class Ok(Message, tag="ok", kw_only=True):
    ref: str
    room: str | None = None


class Ack(Message, tag="ack", kw_only=True):
    room: str
    seq: int
    version: int


class Created(Message, tag="created", kw_only=True):
    room: str
    invite: str | None = None


class Rooms(Message, tag="rooms", kw_only=True):
    rooms: list[RoomSummary]
    total: int = 0
    next: int | None = None


class Snapshot(Message, tag="snapshot", kw_only=True):
    room: str
    version: int
    status: str
    settings: Settings
    seats: list[SeatView]
    game: GameView
    clocks: Clocks | None = None
    undo: UndoPending | None = None
    you: You | None = None
    chat: list[ChatLine] = []


class Events(Message, tag="events", kw_only=True):
    room: str
    events: list[AnyEvent]


class EventHead(Message, tag="event", kw_only=True):
    """The head of an event; the kind's own fields (an `EventBody`) sit beside it."""

    room: str
    version: int
    kind: str


class Games(Message, tag="games", kw_only=True):
    games: list[GameSummary]


class GameRecord(Message, tag="game", kw_only=True):
    room: str
    format: str
    record: Record | str


class MyGames(Message, tag="my_games", kw_only=True):
    games: list[MyGame]
    your_turn: int


class PoolView(View, kw_only=True):
    """A pool (docs/pools.md): a room's settings by name; `seeking` and `arena` players now."""

    name: str
    title: str
    rules: str
    players: int
    board: str
    clock: str
    komi: float | None = None
    rated: bool
    arena: bool
    options: dict[str, Any] | None = None
    seeking: int
    in_arena: int


class Pools(Message, tag="pools", kw_only=True):
    pools: list[PoolView]


class Seeking(Message, tag="seeking", kw_only=True):
    """`rating`: the seeker's displayed rating in the pool, `provisional` while it is uncertain."""

    pool: str | None = None
    rated: bool
    rating: int | None = None
    provisional: bool | None = None


class Matched(Message, tag="matched", kw_only=True):
    room: str
    seat: Seat
    via: str
    pool: str | None = None
    challenge: str | None = None


class Invitee(View, kw_only=True):
    """An invited player and the answer so far (null: none yet)."""

    name: str
    accepted: bool | None


class ChallengeView(View, kw_only=True):
    """`status`: open, started (see `room`), declined, withdrawn or expired; `expires` is a Unix time."""

    id: str
    by: str
    players: list[Invitee]
    pool: str | None
    rated: bool
    settings: Settings
    status: str
    expires: float
    room: str | None = None


class ChallengeState(Message, tag="challenge", kw_only=True):
    challenge: ChallengeView


class Challenges(Message, tag="challenges", kw_only=True):
    challenges: list[ChallengeView]


MESSAGES = (Welcome, Error, Ok, Ack, Created, Rooms, Snapshot, Events, EventHead, Games, GameRecord, MyGames, Pools,
            Seeking, Matched, ChallengeState, Challenges)
AnyMessage = Union[tuple(m for m in MESSAGES if m is not EventHead)]
_HEAD = ("type", "room", "version", "kind", "id")


def check(data: Any) -> None:
    """Whether a decoded server message is as described here; `msgspec.ValidationError` if not."""
    if isinstance(data, dict) and data.get("type") == "event":
        msgspec.convert({k: data[k] for k in _HEAD if k in data}, EventHead)
        msgspec.convert({k: v for k, v in data.items() if k not in ("type", "room", "id")}, AnyEvent)
    else:
        msgspec.convert(data, AnyMessage)
