"""Hansen's SST ko rules (preset ``hansen-sst``): every case of the spec's section 4.

The graph boards follow the spec's gadget convention (``shared/specs/hansen-sst-ko-1996.md``):
a main string ``s`` is two nodes ``s``-``s'``; a ko ``K`` between black ``b`` and white ``w`` is
``b``-``xK``-``yK``-``w``, white-held with a white stone on ``xK``, black-held with a black stone
on ``yK``; an eye ``e`` of ``s`` is the edge ``e``-``s``; spare pairs ``t1``-``l1`` ... (White
plays ``tK``) and ``s1``-``m1`` ... (Black plays ``sK``) are moves elsewhere. Where a case says
White to play, Black passes first. A step ``(move, reason)`` is the text's claim that ``move`` is
refused for that reason now (checked, not played).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from polygo.rules import Board, Game, IllegalMove

from .conftest import run

BLACK, WHITE = 0, 1


def gadget(strings: dict[str, int], eyes: dict[str, str] = {}, kos: list[tuple[str, str, str, int]] = (),
           edges: list[tuple[str, str]] = (), stones: dict[str, int] = {}, spares: int = 4,
           rules: str = "hansen-sst", **options: Any) -> Game:
    """A hansen-sst game (or ``rules``) on a gadget board: ``strings`` name -> colour, ``eyes``
    eye -> string, ``kos`` (K, black string, white string, holder), extra ``edges`` and lone
    ``stones``."""
    points: list[str] = []
    links: list[tuple[str, str]] = list(edges)
    setup: dict[str, int] = dict(stones)
    for name, colour in strings.items():
        points += [name, name + "'"]
        links.append((name, name + "'"))
        setup[name] = setup[name + "'"] = colour
    for eye, string in eyes.items():
        points.append(eye)
        links.append((eye, string))
    for k, b, w, holder in kos:
        x, y = "x" + k, "y" + k
        points += [x, y]
        links += [(b, x), (x, y), (y, w)]
        if holder == WHITE:
            setup[x] = WHITE
        else:
            setup[y] = BLACK
    for i in range(1, spares + 1):
        points += [f"t{i}", f"l{i}", f"s{i}", f"m{i}"]
        links += [(f"t{i}", f"l{i}"), (f"s{i}", f"m{i}")]
    points += [p for edge in edges for p in edge if p not in points and p not in strings]
    board = Board(list(dict.fromkeys(points)), links)
    return Game(board, rules=rules, setup=setup, **options)


def grid(rows: list[str], **options: Any) -> Game:
    """A hansen-sst game on a grid drawn top row first (X black, O white)."""
    height, width = len(rows), len(rows[0].split())
    board = Board.grid(width, height)
    setup = {}
    for r, row in enumerate(rows):
        for c, mark in enumerate(row.split()):
            if mark != ".":
                setup[f"{'ABCDEFGHJ'[c]}{height - r}"] = BLACK if mark == "X" else WHITE
    return Game(board, rules="hansen-sst", setup=setup, **options)


def disallowed(game: Game, seat: int) -> list[list[str]]:
    return game._rule.disallowed(seat)


def pending(game: Game) -> list[str]:
    """The points of the potentially disallowed moves not yet counteracted."""
    return game._rule.pending()


def cycle_set(game: Game) -> list[str]:
    return sorted(game.board.points[p] for p in game._rule._cycle_set)


KO7 = [". . . . . . .",
       ". . X O . . .",
       ". X . . O . .",
       ". . X O . . .",
       ". . . . . . ."]


def four(**options: Any) -> Game:
    return gadget({"b": BLACK, "w": WHITE},
                  kos=[("1", "b", "w", WHITE), ("2", "b", "w", WHITE), ("3", "b", "w", BLACK), ("4", "b", "w", BLACK)],
                  **options)


def two(extra: dict[str, int] = {}, eyes: dict[str, str] = {}, kos: list = [], edges: list = [], **options: Any) -> Game:
    return gadget({"ub": BLACK, "uw": WHITE, **extra}, eyes={"eb": "ub", "ew": "uw", **eyes},
                  kos=[("A", "ub", "uw", WHITE), ("B", "ub", "uw", BLACK), *kos], edges=edges, **options)


# --- the cases ---------------------------------------------------------------------------------

def test_han_01_simple_ko_with_a1() -> None:
    """Figures 1 and 5 with A1': each ko capture forbids the immediate recapture."""
    g = run(grid(KO7), ["pass", "C3", "D3", ("C3", "cycle-set"), "A1", "G5", "C3", ("D3", "cycle-set"),
                        "G1", "A5", "D3"])
    assert g.history[-1].captures == ("C3",)


