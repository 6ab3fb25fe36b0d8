"""Nieminen 2004 ("My Go Rules Proposal"): the spec's cases (shared/specs/nieminen-2004.md, section 4)
and the dispute play-out (N14), resumption (N11, A4) and scoring (N16-N19, A10, A11).

Graph boards are built as the spec's section 4 describes them; where a case says White to play,
Black passes first (no verdict depends on that pass).
"""

from __future__ import annotations

import pytest

from polygo.rules import PRESETS, Board, Game, IllegalMove, RulesetError
from polygo.rules.ruleset import Repetition

KO7 = {"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1}
S2R1 = {"A2": 1, "B2": 1, "C2": 0, "B1": 0, "D1": 0}


def graph(points: str, edges: str) -> Board:
    return Board(points.split(), [tuple(e.split("-")) for e in edges.split()])


def nieminen(board: Board | str, setup: dict[str, int] | None = None, **options) -> Game:
    board = Board.parse(board) if isinstance(board, str) else board
    return Game(board, rules="nieminen", players=2, setup=setup or {}, **options)


def main_string(s: str) -> tuple[str, str]:
    """The spec's main string ``s``: two nodes, so never a single stone."""
    return f"{s} {s}'", f"{s}-{s}'"


def ko(k: str, b: str, w: str) -> tuple[str, str]:
    """A ko between black string ``b`` and white string ``w``: nodes xK, yK."""
    return f"x{k} y{k}", f"{b}-x{k} x{k}-y{k} y{k}-{w}"


# --- the spec's cases -------------------------------------------------------------------------

def test_nie01_ko_is_the_position_the_player_left(script):
    g = nieminen("7x5", KO7)
    script(g, ["pass", "C3", "D3", ("C3", "ko"), "A1", "G5", "C3", ("D3", "ko"), "pass", "G1", "D3"])
    assert g.phase == "play"


NIEMINEN_PRESETS = sorted(name for name, rules in PRESETS.items() if rules.repetition is Repetition.NIEMINEN)


@pytest.mark.parametrize("rules", NIEMINEN_PRESETS)
def test_a_first_turn_after_a_set_up_forbids_nothing(rules, script):
    """N7a, A2: White's B5 brings back the set-up position, but White has no previous turn whose
    board it could repeat. Black's A5 again would repeat the board Black left: that is ko."""
    g = Game(Board.grid(5, 5), rules=rules, setup={"B5": 1, "C5": 0, "A4": 1, "B4": 0})
    script(g, ["A5", "B5", ("A5", "ko")])
    assert g.history[-1].captures == ("A5",)


ETERNAL_POINTS = "W1 W1' B1 B1' Q P R T Lw Lb"
ETERNAL_EDGES = "W1-W1' B1-B1' Q-P P-R R-T Q-W1 P-W1 R-B1 T-B1 Lw-W1 Lb-B1"


def test_nie04_eternal_life_is_no_result(script):
    g = nieminen(graph(ETERNAL_POINTS, ETERNAL_EDGES), {"B1": 0, "B1'": 0, "P": 0, "W1": 1, "W1'": 1, "T": 1})
    script(g, ["Q", "R", "P", "T", "Q", "R", "P"])
    assert g.phase == "play" and g.result is None
    g.play("T")
    assert g.phase == "ended" and g.over and g.to_move is None
    assert g.result.reason == "no-result" and g.result.ranking == (1, 1)
    assert g.result.score == tuple(g.score())
    assert g.ranking() == [1, 1]
    assert g.why_illegal("Q") == "game-over"


def test_nie06_sending_two_returning_one_ends_without_result(script):
    """A5's literal board-only reading: the same board with the other player to move is legal
    (N7a), and the third occurrence of (board, player to move) ends the game."""
    g = nieminen("5x3", S2R1)
    script(g, ["A1", "C1", "B1", "pass", "A1", "C1", "B1"])
    assert g.result is None
    g.play("pass")
    assert g.result.reason == "no-result"
    assert g.prisoners == [4, 2]  # black stones taken (White holds 4), white stones taken (Black holds 2)
    assert len(g.history) == 8


def test_the_no_result_threshold_is_an_option(script):
    g = nieminen("5x3", S2R1, no_result_at=4)
    script(g, ["A1", "C1", "B1", "pass"] * 2)
    assert g.result is None
    script(g, ["A1", "C1", "B1", "pass"])
    assert g.result.reason == "no-result"
    assert g.rules.options()["no_result_at"] == 4
    again = Game.from_record(g.to_record())
    assert again.result == g.result


@pytest.mark.parametrize("value", [1, 0, 101, 2.5, True, "3"])
def test_a_bad_threshold_is_refused(value):
    with pytest.raises(RulesetError, match="no_result_at"):
        nieminen("5x5", no_result_at=value)


def test_the_threshold_is_nieminens_alone():
    with pytest.raises(RulesetError, match="no 'no result' rule"):
        Game(Board.grid(5, 5), rules="japanese", no_result_at=3)


def robin() -> Board:
    points, edges = [], []
    for s in ("B1", "W1", "B2", "W2"):
        p, e = main_string(s)
        points += [p, f"e{s}"]
        edges += [e, f"e{s}-{s}"]
    for k, b, w in (("1", "B1", "W1"), ("2", "B2", "W1"), ("3", "B2", "W2"), ("4", "B1", "W2")):
        p, e = ko(k, b, w)
        points.append(p)
        edges.append(e)
    return graph(" ".join(points), " ".join(edges))


ROBIN_SETUP = {"B1": 0, "B1'": 0, "B2": 0, "B2'": 0, "W1": 1, "W1'": 1, "W2": 1, "W2'": 1,
               "x1": 1, "y2": 0, "x3": 1, "y4": 0}
ROBIN_CYCLE = ["y1", "x2", "y3", "x4", "y2", "x1", "y4", "x3"]


def test_nie07_round_robin_ko_is_no_result(script):
    g = nieminen(robin(), ROBIN_SETUP)
    script(g, ROBIN_CYCLE)
    start = dict(g.stones())
    assert start == {p: s for p, s in ROBIN_SETUP.items()}  # a full turn restores the start
    script(g, ROBIN_CYCLE[:-1])
    assert g.result is None and g.phase == "play"
    g.play(ROBIN_CYCLE[-1])
    assert g.result.reason == "no-result"


def test_nie08_double_ko_does_not_cycle(script):
    points, edges = main_string("b")
    w_points, w_edges = main_string("w")
    k1, e1 = ko("1", "b", "w")
    k2, e2 = ko("2", "b", "w")
    board = graph(f"{points} {w_points} {k1} {k2} s", f"{edges} {w_edges} {e1} {e2} s-b s-w")
    g = nieminen(board, {"b": 0, "b'": 0, "w": 1, "w'": 1, "x1": 1, "y2": 0})
    script(g, ["y1", "x2", ("y2", "ko")])
    assert g.stones() == {"b": 0, "b'": 0, "y1": 0, "w": 1, "w'": 1, "x2": 1}


def test_nie13_an_empty_board_is_territory_of_both():
    g = nieminen("3x3")
    g.play("pass")
    g.play("pass")
    assert g.phase == "scoring"
    g.play("done", seat=0)
    g.play("done", seat=1)
    assert g.result.reason == "passes"
    assert g.result.score == (9.0, 15.5)
    assert g.result.ranking == (2, 1)


def test_equal_scores_are_a_draw():
    """A11: with a whole-number komi the scores can be equal; the players share first place."""
    g = nieminen("3x3", komi=0)
    g.play("pass")
    g.play("pass")
    g.play("done", seat=0)
    g.play("done", seat=1)
    assert g.result.reason == "passes" and g.result.ranking == (1, 1) and g.result.score == (9.0, 9.0)


def test_territory_touching_both_colours_or_one_reads_as_before():
    g = nieminen("5x1", {"A1": 0, "C1": 0, "E1": 1})
    # B1 touches Black only; D1 touches both
    g.play("pass")
    g.play("pass")
    assert g.score() == [1.0, 6.5]


# --- the dispute play-out (N14) -----------------------------------------------------------------

WALLS = {**{f"C{r}": 0 for r in range(1, 6)}, **{f"D{r}": 1 for r in range(1, 6)}, "A3": 1}


def marking(setup: dict[str, int] = WALLS, board: str = "5x5") -> Game:
    """Black's wall on C, White's on D, a white invader at A3; both have passed."""
    g = nieminen(board, setup)
    g.play("pass")
    g.play("pass")
    assert g.phase == "scoring"
    return g


def test_dispute_owner_plays_first_and_the_captured_chain_is_removed():
    g = marking()
    g.play("dead A3", seat=0)
    g.play("dispute A3", seat=1)   # White, the owner, objects
    assert g.phase == "dispute" and g.to_move == 1 and not g.over
    assert g.dead == []
    for move in ["pass", "B3", "A2", "B2", "give", "A4", "give", "A1"]:
        g.play(move)
    assert g.stone_at("A3") is None and g.stone_at("A2") is None
    assert g.prisoners == [0, 4]   # two white stones captured, two given: Black holds 4
    assert g.why_illegal("pass") == "owner-cannot-pass"   # the play-out goes on until two passes
    g.play("give")
    g.play("pass")
    g.play("pass")
    assert g.phase == "scoring" and g.to_move is None
    g.play("done", seat=0)
    g.play("done", seat=1)
    assert g.result.reason == "passes"
    assert g.dead == []             # the captured chain is gone; nothing left to mark
    black_territory = 10 - 4        # A1 A4 B2 B3 stand; A2 A3 A5 B1 B4 B5 are Black's
    assert g.score() == [black_territory + 5.0, 5 + 6.5]   # two captured, three given


def test_the_owner_may_pass_only_first_or_after_an_attacker_pass():
    g = marking()
    g.play("dispute A3", seat=1)
    assert "pass" in g.legal_moves() and "give" not in g.legal_moves()
    g.play("A2")                    # the owner's first move may be a play
    g.play("B3")
    assert g.why_illegal("pass") == "owner-cannot-pass"
    assert "pass" not in g.legal_moves() and "give" in g.legal_moves()
    with pytest.raises(IllegalMove) as info:
        g.play("pass")
    assert "N14b" in str(info.value)
    g.play("give")
    g.play("pass")                  # the attacker passes: now the owner may pass
    assert g.legal_moves()[-1:] == ["pass"] and "give" not in g.legal_moves()
    g.play("pass")
    assert g.phase == "scoring"


@pytest.mark.parametrize("moves, seat, why", [
    ([], 1, "only in answer"),                     # the owner's first move: no play to answer
    (["pass", "pass"], None, "owner's answer"),    # the play-out is over: marking again
    (["pass", "B3"], 0, "only white"),             # the attacker never gives
    (["pass", "B4", "give", "pass"], 1, "only in answer"),  # after an attacker pass
])
def test_no_give(moves, seat, why):
    g = marking()
    g.play("dispute A3", seat=0)
    for move in moves:
        g.play(move)
    if not moves or moves[-1] != "B3":
        assert "give" not in g.legal_moves()
    with pytest.raises(IllegalMove) as info:
        g.play("give", seat=seat if g.to_move is not None else 0)
    assert info.value.reason.value == "no-give"
    assert why in str(info.value).lower()
    if not moves:
        assert g.why_illegal("give") == "no-give"


def test_give_in_marking_or_play_is_refused():
    g = nieminen("5x5")
    assert g.why_illegal("give") == "no-give"
    g = marking()
    assert g.why_illegal("give", 0) == "no-give"


def test_two_passes_end_the_play_out_and_the_survivor_is_alive_for_good():
    g = marking()
    g.play("dead D3", seat=0)
    g.play("dispute D3", seat=1)
    g.play("pass")      # White, the owner, first
    g.play("pass")      # Black refuses to try (N14c)
    assert g.phase == "scoring" and g.dead == []
    for move in ("dead D3", "dispute D1", "dead D5"):
        with pytest.raises(IllegalMove) as info:
            g.play(move, seat=0)
        assert info.value.reason.value == "proven-alive"
        assert "alive for good" in str(info.value)
    g.play("alive D3", seat=0)      # saying it lives is fine
    g.play("dead A3", seat=0)       # other chains are marked afresh
    g.play("done", seat=0)
    g.play("done", seat=1)
    assert g.result.reason == "passes"
    assert g.score() == [10.0 + 1, 5 + 6.5]


def test_a_proven_chain_captured_later_is_proven_no_more():
    """A8 locks the stones; once a later play-out captures them the points are free again."""
    g = marking({"E5": 0, "D5": 1, "C3": 0})
    g.play("dispute E5", seat=1)
    g.play("pass")
    g.play("pass")
    assert g.why_illegal("dead E5", 1) == "proven-alive"
    g.play("dispute C3", seat=1)    # Black's C3; White attacks and takes E5 on the way
    g.play("pass")
    g.play("E4")
    assert g.stone_at("E5") is None
    g.play("give")
    g.play("E5")                    # a white stone where the proven black one stood
    g.play("give")
    g.play("pass")
    g.play("pass")
    assert g.phase == "scoring"
    assert g.why_illegal("dead C3", 1) == "proven-alive"   # C3 was not captured
    assert g.why_illegal("dead E5", 0) is None


def test_dispute_and_marks_need_a_stone_and_the_marking_phase():
    g = marking()
    assert g.why_illegal("dispute B3", 0) == "bad-move"
    assert g.why_illegal("dispute Z9", 0) == "unknown-point"
    fresh = nieminen("5x5", WALLS)
    assert fresh.why_illegal("dispute A3", 0) == "not-scoring"
    g.play("dispute A3", seat=0)
    for move in ("dead C3", "done", "resume", "dispute C3", "alive C3"):
        assert g.why_illegal(move, 0) == "not-scoring", move


def test_dispute_superko_forbids_any_board_the_player_left(script):
    """N14a: in a play-out, Black's recapture would bring back the board he left two turns before
    the end of play (not his previous turn, so N7a alone allows it, as NIE-01's last move shows)."""
    g = nieminen("7x5", KO7)
    script(g, ["pass", "C3", "D3", "A1", "G5", "C3", "pass", "pass"])
    assert g.phase == "scoring"
    g.play("dispute C3", seat=0)    # White's stone in the ko; White first
    g.play("pass")
    assert g.why_illegal("D3") == "superko"
    with pytest.raises(IllegalMove, match="N14a"):
        g.play("D3")
    ordinary = nieminen("7x5", KO7)
    script(ordinary, ["pass", "C3", "D3", "A1", "G5", "C3", "pass", "pass"])
    ordinary.play("resume", seat=1)     # the same board in ordinary play: N7a alone
    assert ordinary.why_illegal("D3") is None


def test_give_is_the_board_the_owner_left(script):
    """A given stone ends the owner's turn: N7a then forbids bringing back that board."""
    g = nieminen("7x5", KO7)
    script(g, ["pass", "C3", "pass", "pass"])
    g.play("dispute C4", seat=1)    # Black's stone; Black first
    script(g, ["D3", "A1", "give", "C3", ("D3", "ko")])


def test_the_play_out_is_not_counted_for_no_result():
    """A9: N12 runs in ordinary play only (the dispute superko makes loops impossible there)."""
    g = marking()                   # (board, Black to move) has occurred twice: start, end of play
    g.play("dispute D3", seat=0)
    g.play("pass")
    g.play("pass")                  # a third time, in the play-out: not counted
    assert g.phase == "scoring" and g.result is None


def test_resuming_to_pass_again_on_the_same_board_is_a_loop():
    """Every play and pass of ordinary play counts, resumed play included, and N12 ends the game
    even when the pass would end play (N10): a resume-pass-pass loop on an unchanged board is
    the endless repetition of N12, and the game ends."""
    g = marking()                   # start and end of play: (board, Black to move) twice
    g.play("resume", seat=1)
    g.play("pass")
    assert g.result is None
    g.play("pass")
    assert g.result.reason == "no-result" and g.phase == "ended"


# --- resumption (N11, A4) ---------------------------------------------------------------------

def test_resume_gives_the_first_move_to_the_askers_opponent():
    g = marking()
    g.play("resume", seat=1)
    assert g.phase == "play" and g.to_move == 0


def test_both_ask_the_one_who_passed_last_does_not_move():
    g = marking()                   # Black passed, then White: White passed last
    g.play("resume", seat=0)        # Black asks: White would move
    assert g.to_move == 1
    g.play("resume", seat=1)        # White asks too, as his first action
    assert g.to_move == 0 and g.phase == "play"
    assert g.why_illegal("resume", 0) == "not-scoring"   # the second clause is spent
    g.play("B4")
    assert g.why_illegal("resume", 1) == "not-scoring"


def test_both_ask_when_the_asker_passed_last():
    g = marking()
    g.play("resume", seat=1)        # White (who passed last) asks: Black moves
    g.play("resume", seat=0)        # Black asks too: still Black, who did not pass last
    assert g.to_move == 0
    assert [p.move for p in g.history[-2:]] == ["resume", "resume"]


def test_the_second_resume_must_be_the_first_action():
    g = marking()
    g.play("resume", seat=0)
    assert g.why_illegal("resume", 0) == "not-scoring"   # the asker himself
    g.play("B4", seat=1)
    assert g.why_illegal("resume", 0) == "not-scoring"


def test_disputes_and_resumption_replay_and_copy():
    g = marking()
    g.play("dispute A3", seat=0)
    for move in ["pass", "B3", "give", "pass", "pass"]:
        g.play(move)
    g.play("resume", seat=0)
    g.play("resume", seat=1)
    c = g.copy()
    c.play("A4")
    assert g.stone_at("A4") is None and g.to_move == 0
    again = Game.from_record(g.to_record())
    assert again.stones() == g.stones() and again.to_move == g.to_move and again.prisoners == g.prisoners
    assert again.legal_moves() == g.legal_moves()
