"""polygo.rules: the rules of Go and its relatives on any board graph, for any number of players.

Pure and synchronous (standard library only): the server, the bots and the terminal client
all ask this package what is legal, why not, and who won. See docs/engine.md.
"""

from .board import Board
from .describe import describe, describe_presets
from .errors import BoardError, GoRulesError, IllegalMove, Reason, RulesetError
from .game import Game, Play, Result
from .moves import Action, Move, parse_move
from .ruleset import PRESETS, Ruleset, preset

__all__ = ["Board", "BoardError", "GoRulesError", "IllegalMove", "Reason", "RulesetError", "Game",
           "Play", "Result", "Action", "Move", "parse_move", "PRESETS", "Ruleset", "preset",
           "describe", "describe_presets"]
