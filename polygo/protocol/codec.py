"""Frames to messages and back: msgpack in binary frames, JSON in text frames, both with msgspec.

The codec is chosen per connection by websocket subprotocol ("polygo.msgpack", the default, or
"polygo.json") and used for everything the server sends. Inbound, the frame's own kind decides: a
binary frame is read as msgpack, a text frame as JSON, whatever was negotiated.

A client frame is decoded and checked in one pass: msgspec reads the bytes straight into the
message's Struct, checking types and bounds as it goes (docs/protocol.md, "Validation", has the
measurements). Its errors name the field by its path (`$.settings.komi`); they become
`ProtocolError`s with the protocol's codes, the same field path ("settings.komi") and a sentence.
Decoding never raises anything but `ProtocolError`.
"""

import re
from datetime import datetime
from typing import Any, Union

import msgspec

from .errors import ErrorCode, ProtocolError
from .messages import CLIENT_MESSAGES, SERVER_MESSAGES, ClientMessage, Create, Event, ServerMessage

MSGPACK = "polygo.msgpack"
JSON = "polygo.json"
SUBPROTOCOLS = (MSGPACK, JSON)
MAX_FRAME = 64 * 1024

_ANY_CLIENT = Union[tuple(CLIENT_MESSAGES.values())]


def _no_ext(code: int, data: memoryview) -> Any:
    raise ValueError(f"msgpack extension type {code} is not allowed")


class _Head(msgspec.Struct):
    """The two fields an error reply repeats, read from a frame that failed its checks."""

    type: Any = None
    id: Any = None


_JSON_CLIENT = msgspec.json.Decoder(_ANY_CLIENT)
_MSGPACK_CLIENT = msgspec.msgpack.Decoder(_ANY_CLIENT, ext_hook=_no_ext)
_JSON_ANY = msgspec.json.Decoder()
_MSGPACK_ANY = msgspec.msgpack.Decoder(ext_hook=_no_ext)
_JSON_HEAD = msgspec.json.Decoder(_Head)
_MSGPACK_HEAD = msgspec.msgpack.Decoder(_Head, ext_hook=_no_ext)
_JSON_ENCODER = msgspec.json.Encoder()
_MSGPACK_ENCODER = msgspec.msgpack.Encoder()


def _check_size(frame: bytes | str, max_size: int) -> None:
    size = len(frame)
    if isinstance(frame, str) and size <= max_size and not frame.isascii():
        size = len(frame.encode("utf-8", "surrogatepass"))      # the limit is in bytes, as on the wire
    if size > max_size:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"frame of {size} bytes is over the limit of {max_size}")


def _bad_frame(frame: bytes | str, exc: Exception) -> ProtocolError:
    kind = "JSON" if isinstance(frame, str) else "msgpack"
    reason = str(exc) or type(exc).__name__
    return ProtocolError(ErrorCode.BAD_FRAME, f"frame is not valid {kind}: {reason}")


def decode_frame(frame: bytes | str, *, max_size: int = MAX_FRAME) -> Any:
    """The value a frame holds, unchecked: msgpack for bytes, JSON for text."""
    _check_size(frame, max_size)
    try:
        if isinstance(frame, str):
            return _JSON_ANY.decode(frame)
        return _MSGPACK_ANY.decode(frame)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError) as exc:
        raise _bad_frame(frame, exc) from None


