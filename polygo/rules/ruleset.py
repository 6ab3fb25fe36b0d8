"""Rulesets as values: a frozen bundle of orthogonal parts, with named presets.

Like KataGo's ``Rules``: each part is an enum, a preset is a name for one combination, and
the JSON form is strict (unknown keys or values are errors), because the server stores it
with every game and must read it back exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any, Mapping

from .errors import RulesetError


class Repetition(str, Enum):
    """Which repeated positions a stone play may not produce."""

    KEE = "kee"                    # Kee rule 11, with appeals and rescission (rules 12-14)
    POSITIONAL = "positional"      # no whole-board position may repeat
    SITUATIONAL = "situational"    # no position may repeat with the same player to move
    KO = "ko"                      # no immediate recapture in a ko (Japanese 1989, Article 6)
    HANSEN = "hansen"              # Hansen's SST ko rules: cycle sets (rule 9), disallowed captures (15)
    NIEMINEN = "nieminen"          # own-previous ko, dispute superko, "no result" for loops (N7a, N14a, N12)
    NKR = "nkr"                    # Jasiek's New Ko Rules: ko analysis and rules R1-R4, no whole-board repetition


class KoShapes(str, Enum):
    """The ko mouth shapes of Jasiek's New Ko Rules (the text's diagrams are lost)."""

    TWO_POINT = "two-point"            # the certain two-point mouth (Tier 1)
    RECONSTRUCTED = "reconstructed"    # plus the 3- and 4-point shapes the text names (Tier 2, a reconstruction)


class Suicide(str, Enum):
    BOARD_CHANGING = "board-changing"  # allowed where it changes the board (Kee rule 10, Tromp-Taylor)
    FORBIDDEN = "forbidden"


class Supply(str, Enum):
    UNLIMITED = "unlimited"
    LASKER_MAAS = "lasker-maas"    # phase 1 unlimited, phase 2 from the prisoners' place


class Scoring(str, Enum):
    AREA = "area"                  # stones + empty groups touching one colour only (Kee rule 17)
    LASKER_MAAS = "lasker-maas"    # territory minus own-colour stones in the prisoners' place
    TERRITORY = "territory"        # territory plus the opponent's stones captured (two players)
    TERRITORY_LITERAL = "territory-literal"  # the same, and a region touching no stone counts for both (N16)


class Ending(str, Enum):
    MARKING = "marking"            # after the passes, dead stones are removed by agreement
    IMMEDIATE = "immediate"        # every stone on the board is alive (Tromp-Taylor)
    PHASES = "phases"              # Lasker-Maas: phase 2 settles life and death by play
    DISPUTE = "dispute"            # marking, and a disputed chain is played out (Nieminen N14)


class HandicapBonus(str, Enum):
    """Points White gets for N handicap stones under area scoring."""

    NONE = "none"
    N = "n"                        # Chinese
    N_MINUS_1 = "n-1"              # AGA


class HandicapMode(str, Enum):
    FIXED = "fixed"
    FREE = "free"


@dataclass(frozen=True)
class Ruleset:
    name: str
    repetition: Repetition
    suicide: Suicide
    supply: Supply = Supply.UNLIMITED
    scoring: Scoring = Scoring.AREA
    ending: Ending = Ending.MARKING
    komi: float = 0.0
    handicap: int = 0
    handicap_mode: HandicapMode = HandicapMode.FIXED
    handicap_bonus: HandicapBonus = HandicapBonus.NONE
    max_players: int | None = None
    setup: Mapping[str, int] = field(default_factory=dict)
    # the game ends with no result after this many turn plays per point of the board; 0: never
    move_cap_per_point: int = 0
    # Hansen's options (None in the other presets): see docs/rules/hansen-sst.md
    a1: str | None = None          # "basic-ko" (A1', an obvious cycle set is taken as made) or "off"
    a3: bool | None = None         # A3' (two kos, one liberty) on
    keying: str | None = None      # a cycle set belongs to the capture and the "config" it leaves, or its "identity"
    counter: str | None = None     # a potentially disallowed move is counteracted by the "immediate" reply or "later"
    no_result_at: int = 0          # N12: the occurrence of a situation that ends the game; 0: never
    ko_shapes: KoShapes = KoShapes.TWO_POINT
    # what a player reads before choosing it, not rules: apart from equality, the parts and the
    # records. "" is the name (title) or a line made from the parts (help): polygo/rules/describe.py
    title: str = field(default="", compare=False)
    help: str = field(default="", compare=False)

    @property
    def appeals(self) -> bool:
        return self.repetition is Repetition.KEE

    @property
    def passes_any_time(self) -> bool:
        """Lasker-Maas: players "may pass at any time in the game", during free handicap
        placement too (a pass there uses up one of Black's consecutive moves)."""
        return self.supply is Supply.LASKER_MAAS

    def with_options(self, **options: Any) -> "Ruleset":
        """This ruleset with keyword options (komi, handicap, superko, ...) applied and checked."""
        changes: dict[str, Any] = {}
        for key, value in options.items():
            if key not in OPTIONS:
                raise RulesetError(f"unknown ruleset option {key!r}; known: {', '.join(sorted(OPTIONS))}")
            changes.update(OPTIONS[key](self, value))
        return replace(self, **changes)

    def options(self) -> dict[str, Any]:
        """The options that differ from the preset: what a record stores beside the name."""
        base = preset(self.name)
        out: dict[str, Any] = {}
        if self.komi != base.komi:
            out["komi"] = self.komi
        if self.handicap:
            out["handicap"] = self.handicap
        if self.handicap_mode != base.handicap_mode:
            out["handicap_mode"] = self.handicap_mode.value
        if self.repetition != base.repetition:
            out["superko"] = self.repetition.value
        if self.setup:
            out["setup"] = dict(self.setup)
        if self.ko_shapes != base.ko_shapes:
            out["ko_shapes"] = self.ko_shapes.value
        for key in ("move_cap_per_point", "no_result_at", *HANSEN_OPTIONS):
            if getattr(self, key) != getattr(base, key):
                out[key] = getattr(self, key)
        return out

    def family_options(self) -> dict[str, Any]:
        """The options of this ruleset's own rule family with their values, defaults included: what
        a record needs to replay the same even if a preset's defaults change later."""
        out: dict[str, Any] = {"move_cap_per_point": self.move_cap_per_point} if self.move_cap_per_point else {}
        if self.repetition is Repetition.NIEMINEN:
            out["no_result_at"] = self.no_result_at
        if self.repetition is Repetition.NKR:
            out["ko_shapes"] = self.ko_shapes.value
        if self.repetition is Repetition.HANSEN:
            out.update((key, getattr(self, key)) for key in HANSEN_OPTIONS)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **self.options()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> "Ruleset":
        if isinstance(data, str):
            return preset(data)
        if not isinstance(data, Mapping) or "name" not in data:
            raise RulesetError("a ruleset must be a preset name or an object with 'name' and options")
        options = {k: v for k, v in data.items() if k != "name"}
        return preset(data["name"]).with_options(**options)

    def parts(self) -> dict[str, Any]:
        """Every part, for documentation and the protocol's room description (not the title and
        help, which are words about the parts)."""
        d = asdict(self)
        return {k: (v.value if isinstance(v, Enum) else v) for k, v in d.items() if k not in ("title", "help")}


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RulesetError(f"{name} must be a number, got {value!r}")
    return float(value)


def _komi(rules: Ruleset, value: Any) -> dict[str, Any]:
    komi = _number("komi", value)
    if abs(komi) > 1000:
        raise RulesetError(f"komi {komi} is out of range")
    if rules.supply is Supply.LASKER_MAAS and (komi * 2) % 1:
        raise RulesetError(f"lasker-maas komi is a number of stones (black if positive, white if negative) "
                           f"plus an optional half point for White, not {komi}")
    return {"komi": komi}


def _handicap(rules: Ruleset, value: Any) -> dict[str, Any]:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 25:
        raise RulesetError(f"handicap must be a whole number from 0 to 25, got {value!r}")
    return {"handicap": 0 if value == 1 else value}


def _handicap_mode(rules: Ruleset, value: Any) -> dict[str, Any]:
    try:
        return {"handicap_mode": HandicapMode(value)}
    except ValueError:
        raise RulesetError(f"handicap_mode must be 'fixed' or 'free', got {value!r}") from None


def _superko(rules: Ruleset, value: Any) -> dict[str, Any]:
    if rules.repetition in (Repetition.KEE, Repetition.KO, Repetition.HANSEN, Repetition.NIEMINEN,
                            Repetition.NKR):
        raise RulesetError(f"{rules.name} has its own repetition rule; superko cannot be changed")
    if value not in ("positional", "situational"):
        raise RulesetError(f"superko must be 'positional' or 'situational', got {value!r}")
    return {"repetition": Repetition(value)}


def _setup(rules: Ruleset, value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in value.items()):
        raise RulesetError("setup must map point names to seat numbers, e.g. {\"D4\": 0}")
    return {"setup": dict(value)}


def _move_cap(rules: Ruleset, value: Any) -> dict[str, Any]:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
        raise RulesetError(f"move_cap_per_point must be a whole number from 0 (no cap) to 1000, got {value!r}")
    return {"move_cap_per_point": value}


HANSEN_OPTIONS: dict[str, tuple[Any, ...]] = {
    "a1": ("basic-ko", "off"), "a3": (False, True),
    "keying": ("config", "identity"), "counter": ("immediate", "later")}


def _hansen(key: str) -> Any:
    def check(rules: Ruleset, value: Any) -> dict[str, Any]:
        if rules.repetition is not Repetition.HANSEN:
            raise RulesetError(f"{key} is an option of Hansen's ko rules (hansen-sst), not of {rules.name}")
        allowed = HANSEN_OPTIONS[key]
        if not any(value is v if isinstance(v, bool) else (type(value) is str and value == v) for v in allowed):
            raise RulesetError(f"{key} must be {' or '.join(map(repr, allowed))}, got {value!r}")
        return {key: value}
    return check


def _no_result_at(rules: Ruleset, value: Any) -> dict[str, Any]:
    if rules.repetition is not Repetition.NIEMINEN:
        raise RulesetError(f"{rules.name} has no 'no result' rule; no_result_at is for nieminen")
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 100:
        raise RulesetError(f"no_result_at must be a whole number from 2 to 100 (the occurrence of a "
                           f"situation that ends the game), got {value!r}")
    return {"no_result_at": value}


def _ko_shapes(rules: Ruleset, value: Any) -> dict[str, Any]:
    if rules.repetition is not Repetition.NKR:
        raise RulesetError(f"ko_shapes is an option of Jasiek's New Ko Rules (jasiek-nkr), not of {rules.name}")
    try:
        return {"ko_shapes": KoShapes(value)}
    except ValueError:
        raise RulesetError(f"ko_shapes must be 'two-point' or 'reconstructed', got {value!r}") from None


OPTIONS = {"komi": _komi, "handicap": _handicap, "handicap_mode": _handicap_mode,
           "superko": _superko, "setup": _setup, "move_cap_per_point": _move_cap,
           "no_result_at": _no_result_at, "ko_shapes": _ko_shapes, **{key: _hansen(key) for key in HANSEN_OPTIONS}}

PRESETS: dict[str, Ruleset] = {
    "kee": Ruleset("kee", Repetition.KEE, Suicide.BOARD_CHANGING, title="Kee (2016)",
                   help="any number of players; a repeated position is prohibited, but a player may appeal, "
                        "and an appealed stone can be rescinded"),
    "chinese": Ruleset("chinese", Repetition.POSITIONAL, Suicide.FORBIDDEN, komi=7.5,
                       handicap_bonus=HandicapBonus.N, title="Chinese"),
    "japanese": Ruleset("japanese", Repetition.KO, Suicide.FORBIDDEN,
                        scoring=Scoring.TERRITORY, komi=6.5, max_players=2, title="Japanese"),
    "aga": Ruleset("aga", Repetition.SITUATIONAL, Suicide.FORBIDDEN, komi=7.5,
                   handicap_bonus=HandicapBonus.N_MINUS_1, max_players=2, title="AGA"),
    "tromp-taylor": Ruleset("tromp-taylor", Repetition.POSITIONAL, Suicide.BOARD_CHANGING,
                            ending=Ending.IMMEDIATE, title="Tromp-Taylor"),
    "lasker-maas": Ruleset("lasker-maas", Repetition.SITUATIONAL, Suicide.FORBIDDEN,
                           supply=Supply.LASKER_MAAS, scoring=Scoring.LASKER_MAAS,
                           ending=Ending.PHASES, max_players=2, title="Lasker-Maas (1995)",
                           help="2 players; after two passes, phase 2 draws each player's stones from the "
                                "prisoners' place"),
    "nieminen": Ruleset("nieminen", Repetition.NIEMINEN, Suicide.FORBIDDEN,
                        scoring=Scoring.TERRITORY_LITERAL, ending=Ending.DISPUTE, komi=6.5, max_players=2,
                        no_result_at=3, title="Nieminen (2004)",
                        help="2 players; territory scoring, a disputed chain is played out on the board"),
    "hansen-sst": Ruleset("hansen-sst", Repetition.HANSEN, Suicide.BOARD_CHANGING, komi=7.5, max_players=2,
                          move_cap_per_point=10, a1="basic-ko", a3=False, keying="config", counter="immediate",
                          title="Hansen's SST ko rules (1996)",
                          help="2 players; precise ko rules (cycle sets, disallowed captures) with area scoring"),
    "jasiek-nkr": Ruleset("jasiek-nkr", Repetition.NKR, Suicide.BOARD_CHANGING, komi=7.5, max_players=2,
                          title="Jasiek's New Ko Rules (1998)",
                          help="2 players; each ko is analysed and barred by its own rules (basic, fighting, "
                               "disturber)"),
}
"""The named rulesets, in the order players are offered them (the web page's list). A preset
describes itself (polygo/rules/describe.py): its title and, where its parts do not say enough, its
help line are typed here; the rest is computed from its parts."""


def preset(name: str) -> Ruleset:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise RulesetError(f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}") from None
