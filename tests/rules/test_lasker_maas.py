"""The Lasker-Maas 1995 text's claims as tests: two phases, the prisoners' place, the counting."""

import pytest

from polygo.rules import Board, Game, RulesetError


def lm(board=None, **options):
    return Game(board or Board.grid(5, 5), rules="lasker-maas", players=2, **options)


def play_all(g, moves):
    for m in moves:
        g.play(m)
    return g


# Black walls off columns A-B with C, White walls off E with D; White invades at A3.
PHASE_1 = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "pass", "A3", "pass", "pass"]


def test_two_passes_end_phase_1_and_play_goes_on_from_the_prisoners_place():
    g = play_all(lm(), PHASE_1)
    assert g.phase == "phase-2" and not g.over and g.to_move == 0
    assert g.prisoners == [1, 1]                 # both colours were empty: one of each was added


def test_phase_2_resolves_the_disputed_group_and_keeps_the_phase_1_count():
    """"Such resolution doesn't change the Japanese-style score": the margin after phase 2 is the
    margin the players would have counted at the end of phase 1 had they agreed A3 dead."""
    g = play_all(lm(), PHASE_1)
    agreed = g.copy()
    agreed.play("dead A3", seat=0)
    agreed.play("done", seat=0)
    agreed.play("done", seat=1)
    assert agreed.over and agreed.result.reason == "agreement"
    phase_1_margin = agreed.score()[0] - agreed.score()[1]

    play_all(g, ["B3", "pass", "A2", "pass", "A4", "pass", "pass"])
    assert g.history[-3].captures == ("A3",)
    assert g.over and g.result.reason == "passes"
    assert g.score()[0] - g.score()[1] == phase_1_margin == 6
    assert g.ranking() == [1, 2]


def test_top_up_when_a_colour_runs_out():
    g = play_all(lm(), PHASE_1)
    assert g.prisoners == [1, 1]
    g.play("B3")                                 # Black draws his last stone: one of each is added
    assert g.prisoners == [1, 2]
    g.play("E1")                                 # White draws from two
    assert g.prisoners == [1, 1]


def test_phase_2_needs_two_new_passes():
    g = play_all(lm(), PHASE_1)
    g.play("pass")                               # a third consecutive pass does not end phase 2
    assert g.phase == "phase-2"
    g.play("pass")
    assert g.phase == "ended"


def test_counting_territory_minus_own_prisoners_and_komi_stones():
    g = lm(Board.grid(4, 3), komi=2)
    assert g.prisoners == [2, 0]                 # komi: black stones in the prisoners' place
    play_all(g, ["B1", "C1", "B2", "C2", "B3", "C3", "pass", "pass", "pass", "pass"])
    assert g.prisoners == [3, 1]                 # White's were empty at phase 2: one of each added
    assert g.score() == [3 - 3, 3 - 1]           # territory: column A for Black, D for White


def test_ties_go_to_white_unless_a_half_point():
    g = play_all(lm(Board.grid(3, 3)), ["pass", "pass", "pass", "pass"])
    assert g.score() == [-1.0, -1.0] and g.ranking() == [2, 1]
    g = play_all(lm(Board.grid(3, 3), komi=0.5), ["pass", "pass", "pass", "pass"])
    assert g.score() == [-1.0, -0.5] and g.ranking() == [2, 1]


def test_komi_must_be_whole_stones_and_a_half():
    for bad in (6.25, -1.25):
        with pytest.raises(RulesetError):
            lm(komi=bad)
    assert lm(komi=6.5).prisoners == [6, 0]


def test_komi_may_put_prisoners_of_either_colour_in_the_prisoners_place():
    """The August text: "a number of prisoners of one color or the other may be put there"."""
    g = lm(Board.grid(3, 3), komi=-2)
    assert g.prisoners == [0, 2]
    play_all(g, ["pass", "pass", "pass", "pass"])
    assert g.score() == [-1.0, -3.0] and g.ranking() == [1, 2]
    assert lm(komi=-2.5).prisoners == [0, 2]


def test_no_suicide():
    g = lm(Board.grid(3, 3), setup={"A2": 1, "B1": 1})
    assert g.why_illegal("A1") == "suicide"
    g = lm(Board.grid(3, 1), setup={"A1": 1, "C1": 1})
    g.play("pass")
    assert g.why_illegal("B1") == "suicide"      # a multi-stone suicide too


