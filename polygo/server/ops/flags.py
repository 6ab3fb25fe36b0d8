"""The sentence a bad flag's value gets: what the flag takes, said before the server starts."""

from __future__ import annotations

import argparse
from typing import Any, Callable


def checked_number(text: str, kind: type, what: str, allowed: Callable[[Any], bool], bounds: str,
                   number: str = "a whole number") -> Any:
    """`text` (a flag's value or its variable's) as a `kind`, or an ArgumentTypeError whose sentence
    says what the flag takes: "{what} is {number}, not ..." or "{what} is {bounds}, not ..."."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} is {number}, not {text!r}") from None
    if not allowed(value):
        raise argparse.ArgumentTypeError(f"{what} is {bounds}, not {text!r}")
    return value
