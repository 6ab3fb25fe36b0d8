"""SGF export: what sgfmill and GNU Go read back must be the game the engine played."""

from __future__ import annotations

import os
import subprocess

import pytest
from importlib.metadata import version

from sgfmill import common, sgf, sgf_moves

from polygo.rules import Board, Game
from polygo.rules.sgf import sgf_point, to_sgf

GNUGO = "/usr/games/gnugo"

# A Kee game on 9x9 with a ko: Black takes at D2, White's recapture at C2 is a cycle, White appeals,
# Black passes, so Black's D2 (and the appeal and the pass) are rescinded; Black plays G7 instead.
KEE_KO = ["B2", "D3", "C3", "D1", "C1", "E2", "H8", "C2", "D2", "appeal C2", "pass", "G7", "E5", "resign"]


def played(board: str = "9x9", rules: str = "kee", moves: list[str] = KEE_KO, **options) -> Game:
    game = Game(Board.parse(board), rules=rules, players=2, **options)
    for move in moves:
        game.play(move)
    return game


def live_moves(game: Game) -> list[tuple[str, str | None]]:
    """(colour, GTP point or None for a pass) of every live turn play, as sgfmill reports them."""
    out = []
    for play in game.history:
        word = play.move.split()[0]
        if play.rescinded or word in ("resign", "timeout", "dead", "done", "rank", "accept", "reject"):
            continue
        out.append(("bw"[play.seat], None if word in ("pass", "appeal") else play.move))
    return out


def sgfmill_view(text: str) -> tuple[sgf.Sgf_game, list[tuple[str, str]], list[tuple[str, str | None]]]:
    game = sgf.Sgf_game.from_string(text)
    board, plays = sgf_moves.get_setup_and_moves(game)
    setup = sorted((colour, common.format_vertex((row, col))) for colour, (row, col) in board.list_occupied_points())
    moves = [(colour, None if move is None else common.format_vertex(move)) for colour, move in plays]
    return game, setup, moves


def test_kee_game_with_rescission_loads_in_sgfmill():
    game = played()
    text = to_sgf(game.to_record())
    tree, setup, moves = sgfmill_view(text)
    root = tree.get_root()
    assert tree.get_size() == 9
    assert root.get("FF") == 4 and root.get("GM") == 1 and root.get("RU") == "kee"
    assert root.get("RE") == "W+R"  # Black, to move after E5, resigns
    assert setup == []
    assert moves == live_moves(game)
    assert ("b", "D2") not in moves and ("b", "G7") in moves
    g7 = next(node for node in tree.get_main_sequence() if node.get_move() == ("b", (6, 6)))
    assert g7.get("C") == "Rescinded (Kee rules 13-14): B D2, W appeal C2, B pass"


def test_appeal_is_a_pass_with_a_comment():
    game = played(moves=["B2", "D3", "C3", "D1", "C1", "E2", "H8", "C2", "D2", "appeal C2", "G7"])
    tree, _, moves = sgfmill_view(to_sgf(game.to_record()))
    assert moves[-2:] == [("w", None), ("b", "G7")]
    assert tree.get_main_sequence()[-2].get("C") == "appeal C2"


def test_fixed_handicap_setup_stones_and_komi():
    game = played("19", "chinese", ["Q3", "pass", "pass"], handicap=4, komi=0.5, setup={"K10": 1})
    record = {**game.to_record(), "names": ["Ann", "Bo]b"], "date": "2026-11-21"}
    tree, setup, moves = sgfmill_view(to_sgf(record))
    root = tree.get_root()
    assert root.get("HA") == 4 and root.get("KM") == 0.5 and root.get("PL") == "w"
    assert root.get("PB") == "Ann" and root.get("PW") == "Bo]b" and root.get("DT") == "2026-11-21"
    assert setup == sorted([("b", "D4"), ("b", "Q16"), ("b", "D16"), ("b", "Q4"), ("w", "K10")])
    assert moves == [("w", "Q3"), ("b", None), ("w", None)]


def test_a_missing_name_is_the_seat_name():
    record = {**played(moves=["E5"]).to_record(), "names": [None, "Bob"]}
    root = sgf.Sgf_game.from_string(to_sgf(record)).get_root()
    assert root.get("PB") == "black" and root.get("PW") == "Bob"


def test_free_handicap_becomes_setup_stones():
    game = played("9x9", "chinese", ["C3", "G7", "E5", "pass"], handicap=2, handicap_mode="free")
    _, setup, moves = sgfmill_view(to_sgf(game.to_record()))
    assert setup == [("b", "C3"), ("b", "G7")]
    assert moves == [("w", "E5"), ("b", None)]


