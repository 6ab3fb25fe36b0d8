"""Kee rules 15 and 16 where players drop out or propose rankings (bugs found in issue 7)."""

import pytest

from polygo.rules import Board, Game, IllegalMove


def test_a_player_who_dropped_out_does_not_count_toward_every_player_passing():
    """3 players on 3x3: A1 pass pass, then White resigns. Black, still playing, has not passed
    since his stone, so the game goes on and Black gets the pass that rule 15 asks of him."""
    g = Game(Board.grid(3, 3), rules="kee", players=3)
    for move in ("A1", "pass", "pass"):
        g.play(move)
    g.play("resign", seat=1)
    assert not g.over and g.to_move == 0
    g.play("pass")
    assert g.over and g.result is None and g.phase == "scoring"


def test_passes_of_a_dropped_player_do_not_end_the_game_for_the_others():
    g = Game(Board.grid(3, 3), rules="kee", players=3)
    for move in ("A1", "B1", "pass"):
        g.play(move)
    g.play("timeout", seat=2)
    assert not g.over and g.to_move == 0
    g.play("pass")
    assert not g.over and g.to_move == 1
    g.play("pass")
    assert g.phase == "scoring"


@pytest.mark.parametrize("ranking", ["rank 2 2 2", "rank 1 1 2", "rank 1 3 3", "rank 3 3 3"])
def test_a_ranking_must_place_someone_first_and_share_places_as_ties_do(ranking):
    g = Game(Board.grid(3, 3), rules="kee", players=3)
    with pytest.raises(IllegalMove) as exc:
        g.play(ranking, seat=0)
    assert exc.value.reason.value == "bad-ranking"
    assert g.proposal is None


@pytest.mark.parametrize("ranking", ["rank 1 2 3", "rank 1 2 2", "rank 1 1 3", "rank 1 1 1", "rank 2 1 3"])
def test_rankings_with_ties_as_the_ranking_gives_them_are_accepted(ranking):
    g = Game(Board.grid(3, 3), rules="kee", players=3)
    g.play(ranking, seat=0)
    assert g.proposal == tuple(int(w) for w in ranking.split()[1:])


@pytest.mark.parametrize("rules, move", [("chinese", "dispute B2"), ("chinese", "give"), ("kee", "dispute B2")])
def test_a_word_of_another_ending_procedure_is_refused_not_read_as_a_mark(rules, move):
    """`dispute` belongs to Nieminen's procedure: elsewhere it once unmarked the chain."""
    g = Game(Board.grid(3, 3), rules=rules)
    for m in ("B2", "pass", "pass", "dead B2"):
        g.play(m, seat=1 if m.startswith("dead") else None)
    assert g.why_illegal(move, 0) == "bad-move"
    with pytest.raises(IllegalMove):
        g.play(move, seat=0)
    assert g.dead == ["B2"]