# A ko: White B2 can be captured by Black C2, which White could retake at B2.
#   3 . B W .
#   2 B W . W
#   1 . B W .
KO = {"B3": 0, "A2": 0, "B1": 0, "C3": 1, "B2": 1, "D2": 1, "C1": 1}


def test_unfilled_ko_peculiarity():
    """The text's one strange consequence: a player takes the last ko and both pass, ending
    phase 1 with the ko unfilled. In phase 2 the opponent still cannot retake it (rule 4 runs
    on as if the passes had not occurred), plays elsewhere, and the player fills the ko."""
    g = lm(Board.grid(4, 3), setup=KO)
    g.play("C2")                                 # Black takes the ko
    assert g.history[-1].captures == ("B2",)
    assert g.why_illegal("B2") == "superko"
    play_all(g, ["pass", "pass"])
    assert g.phase == "phase-2" and g.to_move == 1
    assert g.why_illegal("B2") == "superko"      # still prohibited in phase 2
    g.play("D3")                                 # White plays elsewhere (a stone from his prisoners)
    g.play("B2")                                 # Black fills the ko at once
    assert g.stone_at("B2") == 0 and g.stone_at("C2") == 0


@pytest.mark.parametrize("superko, retake", [("situational", None), ("positional", "superko")])
def test_situational_and_positional_superko_differ(superko, retake):
    """Black's A3 makes position Q (White to move); White passes; Black takes the ko; White's
    retake brings Q back with Black to move: a new situation, but not a new position."""
    g = lm(Board.grid(4, 3), setup=KO, superko=superko)
    play_all(g, ["A3", "pass", "C2"])
    assert g.why_illegal("B2") == retake


def test_fixed_and_free_handicap():
    g = lm(Board.grid(9, 9), handicap=4)
    assert g.stones() == {"C3": 0, "G7": 0, "C7": 0, "G3": 0} and g.to_move == 1
    g = lm(Board.grid(9, 9), handicap=2, handicap_mode="free")
    g.play("E5")
    assert g.to_move == 0
    g.play("C3")
    assert g.to_move == 1


def test_black_may_pass_during_free_handicap_placement():
    """"may pass at any time in the game": a pass uses up one of Black's consecutive moves."""
    g = lm(Board.grid(9, 9), handicap=3, handicap_mode="free")
    g.play("E5")
    assert g.why_illegal("pass") is None and "pass" in g.legal_moves()
    g.play("pass")
    assert g.to_move == 0 and g.phase == "phase-1"
    g.play("C3")
    assert g.to_move == 1 and g.stones() == {"E5": 0, "C3": 0}
    g = lm(Board.grid(9, 9), handicap=2, handicap_mode="free")
    play_all(g, ["pass", "pass"])
    assert g.to_move == 1 and g.phase == "phase-1"   # two passes by Black alone end no phase


def test_two_players_only():
    with pytest.raises(RulesetError):
        Game(Board.grid(5, 5), rules="lasker-maas", players=3)


def test_marks_and_acceptances_refer_to_the_position_they_were_made_on():
    """Black marks A1 dead and accepts; three plays later (Black has captured A1) White's
    ``done`` must not end the game on the old marks, nor count the empty A1 as a prisoner."""
    g = play_all(lm(Board.grid(3, 3)), ["B2", "A1"])
    g.play("dead A1", seat=0)
    g.play("done", seat=0)
    play_all(g, ["B1", "C3", "A2"])
    assert g.stone_at("A1") is None and g.dead == [] and g.accepted == []
    g.play("done", seat=1)
    assert not g.over and g.result is None and g.prisoners == [0, 1]


def test_a_mark_does_not_remove_a_later_stone_on_the_same_point():
    g = play_all(lm(Board.grid(3, 3)), ["B2", "A1"])
    g.play("dead A1", seat=0)
    play_all(g, ["B1", "C3", "A2", "pass", "A1"])   # Black captures A1, then plays there himself
    g.play("done", seat=0)
    g.play("done", seat=1)
    assert g.over and g.stone_at("A1") == 0
