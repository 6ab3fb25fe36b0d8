"""The marking answers of polygo.client.marking, move by move, on games built with polygo.rules."""

from polygo.rules import Board, Game

from polygo.client.marking import Marking, chain_at, marking_move


def scoring(moves: list[tuple[int, str]]) -> Game:
    """A 5x5 Chinese game: Black C3 C4, White A1, both pass, then `moves` (seat, move)."""
    game = Game(Board.parse("5x5"), rules="chinese", players=2)
    for seat, move in [(0, "C3"), (1, "A1"), (0, "C4"), (1, "pass"), (0, "pass"), *moves]:
        game.play(move, seat=seat)
    return game


def test_chain_at_follows_the_stones():
    game = scoring([])
    assert chain_at(game, "C3") == {"C3", "C4"} and chain_at(game, "B2") == frozenset()


def test_a_chain_the_bot_calls_dead_is_marked_once():
    assert marking_move(scoring([]), 0, ["A1"]) == Marking("dead A1")
    assert marking_move(scoring([(0, "dead A1")]), 0, ["A1"]) == Marking("done")


def test_a_mark_on_a_chain_the_bot_calls_alive_is_contested_then_played_out():
    marked = scoring([(1, "dead C4")])
    assert marking_move(marked, 0, []) == Marking("alive C3")  # the chain's first point, whole chain
    again = scoring([(1, "dead C4"), (0, "alive C3"), (1, "dead C3")])
    assert marking_move(again, 0, []) == Marking("resume")


def test_after_the_play_outs_allowed_the_marks_are_accepted_under_protest():
    moves = [(1, "dead C4"), (0, "alive C3"), (1, "dead C3"), (0, "resume"), (1, "pass"), (0, "pass"),
             (1, "dead C4"), (0, "alive C3"), (1, "dead C3")]
    game = scoring(moves)
    assert marking_move(game, 0, [], max_resumes=2) == Marking("resume")
    answer = marking_move(game, 0, [], max_resumes=1)
    assert answer.move == "done" and "under protest" in answer.protest and "C3" in answer.protest
    assert marking_move(game, 0, [], max_resumes=None) == Marking("resume")


def test_no_view_accepts_any_marks():
    assert marking_move(scoring([(1, "dead C4")]), 0, None) == Marking("done")
