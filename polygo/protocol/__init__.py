"""polygo's wire protocol: message types, msgpack/JSON codecs, validation, error codes. No I/O.

A client (any language) and the server exchange maps with a string field "type". The page
docs/protocol.md describes every message; this package is the reference implementation of its
checks, shared by the server and the Python clients.
"""

from .codec import (JSON, MAX_FRAME, MSGPACK, SUBPROTOCOLS, client_to_wire, decode_client,
                    decode_frame, decode_server, encode, encode_message, parse_client, parse_server,
                    request_id)
from .errors import ErrorCode, ProtocolError
from .messages import (CLIENT_MESSAGES, SERVER_MESSAGES, Ack, Analysis, Chat, SeatName, ClientMessage, Create, Created,
                       Error, Event, Events, GameRecord, Games, GetGame, Hello, Leave, ListGames,
                       ListMyGames, ListRooms, Logout, Move, MyGames, Ok, Register, Rooms, RoomSettings,
                       ServerMessage, Sit, Snapshot, Undo, UndoReply, Watch, Welcome, engine_options, unportable,
                       Arena, Challenge, ChallengeReply, ChallengeState, Challenges, ListChallenges, ListPools,
                       Matched, Pools, Seek, Seeking, Unseek)

PROTOCOL_VERSION = 3
"""The version this package speaks; a hello with another version is refused."""

__all__ = [
    "PROTOCOL_VERSION", "JSON", "MSGPACK", "SUBPROTOCOLS", "MAX_FRAME", "ErrorCode", "ProtocolError",
    "decode_frame", "decode_client", "decode_server", "parse_client", "parse_server", "encode",
    "encode_message", "client_to_wire", "request_id", "CLIENT_MESSAGES", "SERVER_MESSAGES",
    "ClientMessage", "ServerMessage", "RoomSettings", "engine_options", "unportable", "Hello", "Register",
    "Logout", "ListRooms", "Create", "Sit", "Watch", "Leave", "Move", "Undo", "UndoReply", "Chat", "Analysis", "SeatName", "ListGames", "GetGame", "Welcome",
    "Error", "Ok", "Ack", "Created", "Rooms", "Snapshot", "Events", "Event", "Games", "GameRecord",
    "ListPools", "Seek", "Unseek", "Challenge", "ChallengeReply", "ListChallenges", "Arena", "Pools", "Seeking",
    "Matched", "ChallengeState", "Challenges", "ListMyGames", "MyGames",
]
