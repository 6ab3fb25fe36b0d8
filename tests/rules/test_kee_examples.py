"""The worked examples of the Kee 2016 text (section III) as acceptance tests.

The text's diagrams are lost; where an example needs its geometry, the comment above it says
how the geometry was recovered from the text's own claims. Points use GTP names: on the 2×2
board A2 is the upper left corner, B2 the upper right, A1 the lower left, B1 the lower right.
"""

import pytest

from polygo.rules import Board, Game, IllegalMove


def kee(board, players=2, **options):
    return Game(board, rules="kee", players=players, **options)


# --- I. 2×1 board ---------------------------------------------------------------------------

def test_I_recapture_is_prohibited_and_black_appeals(script):
    g = script(kee(Board.grid(2, 1)), ["A1", "B1", ("A1", "cycle"), "appeal A1"])
    assert g.stones() == {"B1": 1}


def test_I_white_plain_pass_rescinds_W2_and_black_wins_by_2(script):
    g = script(kee(Board.grid(2, 1)), ["A1", "B1", "appeal A1", "pass"])
    # W2 is rescinded: the position goes back, White must choose again and B1 is excluded.
    assert g.stones() == {"A1": 0}
    assert g.to_move == 1
    assert [p.rescinded for p in g.history] == [False, True, True, True]
    assert g.why_illegal("B1") == "rescinded"
    assert g.legal_moves() == ["pass"]
    script(g, ["pass", "pass"])
    assert g.over and g.score() == [2.0, 0.0] and g.ranking() == [1, 2]


def test_I_white_appeals_too_and_wins_by_2(script):
    # W4 at A1 would be a two-stone suicide that empties the board: the position before B1.
    g = script(kee(Board.grid(2, 1)), ["A1", "B1", "appeal A1", ("A1", "cycle"), "appeal A1"])
    assert g.over
    assert g.score() == [0.0, 2.0] and g.ranking() == [2, 1]


def test_I_so_black_passes_first_and_the_game_is_a_draw(script):
    g = script(kee(Board.grid(2, 1)), ["pass", "pass"])
    assert g.over and g.score() == [0.0, 0.0] and g.ranking() == [1, 1]


# --- J. 2×2 board ---------------------------------------------------------------------------
# Geometry recovered from the text: after W4 captures two black stones, B5 may take "the upper
# left" or "the lower left" corner, so W4 left White on the right side (B1, B2) and Black's two
# stones were A1 and A2. B7's capture of three stones is allowed, so its position {B: A1} never
# appeared: B1 was A2, B3 was A1. Black 35's "repeats the position produced by White 2" (Case 1,
# 33 on the lower left) gives {B: A2, W: B1}: W2 was B1, W4 was B2.

J_OPENING = ["A2", "B1", "A1", "B2"]


def test_J_opening_W4_captures_two(script):
    g = script(kee(Board.grid(2, 2)), J_OPENING)
    assert g.stones() == {"B1": 1, "B2": 1}
    assert g.history[-1].captures == ("A2", "A1")


def test_J_incorrect_B5_upper_left_both_appeal_white_wins_by_4(script):
    g = script(kee(Board.grid(2, 2)), J_OPENING + [
        "A2", "A1", ("A2", "cycle"), "appeal A2", ("A2", "cycle"), "appeal A2"])
    assert g.over and g.score() == [0.0, 4.0]


J_BETTER_B5 = J_OPENING + ["A1", "A2", "A1", "B2"]   # W6 captures one, B7 three, W8 the other corner


def test_J_better_B5_lower_left(script):
    g = script(kee(Board.grid(2, 2)), J_BETTER_B5)
    assert g.stones() == {"A1": 0, "B2": 1}


def test_J_incorrect_B9_upper_left_white_lives(script):
    g = script(kee(Board.grid(2, 2)), J_BETTER_B5 + [
        "A2", ("B1", "cycle"), "appeal B1",       # capturing two would repeat W4
        "B1",                                     # B11 captures the one white stone
        "B2",                                     # W12 captures three
        ("A1", "cycle"), "pass",                  # B13 would repeat W8
        "A1",                                     # W14: two eyes
        "pass", "pass"])
    assert g.over and g.score() == [0.0, 4.0]


