"""Jasiek's New Ko Rules: the parts of the disturber and prohibition rules and of "disturbing a
disturbing ko" (J16) that test_jasiek_nkr.py leaves open, each played through ``Game`` on a
position built for it:

- the disturber rule's takeover: "If the disturber is not allowed to disturb the disturbing ko
  and the ko stone move-sequence in the disturbing ko continues and leads to a disturbing move by
  the other player, then the disturber ceases to exist and the other player becomes the
  disturber", and the prohibition rule's note on what follows ("when he ceases, a play on the
  rest of the board is necessary for another disturber in the ko position");
- J16 (a)'s exception: a ko stone in stable disturbing life that reduces an opponent string's
  breaths does not disturb when it "is adjacent to triple ko stones and not adjacent to a ko stone
  of its colour" (reconstructed shapes: triple ko stones need them);
- the prohibition rule's exception: "the first played ko stone in a fighting ko is ignored", per
  class and fighting ko whoever played it (J-A14), which "guarantees the player that is the first
  to have played a ko stone in a fighting ko to play again a ko stone in that fighting ko once";
- NKR-13 beyond its first refusal: "each step of the cycle then needs a ko threat".

Boards are graphs in the spec's gadget convention (see test_jasiek_nkr.py): main strings of two
nodes ``s``-``s'``, a ko between black ``b`` and white ``w`` is ``b-xK-yK-w`` (white-held: a stone
on ``xK``; black-held: on ``yK``), an eye ``e`` is a node joined only to its string; spare moves
elsewhere are ``tK``-``lK`` and ``sK``-``mK``.
"""

from __future__ import annotations

import pytest

from polygo.rules import Board, Game, IllegalMove

from .ko_gadgets import BLACK, WHITE, Gadget, eternal

def refused(g: Game, move: str) -> IllegalMove:
    """The refusal of ``move`` (``why_illegal`` must agree with ``play``)."""
    with pytest.raises(IllegalMove) as info:
        g.play(move)
    assert g.why_illegal(move) == info.value.reason.value
    return info.value


def the_ko(g: Game) -> dict:
    (ko,) = [k for k in g.ko_analysis() if k["coupling"]]
    return ko


def disturber(g: Game) -> tuple[int | None, bool]:
    ko = the_ko(g)
    return ko["disturber"], ko["disturber_barred"]


# --- the disturber rule's takeover ------------------------------------------------------------

def four_kos() -> Game:
    """Four kos coupling b (one eye) and w (none), kos 1 and 2 white-held, 3 and 4 black-held,
    White to play. Whoever holds a ko takes a breath from the other string, so b has 3 breaths
    (x3, x4, its eye) and w 2 (y1, y2); every capture moves one breath from one string to the
    other. In the sequences below each player holds one or two kos, so b and w keep two or three
    breaths and the ko position stays in stable disturbing life (the test checks it), and every
    ko stone move in it takes a breath from the opponent's string, so every one disturbs (J16 a)."""
    gad = Gadget()
    gad.string("b", BLACK, eyes=1)
    gad.string("w", WHITE)
    for k, seat in enumerate((WHITE, WHITE, BLACK, BLACK), 1):
        gad.ko(k, "b", "w", seat)
    gad.open_space()
    g = gad.game()
    g.play("pass")
    return g


def holders(g: Game) -> str:
    """Who holds each of the four kos, e.g. ``WWBB``."""
    stones = g.stones()
    return "".join("W" if stones.get(f"x{k}") == WHITE else "B" if stones.get(f"y{k}") == BLACK else "."
                   for k in range(1, 5))