def test_store_move_entries_and_lasker_maas_result():
    game = played("9", "lasker-maas", ["E5", "pass", "pass", "pass", "pass"])
    record = game.to_record()
    record["moves"] = [[seat, move, 7, False] for seat, move in record["moves"]]
    tree, _, moves = sgfmill_view(to_sgf(record))
    assert moves == [("b", "E5"), ("w", None), ("b", None), ("w", None), ("b", None)]
    assert tree.get_root().get("RE") == ("B+" if game.result.ranking[0] == 1 else "W+") + _margin(game)


def _margin(game: Game) -> str:
    black, white = game.result.score
    margin = abs(black - white)
    return "" if margin == 0 else (str(int(margin)) if margin.is_integer() else str(margin))


def test_rectangular_grid_writes_two_sizes():
    text = to_sgf(played("7x5", "chinese", ["A1", "G5"]).to_record())
    assert "SZ[7:5]" in text and ";B[ae]" in text and ";W[ga]" in text


def test_points_are_counted_from_the_top_left_skipping_i():
    board = Board.grid(19, 19)
    assert sgf_point("A1", board) == "as"
    assert sgf_point("T19", board) == "sa"
    assert sgf_point("J10", board) == "ij"
    with pytest.raises(ValueError, match="not a point"):
        sgf_point("Z3", board)


@pytest.mark.parametrize("board", ["torus:9x9", "hex5", {"points": ["a", "b"], "edges": [["a", "b"]]}])
def test_non_grid_boards_are_refused(board):
    record = {"board": board, "rules": "kee", "players": ["black", "white"], "options": {}, "moves": []}
    with pytest.raises(ValueError, match="grids only"):
        to_sgf(record)


def test_three_players_are_refused():
    record = Game(Board.grid(9, 9), rules="kee", players=3).to_record()
    with pytest.raises(ValueError, match="two-player games only; this game has 3"):
        to_sgf(record)


def test_a_record_that_does_not_replay_is_refused():
    record = played(moves=["E5"]).to_record()
    record["moves"].append([1, "E5"])
    with pytest.raises(ValueError, match="does not replay"):
        to_sgf(record)


