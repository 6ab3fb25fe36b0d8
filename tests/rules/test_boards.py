"""Boards: grids, tori, spec strings, shipped graphs, the JSON form and its refusals, and the
referee command line that takes a board spec.

Every malformed board must be refused with a ``BoardError`` whose message names the problem,
because the server shows that message to the player who uploaded the board.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter, deque
from importlib import resources
from pathlib import Path

import pytest

from polygo.rules import Board, BoardError, GoRulesError

REPO = Path(__file__).resolve().parents[2]


def degrees(board: Board) -> Counter[int]:
    """How many points have each number of neighbours."""
    return Counter(len(board.neighbours(p)) for p in board.points)


def connected(board: Board) -> bool:
    seen = {board.points[0]}
    todo = deque(seen)
    while todo:
        for q in board.neighbours(todo.popleft()):
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen) == len(board)


# --- grids -------------------------------------------------------------------------------


def test_grid_names_skip_i_and_row_one_is_at_the_bottom() -> None:
    board = Board.grid(9, 9)
    assert board.points[:9] == ("A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "J1")
    assert "I1" not in board and "J9" in board
    assert board.coords["A1"] == (0, 0) and board.coords["J9"] == (8, 8)
    assert set(board.neighbours("A1")) == {"B1", "A2"}
    assert set(board.neighbours("E5")) == {"D5", "F5", "E4", "E6"}
    assert set(board.neighbours("H1")) == {"G1", "J1", "H2"}
    assert board.kind == "grid" and (board.width, board.height) == (9, 9)


def test_grid_1x1_has_one_point_and_no_neighbours() -> None:
    board = Board.grid(1, 1)
    assert board.points == ("A1",)
    assert board.neighbours("A1") == ()
    assert board.edges == ()


def test_grid_25x25_uses_every_column_letter_but_i() -> None:
    board = Board.grid(25, 25)
    assert len(board) == 625
    assert [p[0] for p in board.points[:25]] == list("ABCDEFGHJKLMNOPQRSTUVWXYZ")
    assert board.points[-1] == "Z25"


@pytest.mark.parametrize("w,h", [(1, 1), (1, 5), (5, 1), (2, 2), (3, 7), (9, 9), (19, 19), (25, 4)])
def test_grid_neighbour_counts(w: int, h: int) -> None:
    board = Board.grid(w, h)
    assert len(board) == w * h
    assert len(board.edges) == (w - 1) * h + w * (h - 1)
    for name in board.points:
        x, y = board.coords[name]
        expected = (x > 0) + (x < w - 1) + (y > 0) + (y < h - 1)
        assert len(board.neighbours(name)) == expected, name
    assert connected(board)


def test_non_square_grid_is_width_columns_by_height_rows() -> None:
    board = Board.grid(7, 5)
    assert "G5" in board and "H1" not in board and "A6" not in board
    assert (board.width, board.height) == (7, 5)


@pytest.mark.parametrize("w,h", [(0, 5), (26, 5), (5, 26), (-1, 3), (2.0, 2), (True, 3)])
def test_grid_sides_out_of_range_are_refused(w: object, h: object) -> None:
    with pytest.raises(BoardError, match="grid sides"):
        Board.grid(w, h)  # type: ignore[arg-type]


def test_grid_height_defaults_to_width() -> None:
    assert Board.grid(5) == Board.grid(5, 5)


# --- tori and standard sizes -------------------------------------------------------------


@pytest.mark.parametrize("w,h", [(3, 3), (4, 3), (9, 9), (19, 19)])
def test_torus_every_point_has_four_neighbours(w: int, h: int) -> None:
    board = Board.torus(w, h)
    assert degrees(board) == Counter({4: w * h})
    assert len(board.edges) == 2 * w * h
    assert board.kind == "torus" and board.spec == f"torus:{w}x{h}"


def test_torus_wraps_both_ways() -> None:
    board = Board.torus(9, 9)
    assert set(board.neighbours("A1")) == {"B1", "J1", "A2", "A9"}
    assert set(board.neighbours("J9")) == {"H9", "A9", "J8", "J1"}


def test_torus_smaller_than_3x3_is_refused() -> None:
    with pytest.raises(BoardError, match="at least 3"):
        Board.torus(2, 5)


@pytest.mark.parametrize("size", [9, 13, 19])
def test_standard_sizes(size: int) -> None:
    assert Board.standard(size) == Board.grid(size, size)


def test_standard_refuses_other_sizes() -> None:
    with pytest.raises(BoardError, match="9, 13 and 19"):
        Board.standard(11)


def test_grid_and_torus_of_the_same_size_differ() -> None:
    assert Board.grid(5, 5) != Board.torus(5, 5)
    assert Board.grid(5, 5) == Board.grid(5, 5)
    assert hash(Board.grid(5, 5)) == hash(Board.grid(5, 5))


# --- spec strings ------------------------------------------------------------------------


@pytest.mark.parametrize("spec,kind,size", [
    ("19", "grid", (19, 19)), ("9x9", "grid", (9, 9)), ("7x5", "grid", (7, 5)), ("9X9", "grid", (9, 9)),
    ("grid:5", "grid", (5, 5)), (" 13 ", "grid", (13, 13)), ("torus:9x9", "torus", (9, 9)),
    ("torus:5", "torus", (5, 5)),
])
def test_parse_sizes(spec: str, kind: str, size: tuple[int, int]) -> None:
    board = Board.parse(spec)
    assert board.kind == kind and (board.width, board.height) == size
    assert Board.parse(board.spec) == board


def test_parse_shipped_name_and_spec_round_trip() -> None:
    board = Board.parse("hex5")
    assert board.kind == "graph" and board.spec == "hex5" and board.describe() == "hex5"
    assert Board.parse(board.spec) == board


def test_parse_json_file(tmp_path: Path) -> None:
    path = tmp_path / "tri.json"
    path.write_text(json.dumps({"points": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"], ["c", "a"]]}))
    board = Board.parse(str(path))
    assert degrees(board) == Counter({2: 3})
    assert board.describe() == board.to_json()


def test_the_json_form_is_built_once_and_shared() -> None:
    """A server sends it in every snapshot and keeps a graph's in every room's settings."""
    graph = Board.from_json({"points": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]]})
    grid = Board.parse("19")
    for board in (graph, grid):
        assert board.as_json is board.as_json and board.as_json == board.to_json()
        assert board.to_json() is not board.to_json()     # to_json: a map of the caller's own
    assert graph.describe() is graph.as_json and grid.describe() == "19x19"


@pytest.mark.parametrize("spec,words", [
    ("", "non-empty"), ("   ", "non-empty"), ("nosuchboard", "unknown board 'nosuchboard'"),
    ("26", "grid sides"), ("0x5", "grid sides"), ("torus:2x2", "at least 3"),
    ("9x9x9", "unknown board"), ("missing.json", "cannot read board file 'missing.json'"),
])
def test_parse_refuses_bad_specs(spec: str, words: str) -> None:
    with pytest.raises(BoardError, match=words.replace("(", r"\(")):
        Board.parse(spec)


def test_parse_refuses_non_strings() -> None:
    with pytest.raises(BoardError):
        Board.parse(19)  # type: ignore[arg-type]


def test_from_spec_takes_strings_and_inline_graphs() -> None:
    inline = {"points": ["a", "b"], "edges": [["a", "b"]]}
    assert Board.from_spec("9") == Board.grid(9)
    assert Board.from_spec(inline) == Board.from_json(inline)


# --- shipped boards ----------------------------------------------------------------------


def shipped_json(name: str) -> dict:
    return json.loads(resources.files("polygo.rules").joinpath("boards", name + ".json").read_text())


def test_shipped_lists_the_packaged_boards() -> None:
    assert Board.shipped() == ["cube4", "hex5", "petersen", "village"]


@pytest.mark.parametrize("name", Board.shipped())
def test_each_shipped_board_loads_connected_and_described(name: str) -> None:
    board = Board.parse(name)
    data = shipped_json(name)
    assert isinstance(data.get("name"), str) and data["name"]
    assert len(board) == len(data["points"])
    assert connected(board)
    assert Board.from_json(board.to_json()) == board


def test_hex5_degrees_match_its_description() -> None:
    # "hexagonal board, 5 points a side (61 points, 6 neighbours inside)": the inner hexagon of
    # side 4 has 37 points of degree 6; the rim has 6 corners of degree 3 and 18 sides of degree 4.
    board = Board.parse("hex5")
    assert "61 points" in shipped_json("hex5")["name"]
    assert degrees(board) == Counter({6: 37, 4: 18, 3: 6})


def test_cube4_degrees_match_its_description() -> None:
    # "surface of a cube, 4 points along each edge (56 points; corners have 3 neighbours)":
    # 4**3 - 2**3 = 56 surface points; the 8 corners have 3 neighbours, every other point 4.
    board = Board.parse("cube4")
    assert "56 points" in shipped_json("cube4")["name"]
    assert degrees(board) == Counter({4: 48, 3: 8})


def test_petersen_is_three_regular_with_girth_five() -> None:
    board = Board.parse("petersen")
    assert degrees(board) == Counter({3: 10})
    for p in board.points:
        near = set(board.neighbours(p))
        for q in near:
            # no triangle (neighbours of a neighbour are not neighbours) and no square
            # (two neighbours share no neighbour but p)
            assert not near & set(board.neighbours(q))
            for r in near - {q}:
                assert set(board.neighbours(q)) & set(board.neighbours(r)) == {p}


def test_village_is_small_and_irregular() -> None:
    board = Board.parse("village")
    assert "12 points" in shipped_json("village")["name"]
    assert len(board) == 12 and len(degrees(board)) > 1


# --- the JSON form -----------------------------------------------------------------------


@pytest.mark.parametrize("board", [Board.grid(5, 3), Board.torus(4, 4), Board.parse("hex5"),
                                   Board.parse("cube4"), Board.grid(1, 1)], ids=repr)
def test_to_json_from_json_round_trip(board: Board) -> None:
    data = board.to_json()
    again = Board.from_json(data)
    assert again == board
    assert again.points == board.points
    assert set(again.edges) == set(board.edges)
    assert again.coords == board.coords
    assert Board.from_json(json.dumps(data)) == board
    assert again.to_json() == data      # a stored graph and its board describe each other


def test_a_graph_given_in_any_order_is_described_in_point_order() -> None:
    shuffled = {"points": ["a", "b", "c", "d"], "edges": [["d", "c"], ["b", "a"], ["c", "a"]],
                "coords": {"a": [0, 0], "b": [1, 0.5], "c": [0, 1], "d": [1, 1]}}
    described = Board.from_json(shuffled).to_json()
    assert described["edges"] == [["a", "b"], ["a", "c"], ["c", "d"]]
    assert Board.from_json(described).to_json() == described


def test_from_json_accepts_a_name_and_merges_repeated_edges() -> None:
    board = Board.from_json({"name": "path", "points": ["a", "b", "c"],
                             "edges": [["a", "b"], ["b", "a"], ["b", "c"]]})
    assert board.neighbours("b") == ("a", "c")
    assert len(board.edges) == 2
    assert board.kind == "graph" and board.coords is None and board.spec is None


def test_from_json_edges_default_to_no_edges() -> None:
    board = Board.from_json({"points": ["a"]})
    assert board.neighbours("a") == ()


def test_board_index_and_unknown_point() -> None:
    board = Board.grid(3)
    assert board.index("B2") == 4
    assert board.find("b2") == 4 and board.find("Z9") is None
    with pytest.raises(BoardError, match="'Z9' is not a point"):
        board.index("Z9")
    with pytest.raises(BoardError, match="'Z9' is not a point"):
        board.neighbours("Z9")


def test_graph_names_are_case_sensitive() -> None:
    board = Board.from_json({"points": ["a", "A"], "edges": [["a", "A"]]})
    assert board.find("a") == 0 and board.find("A") == 1


# --- malformed boards --------------------------------------------------------------------

GOOD = {"points": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]]}


@pytest.mark.parametrize("data,words", [
    ({"points": ["a", "b"], "edges": [["a", "c"]]}, "unknown point 'c'"),
    ({"points": ["a", "b"], "edges": [["x", "b"]]}, "unknown point 'x'"),
    ({"points": ["a", "b", "a"], "edges": []}, "duplicate point name 'a'"),
    ({"points": ["a", "b"], "edges": [["a", "a"]]}, "self-loop"),
    ({"points": [], "edges": []}, "at least one point"),
    ({"edges": []}, "'points' must be a list"),
    ({"points": "abc", "edges": []}, "'points' must be a list"),
    ({"points": ["a"], "edges": {"a": "b"}}, "'edges' must be a list"),
    ({"points": ["a", "b"], "edges": [["a", "b", "a"]]}, "must be a pair"),
    ({"points": ["a", "b"], "edges": ["ab"]}, "must be a pair"),
    ({"points": ["a", ""], "edges": []}, "non-empty string without spaces"),
    ({"points": ["a", "b c"], "edges": []}, "non-empty string without spaces"),
    ({"points": ["a", 7], "edges": []}, "non-empty string without spaces"),
    ({"points": ["a", "pass"], "edges": []}, "'pass' is a reserved move word"),
    ({"points": ["Appeal"], "edges": []}, "'Appeal' is a reserved move word"),
    ({"points": ["resign"], "edges": []}, "reserved move word"),
    ({"points": ["a"], "edges": [], "colour": "red"}, "unknown board keys: colour"),
    ({"points": ["a"], "edge": [], "size": 1}, "unknown board keys: edge, size"),
    ({**GOOD, "coords": {"a": [0, 0], "z": [1, 1]}}, "coords name unknown point 'z'"),
    ({**GOOD, "coords": {"a": [0]}}, "coords of 'a' must be"),
    ({**GOOD, "coords": {"a": ["0", 1]}}, "coords of 'a' must be"),
    ({**GOOD, "coords": {"a": [True, 1]}}, "coords of 'a' must be"),
    ({**GOOD, "coords": [[0, 0]]}, "'coords' must map"),
    ([["a", "b"]], "must be a JSON object"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_malformed_boards_are_refused_naming_the_problem(data: object, words: str) -> None:
    with pytest.raises(BoardError, match=words):
        Board.from_json(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("text,words", [
    ("{", "does not parse"), ("", "does not parse"), ("[1, 2]", "must be a JSON object"),
    ('{"points": ["a", "a"]}', "duplicate point name 'a'"),
])
def test_malformed_json_text_is_refused(text: str, words: str) -> None:
    with pytest.raises(BoardError, match=words):
        Board.from_json(text)


def test_too_many_points_is_refused() -> None:
    with pytest.raises(BoardError, match="at most 4096 points"):
        Board.from_json({"points": [f"p{i}" for i in range(4097)], "edges": []})


def test_board_errors_are_value_errors_of_the_package() -> None:
    with pytest.raises(BoardError) as info:
        Board.from_json({"points": []})
    assert isinstance(info.value, GoRulesError) and isinstance(info.value, ValueError)


# --- the referee command line ------------------------------------------------------------


def referee(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polygo.rules", "replay", *args], cwd=REPO, input=stdin,
                          capture_output=True, text=True, timeout=60)


def json_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_referee_prints_one_line_per_move_and_a_summary() -> None:
    # Kee example I on the 2x1 board: White's capture is answered by an appeal, White's own
    # pass then rescinds it (rule 13), and B1 is excluded for White at that point (rule 14).
    run = referee("--rules", "kee", "--board", "2x1", "A1", "B1", "A1", "appeal A1", "pass", "B1", "pass")
    assert run.returncode == 0, run.stderr
    lines = json_lines(run.stdout)
    assert len(lines) == 8
    moves, summary = lines[:-1], lines[-1]
    assert [m["n"] for m in moves] == list(range(1, 8))
    assert [m["ok"] for m in moves] == [True, True, False, True, True, False, True]
    assert moves[1]["captures"] == ["A1"]
    assert moves[2]["reason"] == "cycle" and "rule 11" in moves[2]["message"]
    assert [m.get("index") for m in moves] == [0, 1, None, 2, 3, None, 4]
    assert moves[4]["rescinded"] == [1, 2, 3] and moves[4]["to_move"] == 1      # history indices from 0
    assert moves[5]["reason"] == "rescinded"
    assert summary["over"] is False and summary["stones"] == {"A1": 0}
    assert summary["score"] == [2.0, 0.0] and summary["ranking"] == [1, 2]


def test_referee_ends_the_game_and_reports_the_result() -> None:
    run = referee("--rules", "tromp-taylor", "--board", "3x3", "--komi", "0.5", "B2", "pass", "pass")
    assert run.returncode == 0, run.stderr
    summary = json_lines(run.stdout)[-1]
    assert summary["over"] is True and summary["result"] == "passes"
    assert summary["score"] == [9.0, 0.5] and summary["ranking"] == [1, 2]


def test_referee_reads_a_record_from_stdin_and_appends_moves() -> None:
    record = {"board": "2x1", "rules": "kee", "players": 2, "moves": [[0, "A1"], [1, "B1"]]}
    run = referee("--record", "-", "pass", stdin=json.dumps(record))
    assert run.returncode == 0, run.stderr
    lines = json_lines(run.stdout)
    assert [m["move"] for m in lines[:-1]] == ["A1", "B1", "pass"]
    assert lines[-1]["stones"] == {"B1": 1}


def test_referee_takes_seat_prefixes_and_graph_boards() -> None:
    run = referee("--board", "petersen", "--players", "3", "o0", "white:i0", "red:pass", "black:o1")
    lines = json_lines(run.stdout)
    assert run.returncode == 0, run.stderr
    assert [m["seat"] for m in lines[:-1]] == [0, 1, 2, 0]
    assert all(m["ok"] for m in lines[:-1])


@pytest.mark.parametrize("args,words", [
    (["--board", "99"], "grid sides"),
    (["--board", "nosuchboard"], "unknown board 'nosuchboard'"),
    (["--board", "missing.json"], "cannot read board file"),
    (["--rules", "nope"], "unknown ruleset 'nope'"),
    (["--players", "1"], "2 to 8 players"),
    (["--record", "/nonexistent/record.json"], "cannot read record"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--superko", "sideways"], "invalid choice"),
    (["--komi", "lots"], "invalid float value"),
])
def test_referee_refuses_bad_input_with_exit_2(args: list[str], words: str) -> None:
    run = referee(*args)
    assert run.returncode == 2
    assert words in run.stderr
    assert run.stdout == ""


def test_referee_refuses_a_record_that_is_not_json() -> None:
    run = referee("--record", "-", stdin="not json")
    assert run.returncode == 2 and "is not JSON" in run.stderr


def test_referee_needs_a_command() -> None:
    run = subprocess.run([sys.executable, "-m", "polygo.rules"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "required" in run.stderr


def test_referee_plays_a_nieminen_dispute_and_a_loop() -> None:
    run = referee("--rules", "nieminen", "--board", "5x5", "C3", "pass", "pass", "white:dead C3",
                  "black:dispute C3", "pass", "C4", "pass", "give", "pass", "pass", "black:dead C3")
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[4]["phase"] == "dispute" and lines[4]["disputed"] == ["C3"] and lines[4]["to_move"] == 0
    assert lines[7]["ok"] is False and lines[7]["reason"] == "owner-cannot-pass"
    assert lines[8]["move"] == "give" and lines[10]["phase"] == "scoring"
    assert lines[11]["ok"] is False and lines[11]["reason"] == "proven-alive"
    loop = referee("--rules", "nieminen", "--board", "5x5", "--option", "no_result_at=2",
                   *"C2 A2 B1 B2 D1 pass A1 C1 B1".split())
    assert json.loads(loop.stdout.splitlines()[-1])["result"] == "no-result"