def decode_client(frame: bytes | str, *, max_size: int = MAX_FRAME, create_size: int | None = None) -> ClientMessage:
    """A frame from a client as a checked message, or `ProtocolError`.

    A `create` may be up to `create_size` bytes (when given): a room on a large graph board
    (4,096 points and their edges) is a few hundred kilobytes of JSON, in one message. Every other
    message keeps to `max_size`.

    The error carries the frame's `id` and `type` (`request_id`, `ref`) whenever the frame
    decodes and they are usable, also when the frame is over `max_size`.
    """
    text = isinstance(frame, str)
    if text or len(frame) > max_size:      # a binary frame's bytes are its length: no call to count them
        try:
            _check_size(frame, max_size)
        except ProtocolError as exc:
            error = _with_head(exc, frame)
            if create_size is None or error.ref != "create":
                raise error from None
            try:
                _check_size(frame, create_size)
            except ProtocolError as over:
                raise _with_head(over, frame) from None
    try:
        message = (_JSON_CLIENT if text else _MSGPACK_CLIENT).decode(frame)
    except msgspec.ValidationError as exc:
        raise _with_head(_refusal(str(exc)), frame) from None
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError, MemoryError) as exc:
        raise _bad_frame(frame, exc) from None
    if isinstance(message, Create):
        why = _free_form_problem(message.settings.to_json())
        if why is not None:
            raise _with_head(why, frame)
    return message


MAX_DEPTH = 32
"""Levels of maps and lists a free-form value may nest (a graph board uses four)."""