def test_han_01_refusal_names_the_rule_and_the_points() -> None:
    g = run(grid(KO7), ["pass", "C3", "D3"])
    with pytest.raises(IllegalMove) as info:
        g.play("C3")
    assert info.value.reason.value == "cycle-set"
    assert info.value.message == ("Black's capture at D3 has the cycle set {C3, D3}: C3 is in it, "
                                  "play elsewhere first (Hansen rule 9)")


def test_han_03_figure_5_literally_with_identity_keying() -> None:
    """A-1 negative: with the set belonging to the capture whatever the board, Black's recapture
    after the threat exchange carries the set made at (e), contradicting the text's (h)."""
    steps = ["pass", "C3", "D3", "C3", "D3", ("C3", "cycle-set"), "A1", "G5", "C3", "D3"]
    assert cycle_set(run(grid(KO7, a1="off", keying="identity"), steps + [("C3", "cycle-set")])) == ["C3", "D3"]
    # configuration keying (the default): Black's capture at (h)+1 leaves a new board, no set
    run(grid(KO7, a1="off"), steps + ["C3"])


def test_han_03_figure_5_c_d_e_makes_the_set_without_a1() -> None:
    g = run(grid(KO7, a1="off"), ["pass", "C3", "D3", "C3"])
    assert cycle_set(g) == []                      # (d) recreates a board, but not by this capture
    run(g, ["D3", ("C3", "cycle-set")])            # (e) repeats (c): {C3, D3}


def test_han_04_figure_3_disturbing_without_a1() -> None:
    g = run(four(a1="off"), ["y1"])
    assert pending(g) == ["y1"]
    run(g, ["x3"])
    assert disallowed(g, BLACK) == [["w", "w'", "x1", "y1"]]
    run(g, ["y2", "x1", "y3", "x2"])
    assert disallowed(g, BLACK) == [["w", "w'", "x1", "y1"], ["w", "w'", "x2", "y2"], ["w", "w'", "x3", "y3"]]
    assert disallowed(g, WHITE) == []
    assert g.stone_at("b") == BLACK and g.stone_at("w") == WHITE


def test_han_04_figure_3_with_a1_only_the_first_capture_is_banned() -> None:
    g = run(four(), ["y1", "x3", "y2", "x1", "y3", "x2"])
    assert disallowed(g, BLACK) == [["w", "w'", "x1", "y1"]]
    assert disallowed(g, WHITE) == []
    assert g.stone_at("b") == BLACK and g.stone_at("w") == WHITE


def test_han_05_figure_4_notation() -> None:
    g = grid([". . . . . . .",
              ". . . X X X .",
              ". . X O . . .",
              ". . . X . . .",
              "O X . . . . ."])
    chain = g.position.chain
    libs = {name: len(chain[g.board.index(name)].libs) for name in ("C3", "D3", "D4")}
    assert libs == {"C3": 3, "D3": 1, "D4": 7}
    assert sorted(chain[g.board.index("D4")].stones) == sorted(g.board.index(p) for p in ("D4", "E4", "F4"))
    assert g.play("A2").captures == ("A1",)


def fig6(**options: Any) -> Game:
    return two({"mb": BLACK, "mw": WHITE}, eyes={"mb1": "mb", "mb2": "mb", "mw1": "mw", "mw2": "mw"},
               kos=[("0", "mb", "mw", WHITE)], **options)


SIX = ["y0", "xB", "yA", "x0", "yB", "xA", "y0"]


def test_han_06_figure_6_six_point_cycle_set() -> None:
    g = run(fig6(), SIX)
    assert cycle_set(g) == ["x0", "xA", "xB", "y0", "yA", "yB"]
    run(g, [("x0", "cycle-set"), ("xB", "cycle-set"), ("yA", "cycle-set"), "t1"])
    assert disallowed(g, BLACK) == disallowed(g, WHITE) == []


