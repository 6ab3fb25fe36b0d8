"""The values the store writes, checked before a write joins a batch (a value the database
refuses would fail the whole batch at COMMIT, every room's callers with it), and JSON text.

Values (settings, events, clocks, results) are stored as JSON text, readable with the sqlite3 shell
and its JSON functions; like any JSON, dict keys come back as strings and tuples as lists.
"""

from __future__ import annotations

import json
from typing import Any, Generator

import msgspec

from .errors import StoreError

Query = tuple[str, tuple]
"""One statement and its parameters."""

Step = Generator[Query, list[tuple], None]
"""Statements that depend on rows read in the same transaction (`Store.run_step`): the step yields
each query and is sent its rows, on either database."""


def is_int(value: Any) -> bool:
    """A whole number SQLite stores as an integer (bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def check_int(what: str, value: Any, *, optional: bool = False) -> None:
    """Checked before a write joins a batch: a value SQLite refuses would fail the whole batch."""
    if not (is_int(value) or (optional and value is None)):
        raise StoreError("bad-value", f"The {what} must be a whole number from 0, not {value!r}.")


def check_text(what: str, value: Any, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not isinstance(value, str):
        raise StoreError("bad-value", f"The {what} must be a string, not {value!r}.")
    if "\x00" in value:
        raise StoreError("bad-value", f"The {what} holds a NUL character, which PostgreSQL cannot store "
                                      f"(refused on SQLite too, so both accept the same values): {value!r}.")
    check_utf8(what, value)


def check_utf8(what: str, text: str) -> None:
    """SQLite stores UTF-8: a lone surrogate would fail the whole batch at COMMIT, not this caller."""
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise StoreError("bad-value", f"The {what} is not Unicode text (a lone surrogate): {text!r}.") from None


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_FAST_ENCODER = msgspec.json.Encoder()
_FAST_DECODER = msgspec.json.Decoder()


def dumps(value: Any, what: str) -> str:
    """``value`` as JSON text, or StoreError. msgspec writes it several times quicker than ``json``
    (every move's event is stored); its text is kept when it reads back as
    the same value. It does not for NaN and infinities (msgspec writes null), tuples and keys that
    are not strings: those take ``json``'s path, which refuses what it always refused."""
    try:
        data = _FAST_ENCODER.encode(value)
        if _FAST_DECODER.decode(data) == value:
            return data.decode()
    except (TypeError, ValueError):   # a lone surrogate is a UnicodeEncodeError, a ValueError
        pass
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise StoreError("bad-value", f"Cannot store {what} as JSON: {exc}.") from None
    check_utf8(what, text)
    return text


def plain_dumps(value: Any, what: str) -> str:
    """``value``, which holds only JSON's own values (``Store.record``'s ``plain``), as JSON text:
    msgspec's, without `dumps`' read-back, which decodes every move's event a second time and
    compares the two, most of `dumps`' cost; for such a value msgspec's text
    is what ``json`` writes. A lone surrogate, which msgspec refuses, still goes to `dumps` and
    is refused there."""
    try:
        return _FAST_ENCODER.encode(value).decode()
    except (TypeError, ValueError):
        return dumps(value, what)
