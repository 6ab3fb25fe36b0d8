"""Jasiek's New Ko Rules (preset jasiek-nkr): every case of the spec (NKR-01..14), the ko
types, the four rules and their refusal sentences.

Gadget boards follow the spec's convention: a main string is two nodes ``s``-``s'``; a ko
between black ``b`` and white ``w`` is ``b-xK-yK-w`` (white-held: a stone on ``xK``;
black-held: on ``yK``); an eye ``e`` of ``s`` is the edge ``e-s``; spare moves elsewhere are
``tK-lK`` (White plays ``tK``) and ``sK-mK`` (Black plays ``sK``). Cases marked R depend on
the reconstructed (Tier 2) shapes, ``ko_shapes="reconstructed"``.
"""

from __future__ import annotations

import pytest

from polygo.rules import Board, Game, IllegalMove, Reason, Ruleset, RulesetError

from .ko_gadgets import BLACK, WHITE, Gadget, eternal

def refused(g: Game, move: str) -> str:
    with pytest.raises(IllegalMove) as info:
        g.play(move)
    assert g.why_illegal(move) == info.value.reason.value
    return info.value.reason.value


def kos(g: Game) -> list[tuple[list[str], str, str | None]]:
    return [(k["points"], k["type"], k["state"]) for k in g.ko_analysis()]


def play_all(g: Game, moves: str) -> None:
    for move in moves.split():
        g.play(move)


# --- boards of the spec ---------------------------------------------------------------------