def test_han_06_without_a1_the_first_threats_become_disallowed() -> None:
    g = run(fig6(a1="off"), SIX)
    assert cycle_set(g) == ["x0", "xA", "xB", "y0", "yA", "yB"]
    assert disallowed(g, WHITE) == [["ub", "ub'", "xB", "yB"]]
    assert disallowed(g, BLACK) == [["uw", "uw'", "xB", "yB"]]


def test_h15_a_disallowed_move_is_refused_unconstrained_and_valid_as_a_ko_threat() -> None:
    """Figure 8 twice over on FIG6's disturbing corner, which comes back to where it was; then
    White's xB is refused after a plain move, and allowed as a ko threat (constrained, H10) after
    Black's basic-ko capture at y0."""
    steps = ["pass", "xB", "yA", "t1", "s1", "xA", "yB", "t2"]
    g = run(fig6(), steps)
    assert disallowed(g, WHITE) == [["ub", "ub'", "xA", "yA"], ["ub", "ub'", "xB", "yB"]]
    run(g, ["s2", ("xB", "disallowed"), ("xA", "occupied")])
    with pytest.raises(IllegalMove) as info:
        g.play("xB")
    assert info.value.message == ("xB has the signature {ub, ub', xB, yB} of white's counteracted move: "
                                  "it is disallowed except as a ko threat (Hansen rule 15)")
    run(run(fig6(), steps), ["y0", "xB"])


def test_han_08_figure_8_disallowed_capture() -> None:
    g = run(two(), ["pass", "xB"])
    assert pending(g) == ["xB"]
    run(g, ["yA"])
    assert pending(g) == []                        # counteracting, and not itself PD: ub had one liberty
    assert disallowed(g, WHITE) == [["ub", "ub'", "xB", "yB"]]
    assert disallowed(g, BLACK) == []


def test_han_09_figure_7_iv_counteracted_by_extension() -> None:
    g = grid([". . . . .",
              ". O O . .",
              ". X X . .",
              ". O O . .",
              ". . . . ."])
    run(g, ["pass", "D3"])
    assert pending(g) == ["D3"]
    run(g, ["A3"])
    assert disallowed(g, WHITE) == [["B3", "C3", "D3"]]


def moon() -> Game:
    return two({"gw": WHITE, "ob": BLACK}, eyes={"L": "gw", "ob1": "ob", "ob2": "ob"},
               kos=[("0", "ob", "gw", WHITE)])


def test_han_13_moonshine_life_dies() -> None:
    g = moon()
    assert len(g.position.chain[g.board.index("gw")].libs) == 2
    run(g, SIX)
    assert cycle_set(g) == ["x0", "xA", "xB", "y0", "yA", "yB"]
    run(g, [("xB", "cycle-set"), ("x0", "cycle-set"), "pass", "L"])
    assert sorted(g.history[-1].captures) == ["gw", "gw'"]


def test_han_14_triple_ko_with_an_eye() -> None:
    g = gadget({"b": BLACK, "w": WHITE}, eyes={"e": "b"},
               kos=[("1", "b", "w", BLACK), ("2", "b", "w", WHITE), ("3", "b", "w", WHITE)])
    run(g, ["s1", "x1", "y2"])
    assert disallowed(g, WHITE) == [["b", "b'", "x1", "y1"]]
    run(g, ["t1", "s2", "x2", "y1", "t2", "s3", ("x1", "disallowed")])


def tkx() -> Game:
    return gadget({"b": BLACK, "w": WHITE, "o": BLACK}, eyes={"o1": "o", "o2": "o"},
                  kos=[("1", "b", "w", BLACK), ("2", "b", "w", BLACK), ("3", "b", "w", WHITE)],
                  edges=[("L", "w"), ("L", "o")])


def test_han_15_three_kos_and_an_external_liberty() -> None:
    g = run(tkx(), ["y3", "x1"])
    assert disallowed(g, BLACK) == [["w", "w'", "x3", "y3"]]
    g = run(tkx(), ["pass", "x1", "y3"])
    assert disallowed(g, WHITE) == [["b", "b'", "x1", "y1"]]


def test_han_15_the_fill_starts_a_triple_ko() -> None:
    g = run(tkx(), ["L", "x1", "y3", "x2", "y1", "x3", "y2", "x1"])
    assert cycle_set(g) == ["x1", "x2", "x3", "y1", "y2", "y3"]
    run(g, [("y1", "cycle-set"), ("y3", "cycle-set"), "s1"])    # Black must make the first threat


