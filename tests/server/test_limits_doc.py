"""docs/protocol.md names every limit a client can meet, with what the client gets, its default
and the server's option that sets it: a bot author who is refused `rate-limited` or
`too-many-rooms` finds why on the page a client is written from, not only in docs/server.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from polygo.server.config import PROTECTIONS, Config

PAGE = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

REFUSED_AS = {"create_rate": "rate-limited", "read_rate": "rate-limited", "guest_rate": "rate-limited",
              "register_rate": "rate-limited", "chat_rate": "rate-limited", "login_failures": "rate-limited",
              "login_failures_per_address": "rate-limited", "max_rooms": "too-many-rooms",
              "rooms_per_address": "too-many-rooms", "points_per_address": "too-many-rooms",
              "points_per_user": "too-many-rooms", "rooms_per_creator": "too-many-rooms"}
"""The error code each limit answers a message with (the others refuse a handshake, close a
connection, end a token or drop a room)."""


def rows() -> list[str]:
    """The rows of the table in protocol.md's "Limits" section."""
    section = re.search(r"^### Limits\n(.*?)^#", PAGE.read_text(), re.M | re.S)
    assert section, "docs/protocol.md has no Limits section"
    return [line for line in section.group(1).splitlines() if line.startswith("|")]


def shown(value: float) -> str:
    """A default as the page writes it: 262,144 and 0.1."""
    return f"{int(value):,}" if value == int(value) else f"{value:g}"


@pytest.mark.parametrize("field", [field for field, _, _ in PROTECTIONS if field != "max_connections"])
def test_each_limit_is_on_the_page_with_its_option_default_and_code(field):
    flag = "--" + field.replace("_", "-")
    row = next((row for row in rows() if f"`{flag}`" in row), None)
    assert row is not None, f"docs/protocol.md's Limits do not name {flag}"
    assert shown(getattr(Config(), field)) in row, f"{flag}: the row does not give the default"
    if field in REFUSED_AS:
        assert f"`{REFUSED_AS[field]}`" in row, f"{flag}: the row does not name {REFUSED_AS[field]}"


def test_the_total_of_connections_and_the_message_rate_are_there_too():
    """Their defaults are not numbers of Config: the descriptor limit, and `welcome.limits`."""
    text = "\n".join(rows())
    assert "`--max-connections`" in text and "`rate-limited`" in text and "`limits.rate`" in text