def ko7() -> Game:
    """KO7, White to play (Black passes first)."""
    g = Game(Board.grid(7, 5), rules="jasiek-nkr",
             setup={"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1})
    g.play("pass")
    return g


def dko() -> Gadget:
    gad = Gadget()
    gad.string("b", BLACK)
    gad.string("w", WHITE)
    gad.ko(1, "b", "w", WHITE)
    gad.ko(2, "b", "w", BLACK)
    gad.edge("s", "b")
    gad.edge("s", "w")
    return gad


def robin() -> Gadget:
    gad = Gadget()
    for name, seat in (("B1", BLACK), ("W1", WHITE), ("B2", BLACK), ("W2", WHITE)):
        gad.string(name, seat, eyes=1)
    gad.ko(1, "B1", "W1", WHITE)
    gad.ko(2, "B2", "W1", BLACK)
    gad.ko(3, "B2", "W2", WHITE)
    gad.ko(4, "B1", "W2", BLACK)
    return gad


def s2r1(**options) -> Game:
    """S2R1: row 2 ``O O X . .``, row 1 ``. X . X .`` on a 5x3 grid, Black to play."""
    return Game(Board.grid(5, 3), rules="jasiek-nkr",
                setup={"A2": 1, "B2": 1, "C2": 0, "B1": 0, "D1": 0}, **options)


def edge() -> Game:
    """EDGE: 4x3, row 3 ``. X O .``, row 2 ``X . X O``, row 1 ``. X O .``."""
    return Game(Board.grid(4, 3), rules="jasiek-nkr",
                setup={"B3": 0, "C3": 1, "A2": 0, "C2": 0, "D2": 1, "B1": 0, "C1": 1})


# --- the cases -------------------------------------------------------------------------------

def test_nkr_01_basic_ko_and_the_intervening_move() -> None:
    g = ko7()
    assert kos(g) == []
    g.play("C3")                               # creates the ko: R2 does not apply
    assert kos(g) == [(["C3", "D3"], "fighting", None)]
    g.play("D3")
    assert refused(g, "C3") == "basic-ko"
    play_all(g, "A1 G5 C3")
    assert refused(g, "D3") == "basic-ko"


def test_nkr_01_a_pass_is_enough_before_the_recapture() -> None:
    g = ko7()
    play_all(g, "C3 D3 pass G5")
    assert g.why_illegal("C3") is None
    g.play("C3")


def test_nkr_05_double_ko_seki_is_stable_disturbing_life() -> None:
    g = dko().game()
    assert kos(g) == [(["x1", "y1", "x2", "y2"], "disturbing-life", "stable")]
    (ko,) = g.ko_analysis()
    assert ko["coupling"] == ["b", "w"] and ko["mouths"] == [["x1", "y1"], ["x2", "y2"]]


def test_nkr_07_round_robin_prohibited_in_the_second_round() -> None:
    g = robin().game()
    assert sorted(kos(g)) == sorted([([f"x{k}", f"y{k}"], "fighting", None) for k in range(1, 5)])
    start = g.stones()
    play_all(g, "y1 x2 y3 x4 y2 x1 y4 x3")
    assert g.stones() == start
    play_all(g, "y1 x2 y3 x4")
    assert len(g.history) == 12
    assert refused(g, "y2") == "prohibition"


def test_nkr_09_two_point_mouths_at_the_edges() -> None:
    g = edge()
    mouths = sorted(m for k in g.ko_analysis() for m in k["mouths"])
    assert mouths == [["B2", "C2"], ["C1", "D1"], ["C3", "D3"]]


def test_nkr_11_eternal_life_tier_1_needs_a_move_elsewhere_from_black() -> None:
    g = eternal().game()
    assert kos(g) == []
    play_all(g, "Q R P T")
    assert refused(g, "Q") == "prohibition"
    play_all(g, "s1 t1 Q R P T")
    assert refused(g, "Q") == "prohibition"


def test_nkr_12_sending_two_returning_one_tier_1() -> None:
    g = s2r1()
    assert kos(g) == []
    play_all(g, "A1 C1 B1 pass")
    assert refused(g, "A1") == "prohibition"


def test_nkr_13_eternal_life_tier_2_is_a_fighting_ko() -> None:
    """R: with the reconstructed shapes Q-P-R-T is a 4-in-a-row mouth with two ko strings."""
    g = eternal().game(ko_shapes="reconstructed")
    assert kos(g) == [(["Q", "P", "R", "T"], "fighting", None)]
    g.play("Q")
    assert refused(g, "R") == "fighting"


def test_nkr_14_sending_two_returning_one_tier_2_is_a_single_disturbing_life() -> None:
    """R: {A1, B1, C1} is a 3-in-a-row mouth holding the single ko stone B1."""
    g = s2r1(ko_shapes="reconstructed")
    assert kos(g) == [(["A1", "B1", "C1"], "disturbing-life", "single")]
    g.play("A1")
    assert g.ko_analysis()[0]["disturber"] == BLACK
    play_all(g, "C1 B1 pass")
    assert refused(g, "A1") == "prohibition"


# --- the rules beyond the spec's table ---------------------------------------------------------

def coupled(*held: int, eye_w: bool = False) -> Gadget:
    """Main strings b and w coupled by one ko per entry of ``held`` (the seat holding it)."""
    gad = Gadget()
    gad.string("b", BLACK)
    gad.string("w", WHITE, eyes=int(eye_w))
    for k, seat in enumerate(held, 1):
        gad.ko(k, "b", "w", seat)
    gad.spares(1)
    return gad


def test_triple_ko_is_one_fighting_ko_and_the_fighting_rule_holds_it() -> None:
    """Three kos coupling b and w (b in atari): one fighting ko of three mouths. Black's ko
    stone y2 bars White from every ko stone in it at the next move, not only the recapture."""
    g = coupled(BLACK, WHITE, WHITE).game()
    assert kos(g) == [(["x1", "y1", "x2", "y2", "x3", "y3"], "fighting", None)]
    g.play("y2")
    assert g.ko_analysis()[0]["fighting_bar"] == WHITE
    assert refused(g, "x1") == "fighting"
    assert refused(g, "x2") == "basic-ko"     # R1 comes first where both apply
    with pytest.raises(IllegalMove, match=r"fighting ko \(x1\).*\(fighting rule\)"):
        g.play("x1")
    g.play("t1")
    assert g.ko_analysis()[0]["fighting_bar"] is None


def test_disturber_rule_bars_the_disturber_once_the_ko_repeats() -> None:
    """Three kos between b and w (w with an eye) in stable disturbing life. Black's first
    disturbance ends with his move elsewhere; White becomes the disturber with x2, and once the
    stones of the ko position are as they were just before (after Black's y1) he may not
    disturb again; the move that repeated was legal."""
    g = coupled(WHITE, BLACK, BLACK, eye_w=True).game()
    assert kos(g) == [(["x1", "y1", "x2", "y2", "x3", "y3"], "disturbing-life", "stable")]
    g.play("y1")
    assert g.ko_analysis()[0]["disturber"] == BLACK
    g.play("x3")
    g.play("t1")                                 # the ko stone move-sequence ends
    assert g.ko_analysis()[0]["disturber"] is None
    g.play("x2")
    assert g.ko_analysis()[0]["disturber"] == WHITE
    play_all(g, "y3 x1 y2 x3 y1")
    ko = g.ko_analysis()[0]   # (Black's t1 with l1 empty is a two-point mouth of its own, after it)
    assert ko["disturber"] == WHITE and ko["disturber_barred"]
    assert refused(g, "x2") == "disturber"
    with pytest.raises(IllegalMove, match=r"white is its disturber.*\(disturber rule\)"):
        g.play("x2")


def test_a_pass_ends_the_disturbers_sequence() -> None:
    g = coupled(WHITE, BLACK, BLACK, eye_w=True).game()
    g.play("y1")
    g.play("pass")
    assert g.ko_analysis()[0]["disturber"] is None


def test_prohibition_counts_each_action_once_per_class_and_says_which() -> None:
    g = s2r1()
    play_all(g, "A1 C1 B1 pass")
    with pytest.raises(IllegalMove, match=r"black has already played a stone on this point.*\(prohibition rule\)"):
        g.play("A1")
    g = s2r1(ko_shapes="reconstructed")
    play_all(g, "A1 C1 B1 pass")
    with pytest.raises(IllegalMove, match=r"already become the disturber of this disturbing ko"):
        g.play("A1")


def test_the_first_ko_stone_in_a_fighting_ko_is_ignored_by_the_prohibition() -> None:
    """In the round robin the first ko stone of each ko is free: Black's y1 of the second
    round is his first counted ko stone in ko 1, so it is allowed; y2 is his second in ko 2."""
    g = robin().game()
    play_all(g, "y1 x2 y3 x4 y2 x1 y4 x3")
    assert g.why_illegal("y1") is None


def test_single_stone_suicide_is_refused_and_multi_stone_suicide_is_a_legal_play() -> None:
    g = Game(Board.grid(3, 3), rules="jasiek-nkr", setup={"A2": 1, "B1": 1})
    assert refused(g, "A1") == "suicide"            # a lone stone that would vanish
    board = Board(["a", "b", "c", "d", "e"], [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")])
    g = Game(board, rules="jasiek-nkr", setup={"a": 0, "c": 1, "d": 1})
    g.play("b")                                      # a-b has no liberty left: both go
    assert g.stones() == {"c": 1, "d": 1}
    assert g.prisoners == [2, 0]


def test_preset_parts_options_and_json_round_trip() -> None:
    r = Ruleset.from_json({"name": "jasiek-nkr"})
    parts = r.parts()
    assert (parts["repetition"], parts["suicide"], parts["scoring"], parts["ending"], parts["komi"],
            parts["max_players"], parts["ko_shapes"]) == ("nkr", "board-changing", "area", "marking", 7.5, 2,
                                                          "two-point")
    r2 = r.with_options(ko_shapes="reconstructed", komi=8)
    assert r2.to_json() == {"name": "jasiek-nkr", "komi": 8.0, "ko_shapes": "reconstructed"}
    assert Ruleset.from_json(r2.to_json()) == r2
    with pytest.raises(RulesetError, match="ko_shapes must be"):
        r.with_options(ko_shapes="diagrams")
    with pytest.raises(RulesetError, match="ko_shapes is an option of Jasiek"):
        Ruleset.from_json({"name": "chinese", "ko_shapes": "two-point"})
    with pytest.raises(RulesetError, match="own repetition rule"):
        r.with_options(superko="positional")
    with pytest.raises(RulesetError, match="2 players"):
        Game(Board.grid(5, 5), rules="jasiek-nkr", players=3)


def test_record_replays_the_ko_state() -> None:
    g = coupled(WHITE, BLACK, BLACK, eye_w=True).game()
    play_all(g, "y1 x3 t1 x2 y3 x1 y2 x3 y1")
    again = Game.from_record(g.to_record())
    assert again.ko_analysis() == g.ko_analysis()
    assert again.why_illegal("x2") == "disturber"
    copy = g.copy()
    copy.play("pass")
    assert g.ko_analysis()[0]["disturber"] == WHITE and copy.ko_analysis()[0]["disturber"] is None


def test_other_rules_have_no_ko_analysis() -> None:
    g = Game(Board.grid(7, 5), rules="chinese", setup={"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1})
    g.play("pass")
    g.play("C3")
    assert g.ko_analysis() == []


def test_reconstructed_shapes_on_a_grid() -> None:
    """R: the bent 4 and the block are mouths on grids; a two-point mouth is one in both tiers."""
    g = ko7()
    g.play("C3")
    assert kos(g) == [(["C3", "D3"], "fighting", None)]
    g2 = Game(Board.grid(7, 5), rules="jasiek-nkr", ko_shapes="reconstructed",
              setup={"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1, "C3": 1})
    assert [k["points"] for k in g2.ko_analysis()] == [["C3", "D3"]]


def test_referee_reports_refusals_and_the_ko_analysis(capsys) -> None:
    import json

    from polygo.rules.__main__ import main

    assert main(["replay", "--rules", "jasiek-nkr", "--board", "7x5", "--option", "ko_shapes=reconstructed",
                 "C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3", "D3", "C3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[8]["kos"][0]["points"] == ["C3", "D3"] and lines[8]["kos"][0]["fighting_bar"] == 1
    assert lines[9]["ok"] is False and lines[9]["reason"] == "basic-ko"
    assert "(basic ko rule)" in lines[9]["message"]


def test_block_of_4_mouth_with_triple_ko_stones() -> None:
    """R: the 2x2 block split 3+1 holding triple ko stones not in a row (C3 empty) is a ko
    position only with the reconstructed shapes; once White captures, Black can answer but White
    has no ko stone move left, so no endless sequence exists: a single disturbing life."""
    setup = {"B3": 0, "C2": 0, "D3": 0, "C4": 0, "D4": 0, "E3": 1, "D2": 1, "B4": 1, "C5": 1, "E4": 1, "D5": 1}
    assert Game(Board.grid(6, 6), rules="jasiek-nkr", setup=setup).ko_analysis() == []
    g = Game(Board.grid(6, 6), rules="jasiek-nkr", setup=setup, ko_shapes="reconstructed")
    assert kos(g) == [(["C3", "D3", "C4", "D4"], "disturbing-life", "single")]


def two_kos_b_with_an_eye(*held: int) -> Game:
    gad = Gadget()
    gad.string("b", BLACK, eyes=1)
    gad.string("w", WHITE)
    for k, seat in enumerate(held, 1):
        gad.ko(k, "b", "w", seat)
    return gad.game()


def test_stable_disturbing_death_and_its_disturber() -> None:
    """Two kos coupling b (an eye: two breaths) and w (one breath, on the verge of removal), a
    ko stone of each colour: stable disturbing death (J10). Only the owner of the dying string
    disturbs it (J16 c): White's capture x2 makes White the disturber."""
    g = two_kos_b_with_an_eye(WHITE, BLACK)
    assert kos(g) == [(["x1", "y1", "x2", "y2"], "disturbing-death", "stable")]
    g.play("pass")
    g.play("x2")
    assert g.ko_analysis()[0]["disturber"] == WHITE


def test_instable_disturbing_death() -> None:
    """Both kos held by White: w's breaths are exactly the empty points of the ko position (J11)."""
    g = two_kos_b_with_an_eye(WHITE, WHITE)
    assert kos(g) == [(["x1", "y1", "x2", "y2"], "disturbing-death", "instable")]