def test_a_barred_disturber_is_taken_over_by_the_other_players_disturbing_move() -> None:
    """R3: White disturbs first and becomes the disturber; Black's disturbing answers do not
    make him one ("Only one player can be disturber at the same time"). White's x2 brings back
    the stones of the ko position as they were after his x3, so White may not disturb any more;
    the sequence goes on and Black disturbs with y1: White ceases and Black becomes the disturber.
    Black's record of repetitions starts just before his own disturbing move: the stones after
    his y1 had been there before (after move 2), during White's time, yet Black is not barred."""
    g = four_kos()
    assert the_ko(g)["type"] == "disturbing-life" and the_ko(g)["state"] == "stable"
    assert holders(g) == "WWBB"
    g.play("x3")
    assert disturber(g) == (WHITE, False)
    g.play("y1")
    after_move_2 = holders(g)
    assert disturber(g) == (WHITE, False)          # Black disturbed, but White is the disturber
    for move in ("x4", "y2", "x1", "y4"):
        g.play(move)
        assert disturber(g) == (WHITE, False)
        assert the_ko(g)["state"] == "stable"
    g.play("x2")
    assert holders(g) == "WWWB"                    # as after White's x3: a repetition
    assert disturber(g) == (WHITE, True)
    g.play("y1")                                   # Black disturbs: the takeover
    assert disturber(g) == (BLACK, False)
    assert holders(g) == after_move_2
    # the sequence ends with White's pass, and the disturber with it (J-A12)
    assert g.why_illegal("x1") == "basic-ko" and g.why_illegal("x4") == "prohibition"
    g.play("pass")
    assert disturber(g) == (None, False)


def test_after_both_players_were_disturber_a_play_on_the_rest_of_the_board_is_needed() -> None:
    """R4 and its note: "In a disturbing life a first player might become the disturber, then
    cease to be disturber, then ... the second possibly could become the disturber, but when he
    ceases, a play on the rest of the board is necessary for another disturber in the ko
    position." After the takeover above, Black may not become disturber again from this class
    (y3 would disturb; Black never played a stone on y3, so the refusal is for becoming
    disturber); Black's play on the rest of the board makes a new class, and there White
    becomes the disturber again."""
    g = four_kos()
    for move in ("x3", "y1", "x4", "y2", "x1", "y4", "x2", "y1", "pass"):
        g.play(move)
    assert disturber(g) == (None, False)
    err = refused(g, "y3")
    assert err.reason.value == "prohibition"
    assert "already become the disturber of this disturbing ko" in str(err)
    kos_before = g.ko_analysis()
    g.play("f2")                                   # the rest of the board: a new class
    assert [k["points"] for k in g.ko_analysis()] == [k["points"] for k in kos_before]
    g.play("x1")
    assert disturber(g) == (WHITE, False)


# --- J16 (a): the triple ko stones exception (reconstructed shapes) -----------------------------

def triple_in_a_coupled_mouth() -> Game:
    """R: a 4-in-a-row mouth p1-p2-p3-A split 3+1 and a two-point ko couple b and w. Black's
    triple ko stones p1 p2 p3 sit on the side walled by w, with their one breath A, which is
    walled by b; the two-point ko (x1 y1) is white-held. b and w have two eyes each, so no single
    move takes either to one breath: the ko position is in stable disturbing life (J6)."""
    gad = Gadget()
    gad.string("b", BLACK, eyes=2)
    gad.string("w", WHITE, eyes=2)
    for a, c in (("p1", "p2"), ("p2", "p3"), ("p3", "A"), ("A", "b"), ("p1", "w"), ("p2", "w"), ("p3", "w'")):
        gad.edge(a, c)
    for p in ("p1", "p2", "p3"):
        gad.node(p, BLACK)
    gad.ko(1, "b", "w", WHITE)
    gad.spares(1)
    return gad.game(ko_shapes="reconstructed")


def test_triple_ko_stones_position_is_one_stable_disturbing_life() -> None:
    """R: the two mouths have exactly {b, w} as adjacent strings, so they are one ko position
    with that ko coupling (J4, J5), and it is in stable disturbing life."""
    g = triple_in_a_coupled_mouth()
    ko = the_ko(g)
    assert ko["mouths"] == [["p1", "p2", "p3", "A"], ["x1", "y1"]]
    assert ko["coupling"] == ["b", "w"]
    assert (ko["type"], ko["state"]) == ("disturbing-life", "stable")


