"""The protocol package on its own, without an event loop: every client message round-trips through
both codecs, every malformed input becomes a ProtocolError with its code, and no input whatever
makes the decoder raise anything else."""

from __future__ import annotations

import json

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polygo import protocol
from polygo.protocol import (CLIENT_MESSAGES, JSON, MAX_FRAME, MSGPACK, ErrorCode, ProtocolError, RoomSettings,
                      decode_client, decode_server, encode, encode_message)

SAMPLES = [
    protocol.Hello(protocol=1, name="ann", client="bot 1.0", id=1),
    protocol.Hello(protocol=1, token="abc"),
    protocol.Register(user="ann", password="secret"),
    protocol.Logout(everywhere=True),
    protocol.ListRooms(),
    protocol.Create(settings=RoomSettings(rules="kee", board={"points": ["a", "b"], "edges": [["a", "b"]]},
                                          players=3, clock="fischer:300+10", private=True, title="t")),
    protocol.Sit(room="r1", seat=2, invite="x"),
    protocol.Watch(room="r1", since=41),
    protocol.Leave(room="r1"),
    protocol.Move(room="r1", move="appeal D4", seq=7),
    protocol.Undo(room="r1"),
    protocol.UndoReply(room="r1", accept=False),
    protocol.Chat(room="r1", text="hello, world"),
    protocol.Analysis(room="r1", score=-2.5, winrate=0.4, pv=["D4", "pass"]),
    protocol.SeatName(room="r1", name="gnugo (built-in bot)"),
    protocol.ListGames(limit=10, offset=20),
    protocol.GetGame(room="r1", format="sgf"),
    protocol.ListPools(),
    protocol.Seek(pool="chinese-9x9"),
    protocol.Seek(settings=RoomSettings(rules="kee", board="hex5", players=3)),
    protocol.Unseek(),
    protocol.Challenge(players=["bob", "cy"], pool="kee-3p-hex5"),
    protocol.ChallengeReply(challenge="c1", accept=True),
    protocol.ListChallenges(),
    protocol.Arena(pool="arena-9x9", join=False),
    protocol.ListMyGames(id=3),
]


def test_every_client_message_type_has_a_sample():
    assert {type(m) for m in SAMPLES} == set(CLIENT_MESSAGES.values())


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
@pytest.mark.parametrize("message", SAMPLES, ids=[type(m).__name__ for m in SAMPLES])
def test_client_messages_round_trip(message, codec):
    frame = encode_message(message, codec)
    assert isinstance(frame, bytes if codec == MSGPACK else str)
    assert decode_client(frame) == message


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_server_messages_round_trip(codec):
    messages = [
        protocol.Welcome(protocol=1, token="t", name="n", seats=[{"room": "r", "seat": 0}], limits={"frame": 1}),
        protocol.Error(code="illegal-move", message="no", reason="cycle", seq=3, id=9),
        protocol.Ack(room="r", seq=1, version=5),
        protocol.Event(room="r", version=6, kind="move", data={"seat": 0, "move": "D4"}),
        protocol.Snapshot(room="r", version=1, status="waiting", settings={}, seats=[], game={}),
        protocol.GameRecord(room="r", format="sgf", record="(;FF[4])"),
    ]
    for message in messages:
        assert decode_server(encode_message(message, codec)) == message


def test_event_fields_sit_beside_the_header_on_the_wire():
    wire = protocol.Event(room="r", version=2, kind="chat", data={"text": "hi"}).to_wire()
    assert wire == {"type": "event", "room": "r", "version": 2, "kind": "chat", "text": "hi"}
    assert "id" not in protocol.Ack(room="r", seq=1, version=2).to_wire()


@pytest.mark.parametrize("ack", [protocol.Ack(room="r", seq=1, version=2),
                                 protocol.Ack(room="r", seq=7, version=40, id=3),
                                 protocol.Ack(room="abcdefgh", seq=2**31, version=0, id=0)])
def test_the_acks_own_map_is_the_plain_one_key_for_key_in_order(ack):
    plain = protocol.ServerMessage.to_wire(ack)
    assert list(ack.to_wire().items()) == list(plain.items())
    assert encode(ack.to_wire(), MSGPACK) == encode(plain, MSGPACK)


