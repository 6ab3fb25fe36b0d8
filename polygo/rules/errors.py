"""The exceptions of polygo.rules and the reason codes of illegal moves.

    GoRulesError
    ├── BoardError        a malformed board (bad JSON, unknown point, self-loop, ...)
    ├── RulesetError      an unknown ruleset, option or option value
    └── IllegalMove       a move refused in this game, with a reason code

All three are also ``ValueError``: each is bad input, not a broken engine.
"""

from __future__ import annotations

from enum import Enum


class Reason(str, Enum):
    """Why a move is refused; the value is the code that goes over the wire."""

    BAD_MOVE = "bad-move"
    UNKNOWN_POINT = "unknown-point"
    NOT_YOUR_TURN = "not-your-turn"
    GAME_OVER = "game-over"
    OCCUPIED = "occupied"
    SUICIDE = "suicide"
    CYCLE = "cycle"
    SUPERKO = "superko"
    KO = "ko"
    CYCLE_SET = "cycle-set"      # Hansen rule 9
    DISALLOWED = "disallowed"    # Hansen rule 15
    TKO = "tko"                  # Hansen A3'
    RESCINDED = "rescinded"
    NOT_PROHIBITED = "not-prohibited"
    NO_APPEALS = "no-appeals"
    HANDICAP = "handicap"
    NOT_SCORING = "not-scoring"
    NO_PROPOSAL = "no-proposal"
    BAD_RANKING = "bad-ranking"
    DROPPED_OUT = "dropped-out"
    BAD_SEAT = "bad-seat"
    OWNER_CANNOT_PASS = "owner-cannot-pass"  # Nieminen N14b: the owner answers a play
    NO_GIVE = "no-give"                      # Nieminen A9: a give answers an attacker's play only
    PROVEN_ALIVE = "proven-alive"            # Nieminen N14c, A8: the chain survived a dispute
    BASIC_KO = "basic-ko"          # Jasiek NKR R1
    FIGHTING = "fighting"          # Jasiek NKR R2
    DISTURBER = "disturber"        # Jasiek NKR R3
    PROHIBITION = "prohibition"    # Jasiek NKR R4


class GoRulesError(ValueError):
    """Root of every error polygo.rules raises."""


class BoardError(GoRulesError):
    """A board description that does not make a board."""


class RulesetError(GoRulesError):
    """An unknown ruleset name, option, or option value."""


class IllegalMove(GoRulesError):
    """A move the game refuses; nothing in the game changed.

    ``reason`` is a :class:`Reason`; ``str(exc)`` is a sentence naming the move.
    """

    def __init__(self, reason: Reason, message: str, move: str = ""):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.move = move

    def __str__(self) -> str:
        return f"{self.message} [{self.reason.value}]"
