"""A ko stone move's R4 action left unclassified (its ko type worked out when something reads
it, ``NewKoRules._type_waits``) against the rule that works every ko stone move's type out at
once, side by side: every verdict and every ko analysis must be the same, whether verdicts are
asked after every move or plays are made with none asked between them.

Two kinds of games: ko fights on gadget boards (a round robin of four fighting kos, three kos
in stable disturbing life, two kos of a double ko seki), where the class of the position comes
back again and again with both players' actions in it, as long random walks over the kos'
points with a move elsewhere now and then; and the crowded set-ups of
``test_jasiek_large_boards.py`` (dozens of kos, large strings beside them).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from polygo.rules import Game, IllegalMove, Reason
from polygo.rules.position import EMPTY
from polygo.rules.repetition.jasiek.rules import Ko, NewKoRules

from .ko_gadgets import BLACK, WHITE, Gadget
from .test_jasiek_large_boards import DIGESTS, choose, set_up_game


class EagerRules(NewKoRules):
    """Jasiek's rule with every ko stone move's type worked out when its facts are."""

    def _type_waits(self, seat: int, p: int, ko: Ko) -> bool:
        return False


def eager(g: Game) -> Game:
    g._rule.__class__ = EagerRules
    return g


def outcome(g: Game, move: str) -> object:
    try:
        return g.play(move)
    except IllegalMove as exc:
        return exc.reason


def gadget(kos: list[tuple[str, str, int]], eyes: dict[str, int]) -> Gadget:
    gad = Gadget()
    for name in sorted({s for b, w, _ in kos for s in (b, w)}):
        gad.string(name, BLACK if name.startswith("b") else WHITE, eyes=eyes.get(name, 0))
    for k, (b, w, held) in enumerate(kos, 1):
        gad.ko(k, b, w, held)
    gad.spares(3)
    gad.open_space()
    return gad


GAMES: dict[str, Callable[[], Game]] = {
    "round robin": lambda: gadget([("b1", "w1", WHITE), ("b2", "w1", BLACK), ("b2", "w2", WHITE),
                                   ("b1", "w2", BLACK)], {"b1": 1, "w1": 1, "b2": 1, "w2": 1}).game(),
    "stable disturbing life": lambda: gadget([("b", "w", WHITE), ("b", "w", BLACK), ("b", "w", BLACK)],
                                             {"w": 1}).game(),
    "double ko seki": lambda: gadget([("b", "w", WHITE), ("b", "w", BLACK)], {}).game(),
}


def walk(g: Game, rng: random.Random, refused: bool) -> str:
    """A capture on a point of a ko position (a ko stone move) nine times in ten, unless the
    last move was ``refused``; else a point elsewhere or a pass (never a second pass, which
    would end the game)."""
    names, pos, colour = g.board.points, g.position, g.to_move + 1
    captures = sorted(names[p] for p in g._rule.analysis.ko_at
                      if pos.stones[p] == EMPTY and pos.probe(p, colour).captured)
    r = rng.random()
    if captures and r < 0.9 and not refused:
        return rng.choice(captures)
    if r < 0.95 and not g.consecutive_passes():
        return "pass"
    return rng.choice([n for n in names if g.stone_at(n) is None])


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("asked", [True, False])
def test_ko_fights_go_as_with_types_worked_out_at_once(name: str, asked: bool) -> None:
    lazy, other = GAMES[name](), eager(GAMES[name]())
    rng = random.Random(name)
    refusals: list[Reason] = []
    result = None
    for _ in range(300):
        if lazy.over:
            break
        if asked:
            assert lazy.legal_turn() == other.legal_turn()
            assert lazy.ko_analysis() == other.ko_analysis()
        move = walk(lazy, rng, isinstance(result, Reason))
        result = outcome(lazy, move)
        assert result == outcome(other, move)
        if isinstance(result, Reason):
            refusals.append(result)
    assert lazy.ko_analysis() == other.ko_analysis()
    assert Reason.PROHIBITION in refusals, "R4 refused nothing: the types it reads were never compared"


@pytest.mark.parametrize("name, shapes", sorted(DIGESTS))
def test_crowded_large_boards_go_as_with_types_worked_out_at_once(name: str, shapes: str) -> None:
    (lazy, rng), (other, _) = set_up_game(name, shapes, 5), set_up_game(name, shapes, 5)
    eager(other)
    for _ in range(40):
        prohibited, _ = lazy.legal_turn()
        assert (prohibited, lazy.ko_analysis()) == (other.legal_turn()[0], other.ko_analysis())
        move = choose(lazy, rng, prohibited)
        assert outcome(lazy, move) == outcome(other, move)