def eternal() -> Game:
    return gadget({"W1": WHITE, "B1": BLACK}, eyes={"Lw": "W1", "Lb": "B1"},
                  edges=[("Q", "P"), ("P", "R"), ("R", "T"), ("Q", "W1"), ("P", "W1"), ("R", "B1"), ("T", "B1")],
                  stones={"P": BLACK, "T": WHITE})


def test_han_16_eternal_life() -> None:
    g = run(eternal(), ["Q"])
    assert pending(g) == ["Q"]
    run(g, ["R", "P", "T", "Q", "R"])
    assert cycle_set(g) == ["P", "Q", "R", "T"]
    run(g, [("P", "cycle-set"), "s1", "t1", "P", "T", "Q", "R", "P"])
    assert cycle_set(g) == ["P", "Q", "R", "T"]
    run(g, [("T", "cycle-set"), ("R", "cycle-set")])
    assert disallowed(g, BLACK) == disallowed(g, WHITE) == []


def test_han_16_spights_seki_is_legal_in_the_first_iteration() -> None:
    run(eternal(), ["Q", "R", "P", "R"])


def molasses() -> Game:
    rows = [". X X . O X",
            "X O O X X .",
            "O . . O O X",
            ". O O . X ."]
    base = Board.grid(6, 4)
    points = list(base.points)
    edges = [(base.points[a], base.points[b]) for a, nbrs in enumerate(base.neighbour_indices) for b in nbrs if a < b]
    for i in range(1, 5):
        points += [f"t{i}", f"l{i}", f"s{i}", f"m{i}"]
        edges += [(f"t{i}", f"l{i}"), (f"s{i}", f"m{i}")]
    setup = {f"{'ABCDEF'[c]}{4 - r}": BLACK if mark == "X" else WHITE
             for r, row in enumerate(rows) for c, mark in enumerate(row.split()) if mark != "."}
    return Game(Board(points, edges), rules="hansen-sst", setup=setup)


BLACK_HALF = ["B2", "F3", "C2", "F1"]
WHITE_HALF = ["B3", "F2", "C3", "F4"]


def test_han_17_molasses_with_moves_elsewhere_is_never_stopped() -> None:
    g = molasses()
    for i in range(1, 4):
        run(g, BLACK_HALF + [f"s{i}"] + WHITE_HALF + [f"t{i}"])
        assert disallowed(g, BLACK) == disallowed(g, WHITE) == []
    assert g.to_move == BLACK and not g.over


def test_han_17_molasses_with_passes_is_stopped_by_a_cycle_set() -> None:
    g = run(molasses(), BLACK_HALF + ["pass"] + WHITE_HALF + ["pass", "B2", "F3"])
    assert cycle_set(g) == sorted(BLACK_HALF + WHITE_HALF)
    run(g, [("C2", "cycle-set")])


HAN_19 = ["yA", "t1", "s1", "xB", "s2", "xA", "yB", "t2"]


def test_han_19_counteraction_by_the_immediate_reply_only() -> None:
    g = run(two(), HAN_19)
    assert disallowed(g, BLACK) == []
    run(g, ["yA"])


def test_han_19_counteraction_by_any_later_reply() -> None:
    g = run(two(counter="later"), HAN_19)
    assert disallowed(g, BLACK) == [["uw", "uw'", "xA", "yA"]]
    run(g, [("yA", "disallowed")])


def test_later_reply_counteracts_only_while_the_threatened_string_is_there() -> None:
    """W D2 threatens E1-E2 (pending under ``counter="later"``); W C2 then captures that string
    itself; B E1 is a new stone with two liberties, not the threatened string restored (spec
    A-7's "while the threatened strings are still there"). A hypothesis counterexample."""
    g = run(grid([". O . . X",
                  "X O X . X"], counter="later"), ["pass", "D2"])
    assert pending(g) == ["D2"]
    run(g, ["D1", "C2"])            # C2 captures C1-D1-E1-E2
    assert pending(g) == []
    run(g, ["E1"])
    assert disallowed(g, WHITE) == []


ROBIN_CYCLE = ["y1", "x2", "y3", "x4", "y2", "x1", "y4", "x3"]


