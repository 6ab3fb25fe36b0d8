"""What a ruleset says of itself to players and to other programs: its title, a line of help, its
scoring family, and the nearest ruleset GNU Go, `kgs-rules`, KataGo and SGF's `RU` have for it.

Only the title (and, where the parts do not say enough, the help line) is typed on a preset in
`PRESETS`; everything else is computed here from its parts, so that a new preset is served by the
server (`welcome.rulesets`, `GET /api/rulesets`), offered and counted by the web page, written in
SGF and played by the GTP bridge with no other change. Which parts give which name, and why:
docs/rules/presets.md, "How a preset describes itself".
"""

from __future__ import annotations

from typing import Any

from .ruleset import PRESETS, Ending, HandicapBonus, Repetition, Ruleset, Scoring, Suicide, Supply

FAMILIES = {Scoring.AREA: "area", Scoring.TERRITORY: "territory", Scoring.TERRITORY_LITERAL: "territory",
            Scoring.LASKER_MAAS: "lasker-maas"}
"""How a finished position is counted: `area` (stones and the empty regions they alone touch:
Kee rule 17, Chinese, AGA, Tromp-Taylor, Hansen, Jasiek), `territory` (the empty regions and the
prisoners: Japanese, Nieminen's literal reading), `lasker-maas` (territory less one's own stones in
the prisoners' place)."""

_STANDARD_SGF: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Japanese", {"repetition": Repetition.KO, "suicide": Suicide.FORBIDDEN, "scoring": Scoring.TERRITORY,
                  "ending": Ending.MARKING, "handicap_bonus": HandicapBonus.NONE}),
    ("Chinese", {"repetition": Repetition.POSITIONAL, "suicide": Suicide.FORBIDDEN, "scoring": Scoring.AREA,
                 "ending": Ending.MARKING, "handicap_bonus": HandicapBonus.N}),
    ("AGA", {"repetition": Repetition.SITUATIONAL, "suicide": Suicide.FORBIDDEN, "scoring": Scoring.AREA,
             "ending": Ending.MARKING, "handicap_bonus": HandicapBonus.N_MINUS_1}),
    ("NZ", {"repetition": Repetition.SITUATIONAL, "suicide": Suicide.BOARD_CHANGING, "scoring": Scoring.AREA,
            "ending": Ending.MARKING, "handicap_bonus": HandicapBonus.NONE}),
    ("Tromp-Taylor", {"repetition": Repetition.POSITIONAL, "suicide": Suicide.BOARD_CHANGING,
                      "scoring": Scoring.AREA, "ending": Ending.IMMEDIATE, "handicap_bonus": HandicapBonus.NONE}),
)
"""The `RU` values readers know, each with the parts a ruleset must have to be written so (and an
unlimited supply). Tromp-Taylor is not in the SGF specification; it is the rules' own name."""

_SCORING_WORDS = {Scoring.AREA: "area scoring", Scoring.TERRITORY: "territory and prisoners",
                  Scoring.TERRITORY_LITERAL: "territory read literally and prisoners",
                  Scoring.LASKER_MAAS: "territory less one's own stones in the prisoners' place"}
_REPETITION_WORDS = {Repetition.POSITIONAL: "positional superko", Repetition.SITUATIONAL: "situational superko",
                     Repetition.KO: "simple ko", Repetition.KEE: "a repeated position may be appealed",
                     Repetition.HANSEN: "Hansen's cycle sets", Repetition.NIEMINEN: "Nieminen's ko rules",
                     Repetition.NKR: "Jasiek's ko analysis"}
_ENDING_WORDS = {Ending.MARKING: "", Ending.IMMEDIATE: "every stone alive at the end",
                 Ending.PHASES: "life and death settled by play in a second phase",
                 Ending.DISPUTE: "a disputed chain is played out"}


def scoring_family(rules: Ruleset) -> str:
    """`area`, `territory` or `lasker-maas` (`FAMILIES`)."""
    return FAMILIES[rules.scoring]


def title(rules: Ruleset) -> str:
    return rules.title or rules.name


def help_line(rules: Ruleset) -> str:
    """The preset's own line, else one made from its parts: "area scoring, positional superko,
    komi 7.5; 2 or more players"."""
    if rules.help:
        return rules.help
    words = [_SCORING_WORDS[rules.scoring], _REPETITION_WORDS[rules.repetition],
             "suicide allowed" if rules.suicide is Suicide.BOARD_CHANGING else "", _ENDING_WORDS[rules.ending],
             f"komi {rules.komi:g}" if rules.komi else ""]
    players = "2 players" if rules.max_players == 2 else "2 or more players"
    return ", ".join(w for w in words if w) + "; " + players


def sgf_rules(rules: Ruleset) -> str:
    """SGF's `RU`: the standard value whose parts the ruleset has, else the preset's name."""
    for value, parts in _STANDARD_SGF:
        if rules.supply is Supply.UNLIMITED and all(getattr(rules, k) is v for k, v in parts.items()):
            return value
    return rules.name


def gnugo_options(rules: Ruleset) -> list[str]:
    """GNU Go's command-line rules, as near as it has them: its counting, its superko (Kee's cycle
    rule as positional superko; the bridge makes the appeals), suicide, every stone alive."""
    options = ["--chinese-rules" if scoring_family(rules) == "area" else "--japanese-rules"]
    if rules.repetition in (Repetition.POSITIONAL, Repetition.KEE):
        options.append("--positional-superko")
    elif rules.repetition is Repetition.SITUATIONAL:
        options.append("--situational-superko")
    if rules.suicide is Suicide.BOARD_CHANGING:
        options.append("--allow-suicide")
    if rules.ending is Ending.IMMEDIATE:
        options.append("--capture-all-dead")
    return options


def kgs_rules(rules: Ruleset) -> str:
    """`kgs-rules`' name: territory counting is Japanese, area counting with suicide New Zealand,
    without it AGA where White gets N-1 points for N handicap stones, else Chinese."""
    if scoring_family(rules) != "area":
        return "japanese"
    if rules.suicide is Suicide.BOARD_CHANGING:
        return "new_zealand"
    return "aga" if rules.handicap_bonus is HandicapBonus.N_MINUS_1 else "chinese"


def katago_rules(rules: Ruleset) -> str:
    """`kata-set-rules`' shorthand, chosen as `kgs_rules` is; with suicide, New Zealand's where
    the superko is situational, else Tromp-Taylor's."""
    if scoring_family(rules) != "area":
        return "japanese"
    if rules.suicide is Suicide.BOARD_CHANGING:
        return "new-zealand" if rules.repetition is Repetition.SITUATIONAL else "tromp-taylor"
    return "aga" if rules.handicap_bonus is HandicapBonus.N_MINUS_1 else "chinese"


def describe(rules: Ruleset) -> dict[str, Any]:
    """The ruleset as the server serves it (docs/protocol.md, `welcome.rulesets`)."""
    return {"name": rules.name, "title": title(rules), "help": help_line(rules), "scoring": scoring_family(rules),
            "sgf": sgf_rules(rules),
            "gtp": {"gnugo": gnugo_options(rules), "kgs": kgs_rules(rules), "katago": katago_rules(rules)}}


def describe_presets() -> list[dict[str, Any]]:
    """Every preset, in `PRESETS`' order."""
    return [describe(rules) for rules in PRESETS.values()]
