"""Drawing rooms as text: grids, graph boards, the panel, 80x24, colours on and off."""

import re

from wcwidth import wcwidth

from polygo.rules import Board, Game

from polygo.client.render import Style, board_lines, letters, prohibited, screen

SGR = re.compile(r"\x1b\[[0-9;]*m")


def test_letters_are_distinct():
    names = ["black", "white", "red", "blue", "green", "yellow", "purple", "orange"]
    assert letters(names) == ["B", "W", "R", "L", "G", "Y", "P", "O"]
    assert len(set(letters(["black", "blue", "brown"]))) == 3


def test_grid_with_last_move_and_coordinates():
    game = Game(Board.grid(5, 5), rules="kee", players=3)
    for move in ("C3", "D3", "C2"):
        game.play(move)
    assert board_lines(game, Style(color=False)) == [
        "   A B C D E",
        " 5 . . . . . 5",
        " 4 . . . . . 4",
        " 3 . . B W . 3",
        " 2 . .(R). . 2",
        " 1 . . . . . 1",
        "   A B C D E",
    ]


def test_prohibited_points_are_marked_and_explained(make_view):
    game = Game(Board.grid(2, 1), rules="kee", players=2)
    game.play("A1")
    game.play("B1")
    assert prohibited(game) == {"A1": "cycle"}
    assert board_lines(game, Style(color=False))[1] == " 1 *(W)1"
    text = "\n".join(screen(make_view(game, ["ann", "bob"]), [0], 0.0, Style(color=False)))
    assert "prohibited: A1 cycle" in text and "appeal P" in text
    assert ">> YOUR TURN: type a point or 'pass' or 'appeal P'" in text


def test_nineteen_fits_80_by_24_with_colours_or_not(make_view):
    game = Game(Board.grid(19, 19), rules="chinese", players=2)
    for move in ("Q16", "D4", "Q4"):
        game.play(move)
    view = make_view(game, ["ann", "bob"], {"clock": None})
    for style in (Style(color=False), Style(color=True)):
        lines = screen(view, [0], 0.0, style, "refused 'D4': D4 is occupied")
        plain = [SGR.sub("", line) for line in lines]
        assert len(lines) <= 23 and all(len(line) <= 80 for line in plain)
        assert plain[-1].startswith("refused 'D4'")
    coloured = "\n".join(screen(view, [0], 0.0, Style(color=True)))
    assert "\x1b[1;90mB" in coloured and "\x1b[1;97mW" in coloured


def test_graph_with_coordinates_is_drawn_with_names_and_every_connection():
    game = Game(Board.parse("hex5"), rules="kee", players=3)
    game.play("E5")
    lines = board_lines(game, Style(color=False))
    assert len(lines) == 17                          # a row of lines between two rows of points
    assert re.split(r"-+", lines[8].strip()) == ["E1", "E2", "E3", "E4", "(B)", "E6", "E7", "E8", "E9"]
    assert lines[7].strip().startswith("/ \\ / \\")   # F1-E1, F1-E2, ... drawn
    petersen = board_lines(Game(Board.parse("petersen"), rules="kee", players=2), Style(color=False))
    drawn = "\n".join(petersen)
    assert all(name in drawn for name in Board.parse("petersen").points)
    assert re.search(r"o1-+i1", drawn) and re.search(r"i4-+/?o4", drawn)   # spokes are lines too


def test_graph_without_coordinates_is_paged_to_fit_and_more_skips_nothing():
    """Issue 11 item 6: the cube showed 28 of its 56 points and `more` skipped some."""
    game = Game(Board.parse("cube4"), rules="kee", players=2)
    game.play("000")
    style = Style(color=False)
    first = board_lines(game, style, max_rows=20)
    assert first[0].startswith("points 1-19 of 56")
    assert first[1].startswith("000 B<: 001 010 100")
    seen = []
    for page in range(3):
        style.page = page
        lines = board_lines(game, style, max_rows=20)
        assert len(lines) <= 20
        seen += [line.split()[0] for line in lines[1:]]
    assert sorted(seen) == sorted(game.board.points)
    style.page = 0
    wide = board_lines(game, style, max_rows=20, max_width=160)
    assert wide[0] == "points 1-56 of 56" and len(wide) == 15