def robin(rules: str = "hansen-sst") -> Game:
    g = gadget({"B1": BLACK, "W1": WHITE, "B2": BLACK, "W2": WHITE},
               eyes={"eB1": "B1", "eW1": "W1", "eB2": "B2", "eW2": "W2"},
               kos=[("1", "B1", "W1", WHITE), ("2", "B2", "W1", BLACK), ("3", "B2", "W2", WHITE),
                    ("4", "B1", "W2", BLACK)])
    return g if rules == "hansen-sst" else Game(g.board, rules=rules, setup=g.rules.setup)


def test_han_20_round_robin() -> None:
    g = robin()
    assert all(len(c.libs) == 2 for c in g.position.chains() if len(c.stones) == 2)
    run(g, ROBIN_CYCLE + ["y1"])
    assert cycle_set(g) == sorted(["x1", "x2", "x3", "x4", "y1", "y2", "y3", "y4"])
    run(g, [("x2", "cycle-set")])
    run(robin("chinese"), ROBIN_CYCLE[:-1] + [("x3", "superko")])


def test_han_21_double_ko_stays_seki() -> None:
    g = gadget({"b": BLACK, "w": WHITE}, kos=[("1", "b", "w", WHITE), ("2", "b", "w", BLACK)],
               edges=[("s", "b"), ("s", "w")])
    run(g, ["y1"])
    assert pending(g) == ["y1"]
    run(g, ["x2"])
    assert disallowed(g, BLACK) == [["w", "w'", "x1", "y1"]]
    assert g.stone_at("b") == BLACK and g.stone_at("w") == WHITE


# --- A3', options, the move cap -----------------------------------------------------------------

def tko(**options: Any) -> Game:
    """A black string b with one liberty z and two white-held kos (1, 2) against w; a separate
    black-held ko 3 between c and d, where White can make a capture that constrains Black."""
    return gadget({"b": BLACK, "w": WHITE, "c": BLACK, "d": WHITE},
                  eyes={"ew": "w", "ec1": "c", "ec2": "c", "ed": "d"},
                  kos=[("1", "b", "w", WHITE), ("2", "b", "w", WHITE), ("3", "c", "d", BLACK)],
                  edges=[("z", "b")], **options)


def test_a3_two_kos_one_liberty_cannot_capture_except_as_a_ko_threat() -> None:
    g = tko(a3=True)
    assert len(g.position.chain[g.board.index("b")].libs) == 1
    run(g, [("y1", "tko"), ("y2", "tko"), "s1", "x3", "y1"])    # after White's ko capture: a ko threat
    with pytest.raises(IllegalMove) as info:
        tko(a3=True).play("y2")
    assert "Hansen A3" in info.value.message
    run(tko(), ["y1"])                                            # A3' is off by default


def test_a3_counts_the_basic_ko_mouths_of_either_colour() -> None:
    """A-12: the white stone B3 has one liberty (C3) and two kos: Black's A3, which it could take
    at A2, and its own B3, which Black could take at C3. White's A2 is a basic-ko capture by that
    string, so A3' refuses it."""
    run(grid(["X O .",
              ". X O",
              "X . ."], a3=True), ["pass", ("A2", "tko")])


def test_a3_leaves_a_capture_that_is_no_basic_ko() -> None:
    """Without the black stone on A1, White's A2 keeps two liberties: no basic-ko capture, no tko."""
    g = run(grid(["X O .",
                  ". X O",
                  ". . ."], a3=True), ["pass", "A2"])
    assert g.history[-1].captures == ("A3",)


def figure_2(**options: Any) -> Game:
    """Figure 2, reconstructed from its caption and the text of sections 1 and 6: two one-eyed
    white strings wU (upper left) and wV (lower right), each enclosing a black string with no eye
    (bU, bV) that has one liberty and shares two kos with it, one held by each side (ko 1 by
    White, ko 2 by Black). Black to play."""
    return gadget({"bU": BLACK, "wU": WHITE, "bV": BLACK, "wV": WHITE}, eyes={"eU": "wU", "eV": "wV"},
                  kos=[("1U", "bU", "wU", WHITE), ("2U", "bU", "wU", BLACK),
                       ("1V", "bV", "wV", WHITE), ("2V", "bV", "wV", BLACK)], **options)


