"""Error codes of the wire protocol and the package's one exception.

Every error the server sends carries one of the codes below and a sentence for people. Codes are
part of the protocol (a client may branch on them); sentences are not.

Exception tree::

    ProtocolError            a frame or message refused; carries a code (and the engine's reason)
"""

from __future__ import annotations

from enum import Enum


class ErrorCode(str, Enum):
    """Why a client's message was refused. The value is what goes over the wire."""

    # the frame and the message
    BAD_FRAME = "bad-frame"                  # not decodable as msgpack (binary) / JSON (text)
    BAD_MESSAGE = "bad-message"              # decodes, but is not a map with a string "type"
    UNKNOWN_TYPE = "unknown-type"            # "type" names no client message
    MISSING_FIELD = "missing-field"          # a required field is absent
    BAD_FIELD = "bad-field"                  # a field has the wrong type, size or value, or is unknown
    TOO_LARGE = "too-large"                  # the frame is over the size limit
    RATE_LIMITED = "rate-limited"            # too many messages; this one was dropped
    UNSUPPORTED_VERSION = "unsupported-version"
    # sessions
    NO_SESSION = "no-session"                # a message other than hello before hello
    BAD_TOKEN = "bad-token"                  # hello with a token the server does not know
    BAD_LOGIN = "bad-login"                  # unknown user or wrong password
    NAME_TAKEN = "name-taken"                # the name is registered, or looks like a registered name
    BAD_NAME = "bad-name"                    # a name with an invisible or control character, or blank
    BANNED = "banned"                        # hello: the server's operator banned the name
    # rooms and seats
    NO_SUCH_ROOM = "no-such-room"
    BAD_INVITE = "bad-invite"                # private room, missing or wrong invitation code
    BAD_SETTINGS = "bad-settings"            # create: the engine refused the board or the rules
    ROOM_FULL = "room-full"
    SEAT_TAKEN = "seat-taken"
    BAD_SEAT = "bad-seat"                    # no such seat number
    ALREADY_SEATED = "already-seated"
    TOO_MANY_ROOMS = "too-many-rooms"
    NOT_SEATED = "not-seated"                # the session holds no seat in this room
    NOT_STARTED = "not-started"              # the game waits for players
    GAME_OVER = "game-over"
    # moves
    ILLEGAL_MOVE = "illegal-move"            # the engine refused it; "reason" holds its reason code
    STALE_SEQ = "stale-seq"                  # a move's seq is not above the last one and is unknown
    SEQ_REUSED = "seq-reused"                # a seq already applied, sent with another move
    TIMEOUT = "timeout"                      # the move came after the player's flag fell
    STALE_MARKS = "stale-marks"              # a done whose sender had not seen the latest dead marks
    NO_UNDO = "no-undo"                      # nothing the session may take back / no request pending
    # records
    NO_SUCH_GAME = "no-such-game"
    NOT_EXPORTABLE = "not-exportable"        # SGF asked for a game SGF cannot hold
    # finding games
    NO_SUCH_POOL = "no-such-pool"
    NOT_REGISTERED = "not-registered"        # a rated pool (seek, challenge, arena) needs a registered account
    ALREADY_SEEKING = "already-seeking"      # the session has a seek already
    NOT_SEEKING = "not-seeking"              # unseek without a seek
    NO_SUCH_PLAYER = "no-such-player"        # a challenge names a name that is not registered
    BAD_CHALLENGE = "bad-challenge"          # challenging oneself, a player twice, the wrong number of players
    NO_SUCH_CHALLENGE = "no-such-challenge"  # unknown, or not addressed to the session's user
    CHALLENGE_CLOSED = "challenge-closed"    # answered after it expired, was withdrawn, declined or started
    # the server
    INTERNAL = "internal"                    # the server failed; the message was not applied
    MOVED = "moved"                          # cluster: another node serves the room ("node", "url")
    UNAVAILABLE = "unavailable"              # cluster: the room's node is not reachable now ("retry_after")


class ProtocolError(Exception):
    """A refused message: a code, a sentence, the field at fault and the engine's reason if any.

    A frame refused before it became a message still has the `id` and `type` it was sent with,
    when they can be read: `request_id` and `ref` carry them into the error reply.
    """

    def __init__(self, code: ErrorCode, message: str, *, field: str | None = None,
                 reason: str | None = None, node: str | None = None, url: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(code, message, field, reason)
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.node = node                  # moved: the node that serves the room, and its path
        self.url = url
        self.retry_after = retry_after    # unavailable: seconds to wait before asking again
        self.request_id: int | None = None
        self.ref: str | None = None

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"