def test_j16a_a_ko_stone_next_to_opposing_triple_ko_stones_does_not_disturb() -> None:
    """R, J16 (a): White's A captures the triple ko stones and takes a breath from b, but A "is
    adjacent to triple ko stones and not adjacent to a ko stone of its colour", so White does
    not disturb and becomes no disturber ("A player is always compelled to prohibit two eyes
    within a prior ko mouth"). Adjacency is judged on the position before the move, as every
    part of J16 is (J-A11): on the board after it the captured triple is gone, and the
    exception could never apply to a stone that captures it."""
    g = triple_in_a_coupled_mouth()
    g.play("pass")
    g.play("A")
    assert g.stones().keys().isdisjoint({"p1", "p2", "p3"})     # captured
    ko = the_ko(g)
    assert ko["mouths"] == [["p1", "p2", "p3", "A"], ["x1", "y1"]]  # the same ko position
    assert ko["disturber"] is None


def test_j16a_without_triple_ko_stones_the_same_position_is_disturbed() -> None:
    """R, J16 (a), the rule itself beside its exception: in the same ko position Black's y1
    captures the single ko stone x1 and takes a breath from w; no triple ko stones are next to
    it, so Black disturbs and becomes the disturber."""
    g = triple_in_a_coupled_mouth()
    g.play("y1")
    assert disturber(g) == (BLACK, False)


# --- R4: the first ko stone in a fighting ko ---------------------------------------------------

def robin() -> Game:
    """ROBIN: a ring B1, W1, B2, W2 (each with one eye), kos 1 (B1|W1) white-held, 2 (B2|W1)
    black-held, 3 (B2|W2) white-held, 4 (B1|W2) black-held: four fighting kos."""
    gad = Gadget()
    for name, seat in (("B1", BLACK), ("W1", WHITE), ("B2", BLACK), ("W2", WHITE)):
        gad.string(name, seat, eyes=1)
    gad.ko(1, "B1", "W1", WHITE)
    gad.ko(2, "B2", "W1", BLACK)
    gad.ko(3, "B2", "W2", WHITE)
    gad.ko(4, "B1", "W2", BLACK)
    gad.open_space()
    return gad.game()


def test_prohibition_the_first_ko_stone_lets_its_player_play_in_that_ko_once_more() -> None:
    """R4's exception, per class and fighting ko whoever played it (J-A14). Every move of the
    round robin keeps the class (only ko points change). Black played the first ko stone in kos
    1 and 3, White in kos 2 and 4; those are ignored, so in the second round each first player
    plays again in his ko (y1 x2 y3 x4), while the other, whose one stone there counted, may
    not: Black's y2 (ko 2) and White's x1 and x3 (kos 1 and 3) are refused. After White's stone
    on the rest of the board the class is new (the same ko positions, other stones outside
    them), and Black's y2 is again the first ko stone in ko 2 from it, so it is allowed."""
    g = robin()
    assert {k["type"] for k in g.ko_analysis()} == {"fighting"}
    for move in "y1 x2 y3 x4 y2 x1 y4 x3".split():   # round 1: the board repeats
        g.play(move)
    for move in "y1 x2 y3 x4".split():               # round 2: the first players again
        assert g.why_illegal(move) is None, move
        g.play(move)
    err = refused(g, "y2")
    assert err.reason.value == "prohibition"
    assert "already played a ko stone in this fighting ko" in str(err)
    g.play("pass")
    assert refused(g, "x1").reason.value == "prohibition"
    assert refused(g, "x3").reason.value == "prohibition"
    g.play("f2")                                      # the rest of the board: a new class
    assert [k["points"] for k in g.ko_analysis()] == [[f"x{k}", f"y{k}"] for k in range(1, 5)]
    assert g.why_illegal("y2") is None
    g.play("y2")                                      # captures the single ko stone x2
    assert g.stones().get("y2") == BLACK and "x2" not in g.stones() and "W1" in g.stones()