J_CASE_1 = J_BETTER_B5 + [
    "B1", "A2",                                   # B9 lower right; W10 captures two
    "A1", ("B1", "cycle"), "appeal B1",           # B11 lower left; capturing would repeat W6
    "B1", ("B2", "cycle"), "appeal B2",           # B13 captures two; W14 would repeat B9
]


def test_J_case_1_incorrect_B15_upper_left(script):
    g = script(kee(Board.grid(2, 2)), J_CASE_1 + [
        "A2", "B2", ("A1", "cycle"), "pass", "A1", "pass", "pass"])
    assert g.over and g.score() == [0.0, 4.0]


J_CASE_1_B21 = J_CASE_1 + [
    "B2", "A2",                                   # B15 upper right; W16 captures three
    "B1", "A1",                                   # B17 the other corner; W18 lower left
    "B2", "A2",                                   # B19 captures two; W20 upper left
    ("A1", "cycle"),                              # capturing one would repeat B15
]


def test_J_case_1_B21_plain_pass_lets_B23_repeat_W18_but_white_wins_by_1(script):
    g = script(kee(Board.grid(2, 2)), J_CASE_1_B21 + [
        "pass", "A1",                             # B21 non-appealing; W22 captures two
        "B1",                                     # B23 repeats W18's position, allowed by rule 11 (a), (b)
        "pass", ("B2", "cycle"), "pass"])         # B25 would repeat B19: the game ends
    assert g.over and g.score() == [1.0, 2.0] and g.ranking() == [2, 1]


J_CASE_1_B27 = J_CASE_1_B21 + [
    "appeal A1", "A1",                            # B21 appealing; W22 captures two
    "B2", "B1",                                   # B23 upper right; W24 eliminates it
    "B2", "A1",                                   # B25 captures three; W26 the other corner
]


def test_J_case_1_incorrect_B27_lower_right(script):
    g = script(kee(Board.grid(2, 2)), J_CASE_1_B27 + [
        "B1", ("A2", "cycle"), "appeal A2",       # W28: capturing two would repeat W22
        "A2", "A1", ("B2", "cycle"), "pass",      # B29 captures one, W30 three, B31 would repeat W26
        "B2", "pass", "pass"])
    assert g.over and g.score() == [0.0, 4.0]


def test_J_case_1_incorrect_B29_upper_left_both_appeal(script):
    g = script(kee(Board.grid(2, 2)), J_CASE_1_B27 + [
        "A2", "B1",                               # B27 upper left; W28 captures two
        "A2", "B2",                               # B29 upper left; W30 captures it
        ("A2", "cycle"), "appeal A2", ("A2", "cycle"), "appeal A2"])
    assert g.over and g.score() == [0.0, 4.0]


@pytest.mark.parametrize("b33, w34, b35, w36", [("A1", "B1", "A2", "A2"), ("B1", "A1", "B2", "B2")])
def test_J_case_1_B29_upper_right_then_either_B33_white_lives(script, b33, w34, b35, w36):
    g = script(kee(Board.grid(2, 2)), J_CASE_1_B27 + [
        "A2", "B1", "B2",
        ("A2", "cycle"), "appeal A2",             # W30: capturing one would repeat W24
        "A2", ("A1", "cycle"), "appeal A1",       # B31 captures two; W32 would repeat B27
        b33, w34, (b35, "cycle"), "pass",         # B35 would repeat W2 / W26
        w36, "pass", "pass"])
    assert g.over and g.score() == [0.0, 4.0]


def test_J_case_2_incorrect_B15_lower_left(script):
    g = script(kee(Board.grid(2, 2)), J_BETTER_B5 + [
        "B1", "A2",                               # B9 lower right; W10 captures two
        "B1", "A1", "B1", "A2",                   # B11 lower right; W12 captures; B13 three; W14
        "A1", ("B2", "cycle"), "appeal B2",       # B15 lower left; W16 would repeat W10
        "B2", "A2", ("B1", "cycle"), "pass",      # B17 captures one, W18 three, B19 would repeat W14
        "B1", "pass", "pass"])
    assert g.over and g.score() == [0.0, 4.0]


# --- K. 3×2 board ---------------------------------------------------------------------------
# Geometry recovered by search over every opening: "B9 on the left, without loss of generality"
# needs a left-right symmetric position after B7, and the end "capturing the five white stones
# would repeat the position produced by B1" needs the last empty point to be B1's point. The
# symmetric openings satisfying every claim put Black on A2, C2 and White on A1, C1, where with
# normal play the game is a 2-2 draw; B5 greedy is B2.

