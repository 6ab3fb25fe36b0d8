"""docs/schema/protocol.json is the JSON Schema generated from the message Structs: it must be the
generator's current output, so the published schema cannot drift from what the server checks."""

from __future__ import annotations

import json
from pathlib import Path

from polygo.protocol import CLIENT_MESSAGES, SERVER_MESSAGES
from polygo.protocol.jsonschema import schema, text

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "schema" / "protocol.json"


def test_the_schema_in_docs_is_current():
    assert SCHEMA.read_text() == text(), "regenerate: python -m polygo.protocol.jsonschema > docs/schema/protocol.json"


def test_the_schema_describes_every_message_and_its_bounds():
    defs = schema()["$defs"]
    for cls in CLIENT_MESSAGES.values():
        assert defs[cls.__name__]["properties"]["type"] == {"enum": [cls.TYPE]}
        assert defs[cls.__name__]["additionalProperties"] is False      # the server refuses unknown fields
    mapping = defs["ServerMessage"]["discriminator"]["mapping"]
    assert set(mapping) == set(SERVER_MESSAGES)
    for kind in ("seat", "start", "move", "undo-request", "undo-reply", "undo", "timeout", "chat"):
        assert kind in defs["EventKind"]["discriminator"]["mapping"]
    move = defs["Move"]
    assert move["required"] == ["type", "room", "move", "seq"]
    assert move["properties"]["seq"] == {"type": "integer", "minimum": 0, "maximum": 2**53}
    settings = defs["RoomSettings"]["properties"]
    assert settings["players"] == {"type": "integer", "minimum": 2, "maximum": 8, "default": 2}
    legal = defs["Legal"]
    assert legal["required"] == ["seat", "pass", "prohibited", "appeals"]
    assert "additionalProperties" not in defs["MoveEvent"]                # clients ignore unknown fields
    assert json.loads(SCHEMA.read_text())["$defs"]["GameView"]["properties"]["legal"]["anyOf"][0] == \
        {"$ref": "#/$defs/Legal"}