def _free_form_problem(value: Any) -> ProtocolError | None:
    """Why a decoded free-form value is refused, or None: it holds a msgpack timestamp (msgspec
    reads that extension, -1, as a datetime itself, without asking `_no_ext`), or it nests deeper
    than `MAX_DEPTH` (a list of strings one level below it is allowed). A walk with a stack of its
    own: a recursive one would run past the recursion limit on a frame of a few hundred bytes."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, datetime):
            return ProtocolError(ErrorCode.BAD_FRAME, "frame is not valid msgpack: extension types are not allowed")
        if isinstance(value, dict):
            items: Any = value.values()
        elif isinstance(value, list):
            items = value
        else:
            continue
        if depth >= MAX_DEPTH:
            return ProtocolError(ErrorCode.BAD_FIELD, f"settings nest maps and lists deeper than {MAX_DEPTH} levels",
                                 field="settings")
        for item in items:
            if type(item) is str or (type(item) is list and set(map(type, item)) <= _STRINGS):
                continue        # a string, or a list of them (a graph's edge): no deeper, no timestamp
            pending.append((item, depth + 1))
    return None


_STRINGS = {str}


def peek(frame: bytes | str) -> tuple[str | None, int | None]:
    """The `type` and `id` of a frame's message, read without building or checking the rest (far
    cheaper than a decoding for a large create), so that a refusal can come before the work;
    None for either where the frame does not decode or does not hold a usable one."""
    try:
        head = (_JSON_HEAD if isinstance(frame, str) else _MSGPACK_HEAD).decode(frame)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError, MemoryError):
        return None, None
    return (head.type if isinstance(head.type, str) else None), request_id({"id": head.id})


def parse_client(data: Any) -> ClientMessage:
    """An already decoded value checked into a client message, or `ProtocolError`."""
    try:
        return msgspec.convert(data, _ANY_CLIENT)
    except msgspec.ValidationError as exc:
        error = _refusal(str(exc))
        if isinstance(data, dict):
            error.request_id, error.ref = request_id(data), _ref(data.get("type"))
        raise error from None


def _with_head(error: ProtocolError, frame: bytes | str) -> ProtocolError:
    try:
        head = (_JSON_HEAD if isinstance(frame, str) else _MSGPACK_HEAD).decode(frame)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
        return error
    error.request_id, error.ref = request_id({"id": head.id}), _ref(head.type)
    return error


def _ref(kind: Any) -> str | None:
    return kind[:40] if isinstance(kind, str) and kind else None


def request_id(data: Any) -> int | None:
    """The `id` of a decoded value that failed checking, when it has a usable one (for the reply)."""
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53:
            return value
    return None


# -- msgspec's errors in the protocol's words ----------------------------------------------------

_ERROR = re.compile(r"(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?", re.S)
_TYPES = {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
          "object": "a map", "array": "a list", "null": "null", "bytes": "binary data"}


def _field(path: str, name: str | None = None) -> str:
    """`$.settings.komi` -> "settings.komi"; with `name`, the field named inside that path."""
    path = path.lstrip(".")
    if name is not None:
        path = f"{path}.{name}" if path else name
    return path


def _words(types: str) -> str:
    """"`int | null`" -> "an integer or null"."""
    return " or ".join(_TYPES.get(t.strip(), t.strip()) for t in types.split("|"))


def _refusal(text: str) -> ProtocolError:
    """A msgspec ValidationError's text as the protocol's error."""
    if "got `ext`" in text:
        return ProtocolError(ErrorCode.BAD_FRAME, "frame is not valid msgpack: extension types are not allowed")
    if " - at `key` in " in text:
        return ProtocolError(ErrorCode.BAD_FRAME, "frame is not valid msgpack: map keys must be strings")
    match = _ERROR.fullmatch(text)
    what, path = match["what"], match["path"] or ""
    field = _field(path)
    missing = re.fullmatch(r"Object missing required field `(.+)`", what)
    if missing:
        name = _field(path, missing[1])
        if name == "type":
            return ProtocolError(ErrorCode.BAD_MESSAGE, 'a message must have a string field "type"', field="type")
        return ProtocolError(ErrorCode.MISSING_FIELD, f"field {name!r} is required", field=name)
    unknown = re.fullmatch(r"Object contains unknown field `(.+)`", what)
    if unknown:
        name = _field(path, unknown[1])
        return ProtocolError(ErrorCode.BAD_FIELD, f"unknown field {name!r}", field=name)
    if field == "":
        return ProtocolError(ErrorCode.BAD_MESSAGE, "a message must be a map")
    if field == "type":
        value = re.fullmatch(r"Invalid value '(.*)'", what, re.S)
        if value:
            return ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {value[1][:40]!r}", field="type")
        return ProtocolError(ErrorCode.BAD_MESSAGE, 'a message must have a string field "type"', field="type")
    expected = re.fullmatch(r"Expected `([^`]+)`(.*)", what, re.S)
    if expected:
        kind, rest = expected[1], expected[2]
        got = re.fullmatch(r", got `([^`]+)`", rest)
        size = re.fullmatch(r" of length ([<>])= (\d+)", rest)
        if got:
            rest = f", not {_words(got[1])}"
        elif size:
            unit = "characters" if kind == "str" else "entries"
            rest = f" of at {'least' if size[1] == '>' else 'most'} {size[2]} {unit}"
        return ProtocolError(ErrorCode.BAD_FIELD, f"field {field!r} must be {_words(kind)}{rest}", field=field)
    return ProtocolError(ErrorCode.BAD_FIELD, f"field {field!r}: {what[:1].lower()}{what[1:]}", field=field)


# -- sending ---------------------------------------------------------------------------------------

def encode(data: dict[str, Any], codec: str = MSGPACK) -> bytes | str:
    """A map as a frame in the given codec (bytes for msgpack, text for JSON)."""
    if codec == JSON:
        return _JSON_ENCODER.encode(data).decode()
    return _MSGPACK_ENCODER.encode(data)


def encode_message(message: ServerMessage | ClientMessage, codec: str = MSGPACK) -> bytes | str:
    """A message as a frame."""
    if isinstance(message, ServerMessage):
        return encode(message.to_wire(), codec)
    return encode(client_to_wire(message), codec)


def client_to_wire(message: ClientMessage, *, id: int | None = None) -> dict[str, Any]:
    """A client message as a map, fields that are None left out (for clients and tests); `id`
    replaces the message's own."""
    out: dict[str, Any] = {"type": message.TYPE}
    for key in message.__struct_fields__:
        value = getattr(message, key)
        if key == "id" and id is not None:
            value = id
        if value is not None:
            out[key] = msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else value
    return out


# -- reading the server (clients) -----------------------------------------------------------------------

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
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as exc:
        raise ProtocolError(ErrorCode.MISSING_FIELD, f"{data['type']}: {exc}") from None


def decode_server(frame: bytes | str) -> ServerMessage:
    """A frame from the server as a message (for clients)."""
    return parse_server(decode_frame(frame, max_size=2**24))