def test_server_messages_are_read_leniently():
    frame = json.dumps({"type": "ack", "room": "r", "seq": 1, "version": 2, "new_field": True})
    assert decode_server(frame) == protocol.Ack(room="r", seq=1, version=2)
    with pytest.raises(ProtocolError) as exc:
        decode_server(json.dumps({"type": "ack", "room": "r"}))
    assert exc.value.code is ErrorCode.MISSING_FIELD


@pytest.mark.parametrize("frame,code,field", [
    (b"\xc1", ErrorCode.BAD_FRAME, None),
    ("{", ErrorCode.BAD_FRAME, None),
    ('{"type": "chat", "room": "r", "text": NaN}', ErrorCode.BAD_FRAME, None),
    (msgpack.packb([1]), ErrorCode.BAD_MESSAGE, None),
    ('{"type": null}', ErrorCode.BAD_MESSAGE, "type"),
    ('{"type": "nope"}', ErrorCode.UNKNOWN_TYPE, "type"),
    ('{"type": "sit"}', ErrorCode.MISSING_FIELD, "room"),
    ('{"type": "sit", "room": 5}', ErrorCode.BAD_FIELD, "room"),
    ('{"type": "sit", "room": ""}', ErrorCode.BAD_FIELD, "room"),
    ('{"type": "sit", "room": "r", "seat": 8}', ErrorCode.BAD_FIELD, "seat"),
    ('{"type": "sit", "room": "r", "seat": 1.5}', ErrorCode.BAD_FIELD, "seat"),
    ('{"type": "undo_reply", "room": "r", "accept": 1}', ErrorCode.BAD_FIELD, "accept"),
    ('{"type": "move", "room": "r", "move": "D4", "seq": 1, "id": -1}', ErrorCode.BAD_FIELD, "id"),
    ('{"type": "create", "settings": {"players": 3}}', ErrorCode.MISSING_FIELD, "settings.rules"),
    ('{"type": "create", "settings": {"rules": "kee", "komi": "6.5"}}', ErrorCode.BAD_FIELD, "settings.komi"),
    ('{"type": "create", "settings": {"rules": "kee", "typo": 1}}', ErrorCode.BAD_FIELD, "settings.typo"),
    ('{"type": "chat", "room": "r", "text": "' + "x" * 501 + '"}', ErrorCode.BAD_FIELD, "text"),
    ("[" + " " * 70_000 + "]", ErrorCode.TOO_LARGE, None),
    ('{"type": "chat", "room": "r", "text": "x\\ud800"}', ErrorCode.BAD_FRAME, None),
    ('{"type": "chat", "room": "r", "\\udfff": "x"}', ErrorCode.BAD_FRAME, None),
    ('{"type": "create", "settings": {"rules": "kee", "board": {"points": ["\\uDC00"]}}}', ErrorCode.BAD_FRAME, None),
])
def test_malformed_input_names_its_code_and_field(frame, code, field):
    with pytest.raises(ProtocolError) as exc:
        decode_client(frame)
    assert exc.value.code is code and exc.value.field == field
    assert str(exc.value).startswith(code.value + ": ")


def test_the_size_limit_counts_bytes_of_text_frames_too():
    text = json.dumps(["\u20ac" * 30_000], ensure_ascii=False)      # 30,004 characters, 90,004 bytes
    with pytest.raises(ProtocolError) as exc:
        protocol.decode_frame(text)
    assert exc.value.code is ErrorCode.TOO_LARGE and "90004 bytes" in exc.value.message
    assert protocol.decode_frame(json.dumps(["\u20ac" * 20_000], ensure_ascii=False)) == ["\u20ac" * 20_000]


def test_escaped_surrogate_pairs_are_text():
    message = decode_client('{"type": "chat", "room": "r", "text": "go \\ud83d\\ude00"}')
    assert message.text == "go \U0001f600"


def test_settings_defaults():
    message = decode_client('{"type": "create", "settings": {"rules": "chinese"}}')
    assert message.settings.to_json() == {"rules": "chinese", "board": "19", "players": 2, "komi": None,
                                          "handicap": 0, "handicap_mode": "fixed", "superko": None, "options": None,
                                          "clock": None, "private": False, "title": "", "bots": 0}


