"""Kee 2016, section III, examples E and F (triple ko) as acceptance tests.

The text's diagrams are lost. Both examples are played on a graph board of our own construction
with the property the text describes: three kos between one black and one white group. Points:

    b            the black group (one stone), no eye
    w            the white group (one stone); in F it also has an eye ``e``
    xK, yK       ko K: ``xK`` touches b, ``yK`` touches w, and xK-yK are adjacent

In ko K either a white stone sits on xK (yK empty: a liberty of w; Black takes it by playing yK)
or a black stone sits on yK (xK empty: a liberty of b; White takes it by playing xK). So each
group has one liberty per ko it holds (plus the eye), and every ko capture flips one ko.

How the board was found: the three-ko gadget above was designed by hand and then checked by a
search script (a one-off, not kept) that plays every
capture order from the set-up position and keeps the lines where each of the text's claims holds,
with the engine's ``why_illegal`` deciding legality. For E it finds exactly the text's line (and
its mirror image, kos 1 and 3 exchanged); for F it finds no line at all (see F below). Random
connected graphs with random set-ups (3,000 of 6-9 points for E, over 20,000 of 5-10 points for F)
gave no other board for either example.

Ko names: the text names the kos by capture order, B1 the 1st, W2 the 2nd, B3 the 3rd. In E's
second paragraph the names 1st and 2nd are exchanged: after B1, W2, B3 the 2nd ko is White's own
(W2 took it), so White cannot take it again; the only ko White may retake is the 1st, and then the
only one Black may retake is the 2nd. Read with the two names exchanged, every claim holds.
"""

import pytest

from polygo.rules import Board, Game


def kee(board, **options):
    return Game(board, rules="kee", players=2, **options)


def position_after(board, stones, move, seat):
    """The stones after ``seat`` plays ``move`` on ``stones`` in a game with no history."""
    g = kee(board, setup=stones)
    if g.to_move != seat:
        g.play("pass")
    g.play(move)
    return g.stones()


TRIPLE_KO_EDGES = [("b", "x1"), ("b", "x2"), ("b", "x3"),
                   ("x1", "y1"), ("x2", "y2"), ("x3", "y3"),
                   ("y1", "w"), ("y2", "w"), ("y3", "w")]
# White holds kos 1 and 3, Black holds ko 2 (the only start from which the text's line is
# possible: B1 and B3 take white-held kos, W2 a black-held one).
TRIPLE_KO_SETUP = {"b": 0, "w": 1, "x1": 1, "y2": 0, "x3": 1}


# --- E. Triple ko without eyes ----------------------------------------------------------------
# Board: the three-ko gadget, eight points, no empty point outside the kos (no eyes).
# Claims checked: B1 takes the 1st ko; White cannot pass (Black would capture everything); W2
# takes the 2nd ko; B3 takes the 3rd; again White cannot pass; W4 retakes (the text: "restores")
# a ko, its only possible one - the other is refused for "cycle"; B5 likewise; then White's
# retaking of the 3rd ko is refused for "cycle" because it would repeat the initial position (and
# his other ko capture too), so White passes; Black's capture then removes every white stone.
# Also: with positional superko (Chinese rules) the same line ends the same way.

E_BOARD = Board(["b", "x1", "x2", "x3", "y1", "y2", "y3", "w"], TRIPLE_KO_EDGES)