# "Black attacks first in the upper left group and then in the lower right": each of his ko
# captures puts a white string in atari, and White saves it by taking the other ko there.
FIGURE_2_ATTACK = ["y1U", "x2U", "y1V", "x2V", "y2U", "x1U", "y2V"]


def test_figure_2_superko_kills_a_one_eyed_group() -> None:
    """Section 1: under superko, "at the moment when the board is about to repeat the
    configuration in Figure 2, it is White's move, one of the white groups has only a single
    liberty, and an additional liberty can be gotten only by repeating" an earlier board."""
    g = figure_2(rules="chinese")
    run(g, [*FIGURE_2_ATTACK, ("x1V", "superko"), ("x2V", "superko"), "pass", "eV"])
    assert g.stone_at("wV") is None and g.stone_at("wU") == WHITE


def test_figure_2_without_a3_the_cycle_set_kills_at_the_wrong_time() -> None:
    """Section 6: the black captures save strings of one liberty, so nothing is potentially
    disallowed; White's x1V brings back Figure 2, and Black's repeated y1U then has the cycle set
    of all eight ko points, so White cannot take back a liberty and wU is captured."""
    g = figure_2()
    run(g, [*FIGURE_2_ATTACK, "x1V", "y1U"])
    assert cycle_set(g) == ["x1U", "x1V", "x2U", "x2V", "y1U", "y1V", "y2U", "y2V"]
    assert disallowed(g, BLACK) == disallowed(g, WHITE) == []
    run(g, [("x2U", "cycle-set"), ("x1U", "cycle-set"), "t1", "eU"])
    assert g.stone_at("wU") is None


def test_figure_2_with_a3_the_attack_is_refused() -> None:
    """A3' (option a3), the rule Hansen proposes for Figure 2: each black string has one liberty
    and two kos, a white-held one it touches with its stone and a black-held one whose empty point
    is its liberty, so Black's first capture in either corner is refused, and both white strings
    live."""
    g = figure_2(a3=True)
    run(g, [("y1U", "tko"), ("y1V", "tko"), "pass", "pass"])
    assert g.stone_at("wU") == g.stone_at("wV") == WHITE


def test_options_round_trip_through_json_and_records() -> None:
    from polygo.rules import Ruleset, RulesetError
    data = {"name": "hansen-sst", "a1": "off", "a3": True, "keying": "identity", "counter": "later",
            "move_cap_per_point": 3}
    rules = Ruleset.from_json(data)
    assert (rules.a1, rules.a3, rules.keying, rules.counter, rules.move_cap_per_point) == ("off", True, "identity", "later", 3)
    assert rules.to_json() == data and Ruleset.from_json(rules.to_json()) == rules
    assert Ruleset.from_json("hansen-sst").to_json() == {"name": "hansen-sst"}
    g = run(grid(KO7, a1="off", keying="identity"), ["pass", "C3", "D3", "C3", "D3"])
    again = Game.from_record(g.to_record())
    assert again.rules == g.rules and again.why_illegal("C3") == "cycle-set"
    for bad in ({"a1": "on"}, {"a3": 1}, {"keying": "board"}, {"counter": None}, {"move_cap_per_point": -1},
                {"move_cap_per_point": True}):
        with pytest.raises(RulesetError):
            Ruleset.from_json({"name": "hansen-sst", **bad})
    with pytest.raises(RulesetError, match="option of Hansen"):
        Ruleset.from_json({"name": "chinese", "a1": "off"})
    with pytest.raises(RulesetError, match="own repetition rule"):
        Ruleset.from_json({"name": "hansen-sst", "superko": "positional"})


def test_move_cap_ends_the_game_with_no_result() -> None:
    """Spec section 2, Termination: after move_cap_per_point x points turn plays, no result;
    every seat is ranked first, the score is the board's."""
    g = Game(Board.grid(3, 1), rules="hansen-sst", move_cap_per_point=1)
    run(g, ["A1", "pass", "C1"])
    assert g.over and g.phase == "ended"
    assert g.result.reason == "no-result" and g.result.ranking == (1, 1) and g.ranking() == [1, 1]
    assert g.result.score == tuple(g.score())
    assert g.why_illegal("B1") == "game-over"
    g = Game(Board.grid(3, 1), rules="hansen-sst", move_cap_per_point=1)
    run(g, ["A1", "pass", "pass"])                  # the passes come first: marking, not no result
    assert g.phase == "scoring" and g.result is None
    assert Game(Board.grid(3, 1), rules="hansen-sst").rules.move_cap_per_point == 10
    assert Game(Board.grid(3, 1), rules="chinese").rules.move_cap_per_point == 0


