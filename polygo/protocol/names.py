"""Display and user names: what a name may hold, its one written form, and its look-alike key.

Names are what players recognise each other by, so two names that look the same must not be told
apart by the server alone: `Alice`, `alice `, `Аlice` (a Cyrillic А), `Ａｌｉｃｅ` (fullwidth) and
`Ali​ce` (a zero-width space) must not pass beside a registered `Alice`. Here:

- `clean_name` gives a name's one written form (NFKC, trimmed, inner runs of spaces made one) and
  refuses what cannot be seen or shown: control characters (NUL included), format characters
  (zero-width spaces and joiners, right-to-left overrides), other invisible letters (the Hangul
  fillers, the Braille blank), line and paragraph separators, unassigned and private code points,
  stacks of combining marks, and a name that is blank once trimmed.
- `skeleton` is the key two names share when they look alike (case-folded, accents and spaces
  dropped, Cyrillic and Greek look-alikes and `0`/`1`/`I` read as the Latin letters they resemble,
  after Unicode TR39's idea of a skeleton with a small table of its most common entries). The
  server refuses a registration, a guest name or a seat name whose skeleton is a registered name's.
- `house_bot_name` names the server's own bot in its seats (bot1, bot2, ...); `passes_for_house_bot`
  tells a name that is or looks like one of those, which nobody else may take: the bot's seats
  carry no registered user, so only its name tells a person from the server's bot.

Pure functions, shared by the server and any Python client that wants to check a name before
sending it.
"""

from __future__ import annotations

import unicodedata

from .errors import ErrorCode, ProtocolError
from .messages import PLAYERS_MAX

REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (zero-width space or joiner, direction override, ...)",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
"""Unicode general categories a name may not hold, with how the refusal names them."""

INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
"""Code points that draw nothing but are letters or marks, not format characters: the Hangul
fillers, the Braille blank, the combining grapheme joiner, two Khmer inherent vowels."""

MARKS_MAX = 2
"""Combining marks one letter may carry (more stack above and below the line: "zalgo" text)."""

LOOK_ALIKES = str.maketrans({
    # Cyrillic, after case folding
    "а": "a", "в": "b", "г": "r", "е": "e", "з": "3", "і": "l", "ј": "j", "к": "k", "м": "m", "н": "h",
    "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "һ": "h", "ӏ": "l", "ь": "b", "ч": "4",
    # Greek, after case folding
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c",
    # Latin and digits that read as one another once case is gone
    "0": "o", "1": "l", "i": "l", "|": "l", "ı": "l", "ɡ": "g", "ɑ": "a", "ſ": "s",
})
"""The look-alike table of `skeleton`: each character to the Latin letter it is mistaken for."""

LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"))
"""Letter pairs read as one letter."""


def bad_character(name: str) -> str | None:
    """What in `name` cannot be shown as a name, or None."""
    marks = 0
    for char in name:
        if char in INVISIBLE_LETTERS:
            return f"an invisible character (U+{ord(char):04X})"
        category = unicodedata.category(char)
        refused = REFUSED_CATEGORIES.get(category)
        if refused is not None:
            return f"{refused} (U+{ord(char):04X})"
        if category.startswith("Z") and char != " " or char.isspace() and char != " ":
            return f"a space other than the plain one (U+{ord(char):04X})"
        marks = marks + 1 if unicodedata.combining(char) else 0
        if marks > MARKS_MAX:
            return f"more than {MARKS_MAX} combining marks on one letter"
    return None


def clean_name(name: str, *, field: str = "name", max_len: int = 32) -> str:
    """`name` in its one written form, or a ProtocolError (bad-name) that says what is wrong."""
    written = " ".join(part for part in unicodedata.normalize("NFKC", name).split(" ") if part)
    why = bad_character(written)
    if why is not None:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name may not hold {why}", field=field)
    if not written:
        raise ProtocolError(ErrorCode.BAD_NAME, "a name needs a visible character", field=field)
    if len(written) > max_len:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name is at most {max_len} characters once normalised "
                                                f"(NFKC), this one {len(written)}", field=field)
    return written


def skeleton(name: str) -> str:
    """The key of `name` among look-alikes: two names with one skeleton are taken for one name."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    bare = "".join(c for c in folded if not unicodedata.combining(c) and not c.isspace())
    key = unicodedata.normalize("NFKC", bare).casefold().translate(LOOK_ALIKES)
    for pair, single in LOOK_ALIKE_PAIRS:
        key = key.replace(pair, single)
    return key


def house_bot_name(n: int) -> str:
    """The name of the house bot in the `n`th of a room's bot seats (from 1)."""
    return f"bot{n}"


HOUSE_BOT_SKELETONS = frozenset(skeleton(house_bot_name(n)) for n in range(1, PLAYERS_MAX))
"""The look-alike keys of every name the house bot can have (a room has at most PLAYERS_MAX - 1 bots)."""


def passes_for_house_bot(name: str) -> bool:
    """Whether `name` is, or looks like, a name of the server's house bot (reserved for it)."""
    return skeleton(name) in HOUSE_BOT_SKELETONS