@pytest.mark.gnugo
@pytest.mark.skipif(not os.path.exists(GNUGO), reason="GNU Go is not installed at /usr/games/gnugo")
@pytest.mark.parametrize("case", ["kee-ko", "handicap"])
def test_gnugo_loads_the_sgf_and_sees_the_same_position(tmp_path, case):
    if case == "kee-ko":
        game = played()
    else:
        game = played("13", "chinese", ["C3", "K3", "pass"], handicap=3, komi=0.5, setup={"G7": 1})
    path = tmp_path / "game.sgf"
    path.write_text(to_sgf(game.to_record()), encoding="utf-8")
    commands = f"loadsgf {path}\nlist_stones black\nlist_stones white\nquit\n"
    out = subprocess.run([GNUGO, "--mode", "gtp"], input=commands, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    replies = [block.strip() for block in out.split("\n\n") if block.strip()]
    assert replies[0].startswith("="), replies
    stones = game.stones()
    expect_black = sorted(p for p, s in stones.items() if s == 0)
    expect_white = sorted(p for p, s in stones.items() if s == 1)
    assert sorted(replies[1].lstrip("= ").split()) == expect_black
    assert sorted(replies[2].lstrip("= ").split()) == expect_white


def test_a_resumed_game_exports():
    """``resume`` used to be read as a point name, so any game where play resumed failed to export."""
    game = played("9x9", "japanese", ["D4", "pass", "pass"])
    game.play("resume", seat=0)
    for move in ["E5", "pass", "pass"]:
        game.play(move)
    game.play("done", seat=0)
    game.play("done", seat=1)
    tree, _, moves = sgfmill_view(to_sgf(game.to_record()))
    assert moves == [("b", "D4"), ("w", None), ("b", None), ("w", "E5"), ("b", None), ("w", None)]
    e5 = next(node for node in tree.get_main_sequence() if node.get_move() == ("w", (4, 4)))
    assert e5.get("C") == "B resume"


def test_a_nieminen_dispute_exports_with_gives_and_marks_as_comments():
    """``dispute P``, ``give``, ``alive P`` and ``dead P`` are no SGF moves: a given stone is a pass
    with the comment ``give``, the dispute a comment on the next node; the stones played out stay."""
    game = played("5x5", "nieminen", ["C3", "pass", "pass"])
    game.play("dead C3", seat=1)
    game.play("alive C3", seat=0)
    game.play("dispute C3", seat=1)
    for move in ["pass", "C4", "give", "pass", "pass"]:
        game.play(move)
    text = to_sgf(game.to_record())
    tree, _, moves = sgfmill_view(text)
    assert moves == [("b", "C3"), ("w", None), ("b", None), ("b", None), ("w", "C4"), ("b", None),
                     ("w", None), ("b", None)]
    nodes = tree.get_main_sequence()
    assert nodes[4].get("C") == "W dispute C3"
    assert nodes[6].get("C") == "give"


def test_no_result_is_void():
    """Nieminen N12: a game ended with no result is RE[Void] (spec A12), not a draw (RE[0])."""
    game = played("5x5", "nieminen", ["A1", "C1", "B1", "pass"] * 2, setup=S2R1)
    assert game.result.reason == "no-result"
    assert sgf.Sgf_game.from_string(to_sgf(game.to_record())).get_root().get("RE") == "Void"


S2R1 = {"A2": 1, "B2": 1, "C2": 0, "B1": 0, "D1": 0}


def test_a_game_with_disputed_marks_and_a_resume_exports():
    game = Game(Board.parse("9x9"), rules="chinese", players=2)
    for seat, move in [(0, "C3"), (1, "pass"), (0, "pass"), (1, "dead C3"), (0, "alive C3"), (1, "dead C3"),
                       (0, "resume"), (1, "pass"), (0, "pass"), (0, "done"), (1, "done")]:
        game.play(move, seat=seat)
    assert game.result is not None
    _, _, sgf_moves = sgfmill_view(to_sgf(game.to_record()))
    assert sgf_moves == [("b", "C3"), ("w", None), ("b", None), ("w", None), ("b", None)]
    assert game.result.ranking == (1, 2)


def marked_game() -> Game:
    game = Game(Board.parse("5x5"), rules="chinese", players=2)
    for seat, move in [(0, "C3"), (1, "A1"), (0, "pass"), (1, "pass"), (0, "dead A1"), (0, "done"), (1, "done")]:
        game.play(move, seat=seat)
    return game


def test_clock_title_place_and_times_go_in_the_root_and_the_moves():
    game = marked_game()
    record = dict(game.to_record(), title="Friday game", place="polygo at example.org",
                  clock={"kind": "byoyomi", "main": 600, "periods": 5, "period": 30},
                  times={"0": [598.25, 0], "1": [12.0, 3]})
    tree, _, _ = sgfmill_view(to_sgf(record))
    root = tree.get_root()
    assert root.get("GN") == "Friday game" and root.get("PC") == "polygo at example.org"
    assert root.get("TM") == 600 and root.get("OT") == "5x30 byo-yomi"
    assert root.get("AP") == ("polygo", version("polygo"))
    black, white = tree.get_main_sequence()[1:3]
    assert black.get("BL") == 598.2 and not black.has_property("OB")
    assert white.get("WL") == 12 and white.get("OW") == 3


@pytest.mark.parametrize("clock,tm,ot", [
    ({"kind": "canadian", "main": 0, "period": 300, "stones": 25}, 0, "25/300 Canadian"),
    ({"kind": "fischer", "main": 300, "increment": 10, "cap": 0}, 300, "fischer +10"),
    ({"kind": "fischer", "main": 300, "increment": 10, "cap": 600}, 300, "fischer +10 max 600"),
    ({"kind": "absolute", "main": 90.5}, 90.5, None),
])
def test_every_clock_kind_has_its_time_properties(clock, tm, ot):
    root = sgf.Sgf_game.from_string(to_sgf(dict(marked_game().to_record(), clock=clock))).get_root()
    assert root.get("TM") == tm
    assert (root.get("OT") if root.has_property("OT") else None) == ot


def test_agreed_dead_stones_end_the_record_as_territory():
    game = marked_game()
    text = to_sgf(game.to_record())
    tree, _, moves = sgfmill_view(text)
    assert moves == [("b", "C3"), ("w", "A1"), ("b", None), ("w", None)]
    last = tree.get_main_sequence()[-1]
    assert last.get_move() == (None, None)
    assert len(last.get("TB")) == 24 and not last.has_property("TW")  # every point but C3, A1's included
    assert (0, 0) in last.get("TB")
    assert last.get("C") == "Dead stones: A1"


@pytest.mark.skipif(not os.path.exists(GNUGO), reason="GNU Go is not installed")
def test_gnugo_reads_the_marked_record(tmp_path):
    path = tmp_path / "marked.sgf"
    path.write_text(to_sgf(dict(marked_game().to_record(), clock={"kind": "byoyomi", "main": 60, "periods": 3,
                                                                     "period": 10}, times={"0": [55, 0]})))
    done = subprocess.run([GNUGO, "--mode", "gtp"], input=f"loadsgf {path}\nlist_stones white\nquit\n",
                          capture_output=True, text=True, timeout=60)
    assert "= A1" in done.stdout  # the moves replay to the position before the dead stones' removal