def test_E_triple_ko_without_eyes_black_captures_all_white_stones(script):
    g = kee(E_BOARD, setup=TRIPLE_KO_SETUP)
    initial = g.stones()
    script(g, [
        "y1",                        # B1 captures the 1st ko
        "x2",                        # W2 captures the 2nd ko
        "y3",                        # B3 captures the 3rd ko
        ("x3", "cycle"), "x1",       # W4: retaking the 3rd ko would repeat W2's position
        ("y1", "cycle"), "y2",       # B5: retaking the 1st ko would repeat B3's position
        ("x3", "cycle"),             # White's retaking of the 3rd ko ...
    ])
    assert position_after(E_BOARD, g.stones(), "x3", 1) == initial   # ... repeats the start
    assert g.why_illegal("x2") == "cycle"                              # the other ko capture
    # What is left to White: a pass (plain, or appealing a refused ko capture), or filling his
    # last liberty (a multi-stone suicide).
    assert g.legal_moves() == ["y1", "pass", "appeal x2", "appeal x3"]
    script(g, ["pass", "y1"])    # Black captures every white stone
    assert g.stones() == {"b": 0, "y1": 0, "y2": 0, "y3": 0}
    assert g.history[-1].captures and set(g.history[-1].captures) == {"x1", "w"}


@pytest.mark.parametrize("moves, kill", [(["y1"], "y3"), (["y1", "x2", "y3"], "y2")])
def test_E_white_cannot_pass_he_has_no_eyes(script, moves, kill):
    g = script(kee(E_BOARD, setup=TRIPLE_KO_SETUP), moves + ["pass", kill])
    assert 1 not in g.stones().values()


def test_E_the_same_with_positional_superko():
    g = Game(E_BOARD, rules="chinese", players=2, setup=TRIPLE_KO_SETUP)
    for move in ["y1", "x2", "y3", "x1", "y2"]:
        g.play(move)
    assert g.why_illegal("x3") == "superko" and g.why_illegal("x2") == "superko"
    g.play("pass")
    g.play("y1")
    assert 1 not in g.stones().values()


# --- F. Triple ko with White having one eye but Black having none -----------------------------
# Board: the same gadget with a White eye ``e`` next to w. The start must again be White holding
# kos 1 and 3 and Black ko 2: B1 and B3 take kos, W2's appeal needs a prohibited White play (only
# the retaking of the 1st ko, which repeats the start, is one), and B7 "repeats the position
# produced by B1" from a position where ko 1 is White's again.
# Claims checked, and holding: B1 takes the 1st ko; W2 is a valid appealing pass (naming the
# retaking of the 1st ko, refused for "cycle"); B3 takes the 3rd ko, so Black holds all three;
# W4 takes the 1st ko; Black 5 can only pass (his only ko capture is refused for "cycle").
# The claim that does NOT hold: W6 "captures the 3rd ko". Ko 1 is White's again after W4, so W6
# restores the initial position; White has made no non-appealing pass (W2 was an appeal), so rule
# 11 (a) fails and the engine refuses W6 for "cycle" - as example E requires for the very same
# kind of play (White's repetition of the initial position without a pass). The text's B7 and W8
# therefore never arise (see docs/rules/kee.md).

F_BOARD = Board(["b", "x1", "x2", "x3", "y1", "y2", "y3", "w", "e"],
                TRIPLE_KO_EDGES + [("w", "e")])


def test_F_up_to_black_5_as_the_text_says(script):
    g = kee(F_BOARD, setup=TRIPLE_KO_SETUP)
    initial = g.stones()
    script(g, [
        "y1",                        # B1 captures the 1st ko
        ("x1", "cycle"),             # White's retaking would repeat the initial position ...
        "appeal x1",                 # ... so W2 is an appealing pass
        "y3",                        # B3 captures the 3rd ko: Black holds all three
    ])
    assert {p: s for p, s in g.stones().items() if p.startswith("y")} == {"y1": 0, "y2": 0, "y3": 0}
    script(g, [
        "x1",                        # W4 captures the 1st ko
        ("y1", "cycle"),             # B5: retaking it would repeat B3's position
        ("e", "suicide"),            # and White's eye cannot be filled
        "pass",                      # so Black 5 passes
    ])
    # Here the text has W6 capture the 3rd ko. That play recreates the initial position, and
    # White's only pass so far (W2) was an appealing one: rule 11 (a) fails.
    assert position_after(F_BOARD, g.stones(), "x3", 1) == initial
    assert g.why_illegal("x3") == "cycle"