def test_K_greedy_B5_lets_white_win_by_6(script):
    g = script(kee(Board.grid(3, 2)), [
        "A2", "C1", "C2", "A1",
        "B2", "B1",                               # B5 greedy; W6 captures three
        "B2", "pass",                             # B7; W8 non-appealing pass
        "A2", "C2",                               # B9 on the left; W10 captures two
        "A2", "B2",                               # B11; W12 captures one
        ("A2", "cycle"), "appeal A2",             # capturing five would repeat B1
        ("A2", "cycle"), "appeal A2"])            # White's suicide would repeat the empty board
    assert g.history[5].captures == ("A2", "B2", "C2")
    assert g.history[9].captures and len(g.history[9].captures) == 2
    assert g.over and g.score() == [0.0, 6.0]


def test_K_black_passing_at_5_is_a_draw(script):
    g = script(kee(Board.grid(3, 2)), ["A2", "C1", "C2", "A1", "pass", "pass"])
    assert g.over and g.score() == [2.0, 2.0] and g.ranking() == [1, 1]


# --- C. Unfilled simple ko on a fully occupied board -----------------------------------------
# Our board with the same property: a graph where White (two eyes e1, e2) and Black (one eye b)
# fill every point but the ko. W1-W2 is White's group; w1 the white stone in the ko; k the ko
# point; Bs Black's group.

C_BOARD = Board(["e1", "W1", "W2", "e2", "k", "w1", "Bs", "b"],
                [("e1", "W1"), ("W1", "W2"), ("W2", "e2"), ("W1", "k"), ("k", "w1"),
                 ("w1", "Bs"), ("Bs", "b")])
C_SETUP = {"W1": 1, "W2": 1, "w1": 1, "Bs": 0}


def test_C_black_takes_the_ko_white_appeals_and_then_captures_everything(script):
    g = script(kee(C_BOARD, setup=C_SETUP), [
        "k",                                      # B1 captures the ko
        ("w1", "cycle"), "appeal w1",             # White's recapture would repeat: appeal
        ("appeal w1", "not-prohibited"),          # Black has no reason to appeal ...
        "pass"])                                  # ... so his pass rescinds B1
    assert g.history[0].rescinded and g.stones() == {"W1": 1, "W2": 1, "w1": 1, "Bs": 0}
    assert g.why_illegal("k") == "rescinded"
    script(g, ["pass", "k", "pass", "b", "pass", "pass"])
    assert set(g.stones().values()) == {1}
    assert g.over and g.score() == [0.0, 8.0]


# --- D. The same in a three-player game ----------------------------------------------------
# Our board, found by searching small graphs for the property the text describes: Black
# captures a white stone, Red recaptures the ko (a new position), Black's recapture is
# prohibited, Black appeals, White and Red pass, and Red's capture is rescinded.

D_BOARD = Board(["p0", "p1", "p2", "p3", "p4", "p5", "p6"],
                [("p0", "p1"), ("p0", "p3"), ("p1", "p2"), ("p1", "p6"), ("p3", "p4"),
                 ("p3", "p5"), ("p3", "p6")])
D_SETUP = {"p0": 0, "p1": 1, "p3": 0, "p5": 0, "p6": 0}


def test_D_three_players_red_capture_is_rescinded_and_black_takes_all(script):
    g = script(kee(D_BOARD, players=3, setup=D_SETUP), [
        "p2",                                     # Black captures the white stone
        "pass",                                   # White
        "p1",                                     # Red captures the black stone: a new position
        ("p2", "cycle"), "appeal p2",             # Black's recapture would repeat: appeal
        "pass",                                   # White
        ("appeal p2", "not-prohibited"), "pass",  # Red has no reason to appeal: rescission
    ])
    assert g.to_move == 2 and g.why_illegal("p1") == "rescinded"
    assert [p.rescinded for p in g.history] == [False, False, True, True, True, True]
    script(g, ["pass", "p1"])
    assert set(g.stones().values()) == {0}
    script(g, ["pass", "pass", "pass"])
    assert g.over and g.ranking() == [1, 2, 2]