def test_copy_is_independent() -> None:
    g = run(two(), ["pass"])
    c = g.copy()
    run(c, ["xB", "yA"])
    assert disallowed(c, WHITE) == [["ub", "ub'", "xB", "yB"]] and cycle_set(c) == ["xA", "yA"]
    assert disallowed(g, WHITE) == [] and cycle_set(g) == [] and pending(g) == []
    run(g, ["xB"])
    assert pending(g) == ["xB"] and pending(c) == []


def test_referee_cli_replays_hansen_games_with_options_and_records(tmp_path) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    def replay(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "polygo.rules", "replay", *args], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parents[2], timeout=60)

    ko = ["C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3", "D3", "C3"]
    lines = [json.loads(line) for line in replay("--rules", "hansen-sst", "--board", "7x5", *ko).stdout.splitlines()]
    assert lines[9]["reason"] == "cycle-set" and "Hansen rule 9" in lines[9]["message"]
    lines = [json.loads(line) for line in replay("--rules", "hansen-sst", "--board", "7x5", "--option", "a1=off",
                                                 *ko).stdout.splitlines()]
    assert lines[9]["ok"] and lines[9]["captures"] == ["D3"]
    g = run(grid(KO7, a1="off", move_cap_per_point=2), ["pass", "C3", "D3", "C3", "D3"])
    record = tmp_path / "game.json"
    record.write_text(json.dumps(g.to_record()))
    lines = [json.loads(line) for line in replay("--record", str(record), "C3").stdout.splitlines()]
    assert lines[5]["reason"] == "cycle-set" and lines[-1]["stones"] == g.stones()
    bad = replay("--rules", "hansen-sst", "--option", "keying=board")
    assert bad.returncode == 2 and "keying must be" in bad.stderr


def test_a_capture_restricts_the_opponent_not_the_player_placing_free_handicap_stones() -> None:
    """H9 and H10 speak of the opponent's next move: Black's basic-ko capture among his
    consecutive free handicap stones leaves his own next stone unrestricted."""
    g = Game(Board.grid(7, 5), rules="hansen-sst", handicap=3, handicap_mode="free",
             setup={"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1, "C3": 1})
    run(g, ["D3"])
    assert cycle_set(g) == ["C3", "D3"] and g.to_move == BLACK
    run(g, ["C3", "A1"])
    assert g.to_move == WHITE


def test_a_game_stopped_by_the_move_cap_exports_as_void() -> None:
    """No result is SGF's RE[Void], not a draw (RE[0]); the record replays to the same result."""
    from polygo.rules.sgf import to_sgf

    g = Game(Board.grid(3, 3), rules="hansen-sst", move_cap_per_point=1)
    run(g, ["A1", "C3", "B2", "A3", "C1", "pass", "A2", "B3", "C2"])
    assert g.result.reason == "no-result"
    assert "RE[Void]" in to_sgf(g.to_record())
    assert Game.from_record(g.to_record()).result == g.result


@pytest.mark.parametrize("seed", range(6))
def test_quick_and_careful_paths_keep_the_same_records(seed: int) -> None:
    """A plain atari is made pending by before_stone alone on the quick path (stone_played is
    skipped there); a lower-case point name takes the careful path, which calls both. Random
    games on a small board: the pending moves, the disallowed signatures and the cycle set agree
    after every move."""
    rng = random.Random(seed)
    quick, careful = Game(Board.grid(5), rules="hansen-sst"), Game(Board.grid(5), rules="hansen-sst")
    made_pending = 0
    for _ in range(120):
        legal = [m for m in quick.legal_moves() if m != "pass"]
        if quick.over or not legal:
            break
        move = rng.choice(legal) if rng.random() > 0.02 else "pass"
        quick.play(move)
        careful.play(move.lower())
        assert pending(quick) == pending(careful)
        assert cycle_set(quick) == cycle_set(careful)
        assert disallowed(quick, BLACK) == disallowed(careful, BLACK)
        assert disallowed(quick, WHITE) == disallowed(careful, WHITE)
        made_pending += bool(pending(quick))
    assert made_pending
