"""The "exactly one of" rules of `hello`, `seek` and `challenge` are in docs/schema/protocol.json
as `oneOf`: a frame the schema refuses for its alternatives the live server refuses with
`bad-field` (or `missing-field` for a login without its password), and one it allows is not
refused for them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from polygo.protocol import PROTOCOL_VERSION

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "schema" / "protocol.json").read_text())
SETTINGS = {"rules": "chinese", "board": "9"}


def schema_allows(frame: dict) -> bool:
    name = frame["type"].capitalize()
    validator = jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{name}"})
    return validator.is_valid(frame)


def refused_for_alternatives(reply: dict) -> bool:
    return reply["type"] == "error" and (
        reply["code"] == "bad-field" and "exactly one of" in reply["message"]
        or reply["code"] == "missing-field" and "both user and password" in reply["message"])


HELLOS = [
    {"name": "ann"},
    {"token": "x" * 20},
    {"user": "ann", "password": "secret-secret"},
    {},
    {"name": "ann", "token": "x" * 20},
    {"name": "ann", "user": "ann", "password": "secret-secret"},
    {"name": "ann", "user": "ann"},
    {"user": "ann"},
    {"password": "secret-secret"},
    {"user": "ann", "password": None},
    {"name": None, "token": "x" * 20},
]


@pytest.mark.parametrize("fields", HELLOS, ids=lambda f: "+".join(f"{k}{'' if v else '=null'}" for k, v in f.items())
                         or "none")
async def test_hello_alternatives_are_checked_as_the_schema_says(connect_client, no_failure_delay, fields):
    client = await connect_client()
    frame = {"type": "hello", "protocol": PROTOCOL_VERSION, **fields}
    reply = await client.request(**frame)
    assert refused_for_alternatives(reply) == (not schema_allows(frame)), (frame, reply)


CHOICES = [{"pool": "chinese-9x9"}, {"settings": SETTINGS}, {}, {"pool": "chinese-9x9", "settings": SETTINGS},
           {"pool": None, "settings": SETTINGS}, {"pool": None, "settings": None}]


@pytest.mark.parametrize("kind", ["seek", "challenge"])
@pytest.mark.parametrize("fields", CHOICES, ids=lambda f: "+".join(f"{k}{'' if v else '=null'}" for k, v in f.items())
                         or "none")
async def test_pool_or_settings_is_checked_as_the_schema_says(connect_client, kind, fields):
    client = await connect_client()
    await client.hello("ann")
    frame = {"type": kind, **fields, **({"players": ["bob"]} if kind == "challenge" else {})}
    reply = await client.request(**frame)
    assert refused_for_alternatives(reply) == (not schema_allows(frame)), (frame, reply)