# --- H. Spight's 4×3 board: ten-thousand-year ko -------------------------------------------
# Our board with the same property, found by search: White takes the ko, Black's recapture is
# prohibited, Black appeals, White's pass rescinds W1, White can then only pass, Black passes,
# and the game ends with the ko unfilled and no cycle prohibition outstanding.

H_BOARD = Board(["p0", "p1", "p2", "p3", "p4", "p5"],
                [("p0", "p1"), ("p0", "p4"), ("p1", "p2"), ("p1", "p3"), ("p3", "p4"), ("p3", "p5")])
H_SETUP = {"p1": 0, "p2": 0, "p5": 0}


def test_H_white_takes_the_ko_is_rescinded_and_the_game_ends(script):
    g = script(kee(H_BOARD, setup=H_SETUP), ["p4", "p3", ("p5", "cycle"), "appeal p5", "pass"])
    assert g.history[1].rescinded and g.why_illegal("p3") == "rescinded"
    assert g.legal_moves() == ["pass"]
    script(g, ["pass", "pass"])
    assert g.over and g.stones() == {"p1": 0, "p2": 0, "p4": 0, "p5": 0}


# --- the rules one by one -------------------------------------------------------------------

def test_rule_10_lone_stone_suicide_is_refused_and_nothing_changes():
    g = kee(Board.grid(3, 1), setup={"B1": 1})
    with pytest.raises(IllegalMove) as exc:
        g.play("A1")                              # no liberty, captures nothing: the board would not change
    assert exc.value.reason.value == "suicide"
    assert g.stones() == {"B1": 1} and g.to_move == 0 and g.history == []


def test_rule_10_board_changing_suicide_is_allowed():
    g = kee(Board.grid(2, 1), setup={"B1": 1})
    assert g.why_illegal("A1") is None            # takes B1's last liberty: a capture, not a suicide
    g = kee(Board.grid(3, 1), setup={"A1": 1, "C1": 1})
    g.play("pass")
    g.play("B1")                                  # White fills its own last liberty: three stones go
    assert g.stones() == {} and g.history[-1].captures == ("A1", "B1", "C1")


def test_rule_12_appeal_needs_a_cycle_prohibited_play():
    g = kee(Board.grid(3, 3))
    assert g.why_illegal("appeal A1") == "not-prohibited"
    g.play("B2")
    assert g.why_illegal("appeal B2") == "not-prohibited"      # occupied
    assert Game(Board.grid(3, 3), rules="chinese").why_illegal("appeal A1") == "no-appeals"


def test_rule_16_agreed_ranking_ends_the_game():
    g = kee(Board.grid(5, 5), players=3)
    g.play("C3")
    g.play("rank 1 2 2", seat=1)
    assert not g.over and g.proposal == (1, 2, 2)
    g.play("accept", seat=0)
    g.play("accept", seat=2)
    assert g.over and g.ranking() == [1, 2, 2] and g.result.reason == "agreement"


def test_rule_16_rejected_proposal_is_withdrawn():
    g = kee(Board.grid(5, 5))
    g.play("rank 1 2", seat=0)
    g.play("reject", seat=1)
    assert g.proposal is None and g.why_illegal("accept", seat=1) == "no-proposal"


def test_rule_17_dead_stones_removed_by_agreement_then_area_scoring():
    g = kee(Board.grid(5, 1))
    for m in ["A1", "C1", "pass", "E1", "pass", "pass"]:
        g.play(m)
    assert g.phase == "scoring" and g.over and g.result is None
    assert g.score() == [1.0, 3.0]
    g.play("dead A1", seat=1)
    g.play("done", seat=1)
    assert g.accepted == [1]
    g.play("done", seat=0)
    assert g.phase == "ended" and g.score() == [0.0, 5.0] and g.result.ranking == (2, 1)


def test_rule_17_ties_share_a_place():
    g = kee(Board.grid(4, 1), players=3)
    for m in ["A1", "D1", "pass", "pass", "pass"]:
        g.play(m)
    assert g.score() == [1.0, 1.0, 0.0] and g.ranking() == [1, 1, 3]


def test_rule_3_pre_placed_stones_are_the_first_appearance():
    g = kee(Board.grid(2, 1), setup={"A1": 1})
    g.play("B1")                                  # Black captures A1
    assert g.stones() == {"B1": 0}
    assert g.why_illegal("A1") == "cycle"         # White's recapture would repeat the set-up position