# --- NKR-13 played on ----------------------------------------------------------------------------

def test_nkr_13_each_step_of_eternal_life_needs_a_ko_threat() -> None:
    """R, NKR-13: with the reconstructed shapes eternal life Q-P-R-T is a fighting ko, and "each
    step of the cycle then needs a ko threat": after each ko stone the opponent's next move may
    not be a ko stone in it (R2); after an exchange elsewhere it may."""
    g = eternal().game(ko_shapes="reconstructed")

    def cycle() -> dict:
        (ko,) = [k for k in g.ko_analysis() if k["points"] == ["Q", "P", "R", "T"]]
        return ko

    assert cycle()["type"] == "fighting"
    g.play("Q")
    assert refused(g, "R").reason.value == "fighting" and cycle()["fighting_bar"] == WHITE
    g.play("t1")                                      # White's threat
    g.play("s1")                                      # Black answers
    g.play("R")                                       # the step
    assert cycle()["type"] == "fighting"
    assert refused(g, "Q").reason.value == "fighting" and refused(g, "P").reason.value == "fighting"
    g.play("s2")                                      # Black's threat
    g.play("t2")
    g.play("P")
    assert refused(g, "R").reason.value == "fighting" and refused(g, "T").reason.value == "fighting"


# --- the two-point mouth on a torus; the analysis kept incrementally ----------------------------

def test_two_point_mouth_across_the_seam_of_a_torus() -> None:
    """Spec, Boards: "On grids and tori the 2-point shape is exactly the structural test".
    A3 and E3 are neighbours across the seam of a 5x5 torus: White's A3 with Black on its other
    neighbours, E3 empty with White on its other ones, is a ko mouth, a fighting ko, and Black's
    capture at E3 may not be recaptured at once (R1)."""
    g = Game(Board.torus(5, 5), rules="jasiek-nkr",
             setup={"A3": 1, "A4": 0, "A2": 0, "B3": 0, "E4": 1, "E2": 1, "D3": 1})
    (ko,) = g.ko_analysis()
    assert (ko["mouths"], ko["type"]) == ([["A3", "E3"]], "fighting")
    g.play("E3")
    assert "A3" not in g.stones()
    assert refused(g, "A3").reason.value == "basic-ko"


def test_a_play_away_from_every_ko_classifies_no_ko_position_again() -> None:
    """Issue 8: "the analysis must stay incremental (recompute only ko positions touched by a
    move)". With three simple kos on a 19x19 board, a play far from them computes no type
    again; after a capture in one ko, reading every type computes that ko's only (it read none
    of the others' points), and the kept analysis still equals one made from scratch."""
    from polygo.rules.repetition.jasiek.analysis import Analysis
    columns = "ABCDEFGHJKLMNOPQRST"
    setup: dict[str, int] = {}
    for c in (2, 9, 14):                            # the KO7 shape at C, K and P, White's stone in each mouth
        for dx, y, seat in ((0, 4, 0), (-1, 3, 0), (0, 2, 0), (1, 4, 1), (2, 3, 1), (1, 2, 1), (0, 3, 1)):
            setup[f"{columns[c + dx]}{y}"] = seat
    g = Game(Board.standard(19), rules="jasiek-nkr", setup=setup)
    assert len(g.ko_analysis()) == 3
    analysis = g._rule.analysis
    before = analysis.classified
    g.play("K15")
    assert analysis.classified == before
    g.play("pass")
    g.play("D3")                                    # Black captures in the first ko
    g.ko_analysis()                                 # every type read (a type is worked out when read)
    assert analysis.classified - before == 1
    fresh = Analysis(g._rule.shapes)
    fresh.rebuild(g.position, g._rule.had_two)
    assert (analysis.kos, analysis.kinds) == (fresh.kos, fresh.kinds)