def test_wide_characters_are_measured_by_their_columns(make_view):
    """Item 7: a 10-character CJK name takes 20 columns, and no line may pass the terminal's width."""
    game = Game(Board.grid(9, 9), rules="chinese", players=2)
    view = make_view(game, ["囲碁の名人になりたい人", "bob"])
    for width in (80, 60):
        for line in screen(view, [1], 0.0, Style(color=False), width=width, height=24):
            assert sum(wcwidth(ch) for ch in line) <= width, line


def test_scoring_and_result_are_shown(make_view):
    game = Game(Board.grid(3, 3), rules="chinese", players=2, komi=0.5)
    for move in ("B2", "pass", "pass"):
        game.play(move)
    view = make_view(game, ["ann", "bob"], {"komi": 0.5})
    lines = screen(view, [1], 0.0, Style(color=False))
    text = "\n".join(lines)
    assert "MARKING: type 'done' to accept the count" in text and "phase: scoring" in text
    assert "'alive P' unmarks it" in text    # marks are idempotent: a second 'dead P' is no toggle
    assert "count now: B 9, W 0.5" in text and "territory (lower case): B 8, W 0" in text
    assert lines[1].startswith(" 3 b b b 3")          # the territory on the board
    game.play("dead B2", seat=0)
    view = make_view(game, ["ann", "bob"], {"komi": 0.5})
    text = "\n".join(screen(view, [1], 0.0, Style(color=False)))
    assert "count now: B 0, W 0.5" in text and " 2 .(x). 2" in text
    game.play("dead B2", seat=0)
    game.play("done", seat=0)
    game.play("done", seat=1)
    view = make_view(game, ["ann", "bob"], {"komi": 0.5})
    view.result = {"reason": "passes", "ranking": [1, 2], "score": [9.0, 0.5]}
    text = "\n".join(screen(view, [1], 0.0, Style(color=False)))
    assert "GAME OVER: B+8.5" in text and "score: black 9, white 0.5" in text
    assert "komi 0.5" in text


def test_hansen_cycle_set_points_are_marked_and_refusals_explained():
    from polygo.client.errors import ServerRefused
    from polygo.client.terminal import refusal_text

    setup = {"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1}
    game = Game(Board.grid(7, 5), rules="hansen-sst", setup=setup)
    for move in ("pass", "C3", "D3"):
        game.play(move)
    assert prohibited(game) == {"C3": "cycle-set"}
    sentence = "Black's capture at D3 has the cycle set {C3, D3}: C3 is in it, play elsewhere first (Hansen rule 9)"
    text = refusal_text("C3", ServerRefused(sentence, code="illegal-move", reason="cycle-set"))
    assert text.startswith(f"refused 'C3': {sentence} — ") and "Hansen rule 9" in text


def test_a_nieminen_dispute_is_shown(make_view):
    game = Game(Board.grid(5, 5), rules="nieminen", players=2)
    for move in ("C3", "pass", "pass"):
        game.play(move)
    text = "\n".join(screen(make_view(game, ["ann", "bob"]), [0], 0.0, Style(color=False)))
    assert "'dispute P'" in text
    game.play("dispute C3", seat=1)
    text = "\n".join(screen(make_view(game, ["ann", "bob"]), [0], 0.0, Style(color=False)))
    assert "phase: dispute" in text and "dispute of C3" in text and "'give'" in text
    assert "YOUR TURN" in text


def test_jasiek_ko_positions_are_marked_and_refusals_explained(make_view):
    game = Game(Board.grid(7, 5), rules="jasiek-nkr")
    for move in ("C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3"):
        game.play(move)
    assert board_lines(game, Style(color=False))[3] == " 3 . B(W)k W . . 3"
    game.play("D3")
    assert prohibited(game) == {"C3": "basic-ko"}
    assert board_lines(game, Style(color=False))[3] == " 3 . B *(B)W . . 3"
    text = "\n".join(screen(make_view(game, ["ann", "bob"]), [1], 0.0, Style(color=False)))
    assert "prohibited: C3 basic-ko" in text
    assert "ko C3-D3: fighting, closed to white this move" in text
