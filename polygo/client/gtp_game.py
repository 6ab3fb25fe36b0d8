"""A polygo game as a GTP engine must be told it: rules, board, handicap, and the plays in order.

GTP has no word for most of polygo's rules, so each engine gets the nearest thing it knows: GNU Go
its command-line rule options, engines listing `kgs-rules` a KGS ruleset name, KataGo (`kata-set-rules`)
its own ruleset names. `polygo.rules.describe` works them out from the game's ruleset (the preset
with the room's options), so the bridge keeps no table of rulesets and plays any preset its own
polygo.rules knows (docs/bots.md, "Which rulesets"). Handicap stones go as handicap
(`set_free_handicap` with polygo's own points, so the engine's board and ours hold the same stones,
and the engine knows White gets the bonus), not as plays; other set-up stones go as plays of their
colour.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from polygo.rules import Game, Ruleset, preset
from polygo.rules.describe import gnugo_options, katago_rules, kgs_rules

COLOURS = ("b", "w")
HANDICAP = "handicap"
"""The colour word of the told entry that stands for `set_free_handicap` (its vertex: the points)."""
_GRID = re.compile(r"^(\d+)(?:x(\d+))?$")


def is_gnugo(argv: list[str]) -> bool:
    return bool(argv) and argv[0].rsplit("/", 1)[-1].startswith("gnugo")


def _ruleset(rules: Ruleset | str) -> Ruleset:
    return preset(rules) if isinstance(rules, str) else rules


def engine_argv(command: str | list[str], rules: Ruleset | str) -> list[str]:
    """The engine's command line for a game under `rules` (a preset's name, or the game's ruleset
    with the room's options, a superko changed), GNU Go's rule options added.

    >>> engine_argv("gnugo --mode gtp", "chinese")
    ['gnugo', '--mode', 'gtp', '--chinese-rules', '--positional-superko']
    """
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not is_gnugo(argv):
        return argv
    return argv + [f for f in gnugo_options(_ruleset(rules)) if f not in argv]


def rules_commands(rules: Ruleset | str, commands: set[str]) -> list[tuple[str, ...]]:
    """The rules commands for an engine listing `commands` (GNU Go gets its rules as options instead).

    >>> rules_commands("japanese", {"kgs-rules", "kata-set-rules"})
    [('kata-set-rules', 'japanese')]
    >>> rules_commands("kee", {"kgs-rules"})
    [('kgs-rules', 'new_zealand')]
    """
    if "kata-set-rules" in commands:
        return [("kata-set-rules", katago_rules(_ruleset(rules)))]
    if "kgs-rules" in commands:
        return [("kgs-rules", kgs_rules(_ruleset(rules)))]
    return []


def grid_dims(settings: dict[str, Any]) -> tuple[int, int] | None:
    """(width, height) of a grid board named by a room's settings, else None (tori, graphs).

    >>> grid_dims({"board": "19"}), grid_dims({"board": "7x5"}), grid_dims({"board": "torus:9x9"})
    ((19, 19), (7, 5), None)
    """
    board = settings.get("board")
    match = _GRID.match(board.strip().lower()) if isinstance(board, str) else None
    if match is None:
        return None
    width = int(match.group(1))
    height = int(match.group(2) or width)
    return (width, height) if 2 <= width <= 25 and 2 <= height <= 25 else None


def grid_size(settings: dict[str, Any]) -> int | None:
    """The side of a square grid board named by a room's settings, else None."""
    dims = grid_dims(settings)
    return dims[0] if dims is not None and dims[0] == dims[1] else None


def engine_plays(game: Game) -> list[tuple[str, str]]:
    """What the engine must have been told to reach the live position: (colour, vertex) in order.

    Handicap stones come first as one (`HANDICAP`, "D4 Q16 ...") entry once all are on the board
    (fixed ones at once; free ones when Black has placed the last, until then they are Black's plays);
    set-up stones come next as plays of their colour; appeals are passes; rescinded plays and actions
    (marks, rankings, and Nieminen's ``dispute``, ``resume`` and ``give``) are not plays: a stone
    given in a play-out is no GTP move, and the engine sees the attacker play twice in a row, which
    GTP allows.
    """
    record = game.to_record()
    record["moves"] = []
    start = Game.from_record(record)
    handicap: list[str] = []
    plays: list[tuple[str, str]] = []
    for point, seat in sorted(start.stones().items()):
        if seat == 0 and game.rules.handicap and point not in game.rules.setup:
            handicap.append(point)
        else:
            plays.append((COLOURS[seat], point))
    live = [play for play in game.history if not play.rescinded and play.seat <= 1]
    free = game.rules.handicap if game.rules.handicap and not handicap else 0
    placed = [play.move for play in live[:free] if play.seat == 0 and play.move in game.board]
    if free and len(placed) == free:
        handicap, live = placed, live[free:]
    for play in live:
        move = play.move
        if move == "pass" or move.startswith("appeal "):
            plays.append((COLOURS[play.seat], "pass"))
        elif move in game.board:
            plays.append((COLOURS[play.seat], move))
    if len(handicap) >= 2:
        return [(HANDICAP, " ".join(handicap)), *plays]
    return [*((COLOURS[0], p) for p in handicap), *plays]