def test_stones_taken_off_beside_a_coupling_string_are_watched_as_its_liberties() -> None:
    """The grouping reads the strings beside the mouths; a string's new liberties, freed by a
    capture or a suicide away from every point the grouping read, are watched too. Here E4-E5
    and D5-E5 are one ko position coupled by Black's big string; White's multi-stone suicide
    at E1 frees D2 and E2 beside it, and Black's stone on E2 then joins that string (its lowest
    point, the coupling's name, changes): the kept analysis still equals one from scratch."""
    from polygo.rules.repetition.jasiek.analysis import Analysis
    picture = """
        5 . X X O .
        4 X X X X O
        3 . X . X X
        2 X . X O O
        1 X X X X .
          A B C D E
    """
    setup = {}
    for line in picture.strip().splitlines()[:-1]:
        row, *cells = line.split()
        for column, cell in zip("ABCDE", cells):
            if cell != ".":
                setup[f"{column}{row}"] = BLACK if cell == "X" else WHITE
    g = Game(Board.grid(5, 5), rules="jasiek-nkr", setup=setup)
    assert [k["points"] for k in g.ko_analysis()] == [["E4", "D5", "E5"]]
    g.play("pass")
    g.play("E1")                                    # White's D2-E2-E1 has no breath: taken off
    assert g.stones().keys().isdisjoint({"D2", "E2", "E1"})
    g.play("E2")
    fresh = Analysis(g._rule.shapes)
    fresh.rebuild(g.position, g._rule.had_two)
    assert (g._rule.analysis.kos, g._rule.analysis.kinds) == (fresh.kos, fresh.kinds)

# --- single disturbing death (J12) and disturbing it (J16 d) -----------------------------------

def test_single_disturbing_death_only_the_owner_of_the_dead_string_disturbs_it() -> None:
    """J12, J16 (d): a lone ko between b (two eyes) and w (one eye). With White's ko stone on x1
    the string next to it, b, has two breaths; with a black stone on y1 the string next to it,
    w, would have one (its eye) and no move of White's that neither captures the ko stone nor
    fills one of w's breaths gives it a second: a single disturbing death, w "on the verge of
    immediate removal". Black's capture y1 does not disturb (b has its two breaths whatever Black
    plays); White's recapture x1, after an exchange elsewhere lifts the basic ko rule, disturbs,
    since no other White move would have given w two breaths, and White becomes the disturber
    ("Only the owner of the so called dead strings can be called to be disturbing")."""
    gad = Gadget()
    gad.string("b", BLACK, eyes=2)
    gad.string("w", WHITE, eyes=1)
    gad.ko(1, "b", "w", WHITE)
    gad.spares(1)
    g = gad.game()

    def ko() -> dict:
        (k,) = [k for k in g.ko_analysis() if k["points"] == ["x1", "y1"]]
        return k

    assert (ko()["coupling"], ko()["type"], ko()["state"]) == ([], "disturbing-death", "single")
    g.play("y1")
    assert (ko()["type"], ko()["disturber"]) == ("disturbing-death", None)
    assert refused(g, "x1").reason.value == "basic-ko"
    g.play("t1")
    g.play("s1")
    g.play("x1")
    assert (ko()["type"], ko()["disturber"]) == ("disturbing-death", WHITE)


