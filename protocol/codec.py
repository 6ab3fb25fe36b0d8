"""Frames to maps and back: msgpack in binary frames, JSON in text frames.

The codec is chosen per connection by websocket subprotocol ("polygo.msgpack", the default, or
"polygo.json") and used for everything the server sends. Inbound, the frame's own kind decides: a
binary frame is read as msgpack, a text frame as JSON, whatever was negotiated. Decoding never
raises anything but `ProtocolError`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import msgpack

from .errors import ErrorCode, ProtocolError
from .messages import CLIENT_MESSAGES, SERVER_MESSAGES, ClientMessage, Event, ServerMessage
from .schema import schema_of

MSGPACK = "polygo.msgpack"
JSON = "polygo.json"
SUBPROTOCOLS = (MSGPACK, JSON)
MAX_FRAME = 64 * 1024


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not allowed")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _no_lone_surrogates(value: Any) -> None:
    """JSON may escape half of a UTF-16 pair ("\\ud800"); such a string is no text, and msgpack,
    SQLite and every peer would fail on it later, far from the client that sent it. (msgpack frames
    cannot hold one: raw=False decodes strictly.)"""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise ValueError("a string holds a lone UTF-16 surrogate escape; strings must be Unicode text") from None


def decode_frame(frame: bytes | str, *, max_size: int = MAX_FRAME) -> Any:
    """The value a frame holds: msgpack for bytes, JSON for text."""
    size = len(frame)
    if isinstance(frame, str) and size <= max_size and not frame.isascii():
        size = len(frame.encode("utf-8", "surrogatepass"))      # the limit is in bytes, as on the wire
    if size > max_size:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"frame of {size} bytes is over the limit of {max_size}")
    try:
        if isinstance(frame, str):
            value = json.loads(frame, parse_constant=_no_constant)
            if "\\u" in frame:
                _no_lone_surrogates(value)
            return value
        return msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=_no_ext)
    except (ValueError, TypeError, RecursionError, msgpack.UnpackException) as exc:
        kind = "JSON" if isinstance(frame, str) else "msgpack"
        reason = str(exc) or type(exc).__name__
        raise ProtocolError(ErrorCode.BAD_FRAME, f"frame is not valid {kind}: {reason}") from None


def encode(data: dict[str, Any], codec: str = MSGPACK) -> bytes | str:
    """A map as a frame in the given codec (bytes for msgpack, text for JSON)."""
    if codec == JSON:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return msgpack.packb(data, use_bin_type=True)


def encode_message(message: ServerMessage | ClientMessage, codec: str = MSGPACK) -> bytes | str:
    """A message as a frame."""
    if isinstance(message, ServerMessage):
        return encode(message.to_wire(), codec)
    return encode(client_to_wire(message), codec)


def client_to_wire(message: ClientMessage) -> dict[str, Any]:
    """A client message as a map, fields that are None left out (for clients and tests)."""
    out: dict[str, Any] = {"type": message.TYPE}
    for key, value in _fields(message).items():
        if value is not None:
            out[key] = value
    return out


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: (_fields(getattr(obj, f.name)) if dataclasses.is_dataclass(getattr(obj, f.name))
                     else getattr(obj, f.name)) for f in dataclasses.fields(obj)}


def parse_client(data: Any) -> ClientMessage:
    """A decoded value checked into a client message, or `ProtocolError`."""
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message must be a map")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, 'a message must have a string field "type"', field="type")
    cls = CLIENT_MESSAGES.get(kind)
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}", field="type")
    body = {k: v for k, v in data.items() if k != "type"}
    return schema_of(cls).build(body)


def decode_client(frame: bytes | str, *, max_size: int = MAX_FRAME) -> ClientMessage:
    """A frame from a client as a checked message, or `ProtocolError`."""
    return parse_client(decode_frame(frame, max_size=max_size))


def request_id(data: Any) -> int | None:
    """The `id` of a decoded value that failed checking, when it has a usable one (for the reply)."""
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53:
            return value
    return None


def parse_server(data: Any) -> ServerMessage:
    """A decoded value from the server as a message; unknown fields are ignored, unknown types refused."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, 'a message must be a map with a string field "type"')
    cls = SERVER_MESSAGES.get(data["type"])
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {data['type'][:40]!r}")
    if cls is Event:
        head = ("room", "version", "kind", "id")
        rest = {k: v for k, v in data.items() if k not in head and k != "type"}
        try:
            return Event(room=data["room"], version=data["version"], kind=data["kind"], data=rest)
        except KeyError as exc:
            raise ProtocolError(ErrorCode.MISSING_FIELD, f"event without {exc}") from None
    names = {f.name for f in dataclasses.fields(cls)}
    try:
        return cls(**{k: v for k, v in data.items() if k in names})
    except TypeError as exc:
        raise ProtocolError(ErrorCode.MISSING_FIELD, f"{data['type']}: {exc}") from None


def decode_server(frame: bytes | str) -> ServerMessage:
    """A frame from the server as a message (for clients)."""
    return parse_server(decode_frame(frame, max_size=2**24))
