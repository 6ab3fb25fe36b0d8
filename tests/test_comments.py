"""The code says why in a line; what a trick saves, measured, is in docs/performance.md with the
command that measures it (CONTRIBUTING.md, "Benchmarks"). A figure quoted in a comment goes stale
where nobody measures it again, so a comment or docstring of polygo/ that quotes a time in µs or
ns, a time in ms a move, or a count of instructions or bytecodes fails here, named.

Only Python is read: comments, and every string that stands as a statement of its own (module,
class and function docstrings, and the strings under constants and attributes).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MEASUREMENT = re.compile(r"""
      \d[\d,.]*\s?(?:µs|μs|ns)\b                                  # 14 µs, 299 ns
    | \d[\d,.]*\s?us\b                                            # 64 us: µs in ASCII
    | \d[\d,.]*\s?ms\s+(?:a|per|each)\s+\w                         # 2.6 ms a move
    | \d[\d,.]*\s?ms\s+of\s+(?:the\s+)?(?:event\s+)?loop           # 4 ms of the event loop
    | \d[\d,.]*\s+(?:machine\s+)?(?:instructions|bytecodes)\b      # 1,500 instructions
    | \b(?:instructions|bytecodes)\s+(?:a|per|each)\s+\w           # instructions a move
    | \d+(?:\.\d+)?\s?%\s+(?:of|off)\b[^.;]{0,40}?\b(?:time|CPU|instructions)\b   # 14% of its time
""", re.VERBOSE)
"""A quoted measurement: a number with its unit, not the unit's name in a sentence ("a legality
check must cost microseconds" says what is wanted, and passes)."""

OWNED_ELSEWHERE = (
    "polygo/server/hub.py",
    "polygo/server/net/quick_reading.py",
    "polygo/server/net/gate.py",
    "polygo/server/net/frames.py",
    "polygo/rules/quick.py",
    "polygo/rules/ruleset.py",
    "polygo/rules/repetition/",
)
"""For now, left out: their owners move these modules' figures to docs/performance.md in changes
of their own, and each entry goes when its module's change lands (a path ending in / is a
folder). polygo/server/web/'s JavaScript, also theirs, is not read here."""


def _owned_elsewhere(relative: str) -> bool:
    return any(relative == entry or (entry.endswith("/") and relative.startswith(entry))
               for entry in OWNED_ELSEWHERE)


def comment_lines(source: str) -> list[tuple[int, str]]:
    """(line number, text) of every comment and statement-string line of a module's source."""
    lines = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            lines += [(node.lineno + i, text) for i, text in enumerate(node.value.value.splitlines())]
    return sorted(lines)


def measurements(source: str) -> list[tuple[int, str]]:
    """The comment and docstring lines of `source` that quote a measurement."""
    return [(number, text.strip()) for number, text in comment_lines(source) if MEASUREMENT.search(text)]


def test_no_comment_of_polygo_quotes_a_measurement():
    found = []
    for path in sorted((ROOT / "polygo").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if _owned_elsewhere(relative):
            continue
        found += [f"{relative}:{number}: {text}" for number, text in measurements(path.read_text(encoding="utf-8"))]
    assert not found, ("measurements go to docs/performance.md with their command; the code keeps the "
                       "reason in a line:\n" + "\n".join(found))


def test_the_modules_left_out_still_exist():
    missing = [entry for entry in OWNED_ELSEWHERE if not (ROOT / entry).exists()]
    assert not missing, f"gone or moved: {missing}; take them out of OWNED_ELSEWHERE"


@pytest.mark.parametrize("text", [
    "(every move's event is stored: 14 µs became 4)",
    "a move frame in 299 ns",
    "about 64 us against 34 us per command",
    "the maps held alive cost 2.6 ms a move",
    "a rendering costs about 4 ms of the event loop's time",
    "a level of a coroutine chain costs some 1,500 instructions",
    "16,502 machine instructions",
    "it costs 4% of a move: 190,500 instructions a move",
    "It stays because it takes 14% of the server's instructions off a move",
    "each play's bytecodes a play, 420 bytecodes",
])
def test_a_quoted_measurement_is_found(text):
    assert MEASUREMENT.search(text)


@pytest.mark.parametrize("text", [
    "A legality check must cost microseconds, not a scan of the board",
    "WATCHDOG_USEC is not a number of microseconds",
    "the store groups the writes arriving within 2 ms into one transaction",
    "a stone whose point goes to another colour in 60 % of the play-outs is dead",
    "the machine instructions of a play, which do not move between runs",
    "3 users, 2 nodes and 9 status lines",
    "shared by the games of its size, not a list of its own in every game",
])
def test_a_word_or_a_setting_is_not_a_measurement(text):
    assert not MEASUREMENT.search(text)


def test_comment_lines_reads_comments_and_docstrings_only():
    source = ('"""Module: 3 µs."""\n'
              'X = 1  # 5 µs\n'
              'Y = "7 µs"\n'
              'def f():\n'
              '    """Line one.\n\n    Line three: 9 µs."""\n')
    assert [number for number, _ in measurements(source)] == [1, 2, 7]