@pytest.mark.parametrize("clock", ["none", "absolute:600", "byoyomi:600+5x30", "fischer:300+10",
                                   "fischer:300+10max600", "canadian:600+300/25", "byoyomi:3600.5+10x60.25"])
def test_every_documented_clock_spec_gets_past_the_size_check(clock):
    message = decode_client(json.dumps({"type": "create", "settings": {"rules": "chinese", "clock": clock}}))
    assert message.settings.clock == clock


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200)))
def test_no_bytes_make_the_decoder_raise_anything_but_protocol_error(frame):
    try:
        decode_client(frame)
    except ProtocolError:
        pass


json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=10),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                           max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(CLIENT_MESSAGES)), st.dictionaries(
    st.sampled_from(["room", "move", "seq", "seat", "since", "settings", "text", "name", "token", "protocol",
                     "accept", "limit", "id", "invite", "user", "password"]), json_values, max_size=5))
def test_any_message_shape_is_accepted_or_refused_with_a_code(kind, fields):
    try:
        message = decode_client(encode({"type": kind, **fields}))
    except ProtocolError as exc:
        assert exc.code in ErrorCode
    else:
        assert message.TYPE == kind


@pytest.mark.parametrize("frame,sentence", [
    ('{"type": "sit", "room": "r", "seat": 8}', "field 'seat' must be an integer <= 7"),
    ('{"type": "sit", "room": "r", "seat": 1.0}', "field 'seat' must be an integer or null, not a number"),
    ('{"type": "sit", "room": ""}', "field 'room' must be a string of at least 1 characters"),
    ('{"type": "sit"}', "field 'room' is required"),
    ('{"type": "create", "settings": {"rules": "kee", "komi": "6.5"}}',
     "field 'settings.komi' must be a number or null, not a string"),
    ('{"type": "create", "settings": {"rules": "kee", "typo": 1}}', "unknown field 'settings.typo'"),
    ('{"type": "nope"}', "unknown message type 'nope'"),
])
def test_errors_are_sentences_that_name_the_field(frame, sentence):
    with pytest.raises(ProtocolError) as exc:
        decode_client(frame)
    assert exc.value.message == sentence


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_a_refused_frame_keeps_its_id_and_type_when_they_can_be_read(codec):
    for data, limit in [({"type": "chat", "room": "r", "text": "x" * 600, "id": 12}, MAX_FRAME),
                        ({"type": "chat", "room": "r", "text": "x" * 200, "id": 12}, 100)]:
        with pytest.raises(ProtocolError) as exc:
            decode_client(encode(data, codec), max_size=limit)
        assert (exc.value.request_id, exc.value.ref) == (12, "chat")
    with pytest.raises(ProtocolError) as exc:
        decode_client(encode({"type": "chat", "room": "r", "text": "x", "id": -1}, codec))
    assert exc.value.field == "id" and exc.value.request_id is None


@pytest.mark.parametrize("depth, codec", [(400, MSGPACK), (990, MSGPACK), (400, JSON), (990, JSON)])
def test_deeply_nested_settings_are_refused_with_a_code(depth, codec):
    head = {"type": "create", "id": 5, "settings": {"rules": "chinese", "board": {"points": [], "coords": None}}}
    if codec == MSGPACK:    # built by hand: the encoders refuse to go this deep themselves
        frame: bytes | str = msgpack.packb(head)[:-1] + b"\x81\xa1a" * depth + b"\x90"
    else:
        frame = json.dumps(head).replace("null", '{"a": ' * depth + "[]" + "}" * depth)
    with pytest.raises(ProtocolError) as refused:
        decode_client(frame)
    assert refused.value.code in (ErrorCode.BAD_FIELD, ErrorCode.BAD_FRAME)
    assert "deeper" in refused.value.message or "recursion" in refused.value.message


def test_settings_nested_within_the_bound_pass():
    value: object = ["x"]
    for _ in range(protocol.codec.MAX_DEPTH - 3):
        value = {"a": value}
    frame = msgpack.packb({"type": "create", "settings": {"rules": "chinese", "board": {"points": [], "coords": value}}})
    assert decode_client(frame).settings.board["coords"] == value