@pytest.mark.parametrize("moves", [
    # a lone stone put in atari first (C4), its breath D3 walled later by plays on the points
    # watched while asleep (D4, D2: the rule's walls, seen by ``walled``)
    ["B3", "C3", "C2", "E3", "C4", "D4", "G7", "D2"],
    # the same wall made by a capture (D2 takes D1 off: ``_captured_quietly``)
    ["B3", "C3", "C2", "E3", "C4", "D4", "D1", "C1", "G7", "E1", "G6", "D2"],
    # a lone stone placed in atari with its breath already walled (alone, the stone is S)
    ["B3", "E3", "C2", "D4", "C4", "D2", "G7", "C3"],
    # an opponent's lone stone put in atari with its breath already walled (S beside the play)
    ["B3", "C3", "C2", "E3", "G7", "D4", "G6", "D2", "C4"],
], ids=["walled-later", "walled-by-a-capture", "placed-in-atari", "put-in-atari"])
def test_a_mouth_made_while_the_rule_is_quiet_is_seen(moves: list[str]) -> None:
    """Issue 13's seventh round: with no mouth on the board the quick path does not call the
    rule; each way a two-point mouth can come (C3-D3 here, White's stone on C3) still reaches
    it, and the kept analysis equals one made from scratch; Black's capture at D3 then makes a
    basic ko."""
    from polygo.rules.repetition.jasiek.analysis import Analysis
    g = Game(Board.standard(9), rules="jasiek-nkr")
    for move in moves[:-1]:
        g.play(move)
    assert g.ko_analysis() == [] and g._rule.mouth_watch is not None
    g.play(moves[-1])
    assert [k["points"] for k in g.ko_analysis()] == [["C3", "D3"]]
    fresh = Analysis(g._rule.shapes)
    fresh.rebuild(g.position, g._rule.had_two)
    assert (g._rule.analysis.kos, g._rule.analysis.class_key) == (fresh.kos, fresh.class_key)
    if g.to_move == 1:
        g.play("pass")
    g.play("D3")
    assert refused(g, "C3").reason.value == "basic-ko"


def _seeded_verdicts(board: Board, shapes: str, seed: int, reads: bool) -> list:
    """Every move's outcome of a seeded random jasiek-nkr game, and with ``reads`` every empty
    point's verdict and the ko analysis after each move (else only every tenth move: a ko
    type no verdict asked for stays unread in between)."""
    import random
    rng = random.Random(seed)
    g = Game(board, rules="jasiek-nkr", ko_shapes=shapes)
    out: list = []
    last: list[str] = []
    for k in range(80):
        if g.to_move is None:
            break
        empty = [p for p in board.points if g.stone_at(p) is None]
        near = [q for p in last[-2:] for q in board.neighbours(p) if g.stone_at(q) is None]
        move = rng.choice(near if near and rng.random() < 0.8 else empty or ["pass"])
        try:
            g.play(move)
            out.append(move)
            last.append(move)
        except IllegalMove as exc:
            out.append(str(exc))
        if reads or k % 10 == 9:
            out.append([g.why_illegal(p) for p in board.points if g.stone_at(p) is None])
            out.append(g.ko_analysis())
    return out


@pytest.mark.parametrize("shapes", ["two-point", "reconstructed"])
def test_a_ko_type_worked_out_when_read_gives_the_verdicts_of_working_it_out_at_once(
        shapes: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13's eighth round: a ko stone move whose type nobody has read keeps R4's action and
    R2-R3's state unclassified until a verdict or ko_analysis reads them (the ko captures of the
    records never are). Seeded random games on small boards, read after every move or seldom,
    give the same moves, refusals, verdicts and analyses as with every type worked out at once."""
    from polygo.rules.repetition.jasiek.analysis import Kinds
    boards = [Board.parse(spec) for spec in ("4x3", "4x4", "5x4", "torus:4x4")]
    cases = [(b, seed, reads) for b in boards for seed in range(6) for reads in (True, False)]
    lazy = [_seeded_verdicts(b, shapes, seed, reads) for b, seed, reads in cases]
    monkeypatch.setattr(Kinds, "known", Kinds.__getitem__)   # every type known: worked out at once
    assert lazy == [_seeded_verdicts(b, shapes, seed, reads) for b, seed, reads in cases]
