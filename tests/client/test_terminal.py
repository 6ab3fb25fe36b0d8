"""`polygo play` in a pseudo-terminal against a real server: a whole game typed at the prompt."""

import os
import re
import sys

from client_cli.terminal import Command, parse_command

def test_parse_command():
    assert parse_command("c3", None) == Command("move", "C3")
    assert parse_command("appeal b2", None) == Command("move", "appeal B2")
    assert parse_command("rank 1 2 2", None) == Command("move", "rank 1 2 2")
    assert parse_command("rank first", None).kind == "error"
    assert parse_command("undo yes", None) == Command("undo_reply", "yes")
    assert parse_command("say gg", None) == Command("say", "gg")
    assert parse_command("say", None).kind == "error"
    assert parse_command("frobnicate now", None).kind == "error"
    assert parse_command("", None).kind == "redraw"


def test_a_game_in_the_terminal(server, tmp_path, spawn):
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1", TERM="xterm")
    term = spawn([sys.executable, "-m", "client_cli", "play", "--server", server.url, "--name", "ann",
                "--bots", "1", "--rules", "tromp-taylor", "--board", "5x5"], env)
    try:
        term.expect(r"to move: you")
        term.type("c3")
        term.expect(r"played C3")
        term.expect(r"to move: you")
        term.type("C3")
        refused = term.expect(r"refused 'C3'[^\n]*")
        assert "occupied" in refused.group(0)
        term.type("pass")
        term.expect(r"played pass")
        for _ in range(200):
            if term.latest(r"GAME OVER") is not None:
                break
            if term.latest(r"to move: [^\n]*") == "to move: you":
                term.type("pass")
                term.expect(r"played pass|refused[^\n]*|GAME OVER")
            elif not term.more():
                raise AssertionError(f"the game stalled:\n{term.text[-2000:]}")
        term.expect(r"GAME OVER \(passes\)")
        term.expect(r"score: black \d+, white \d+")
        term.expect(r"game over \(passes\): score black \d+, white \d+; ranking")
        assert not re.search(r"\x1b\[[0-9;]*m", term.raw)  # NO_COLOR: no colour escapes
    finally:
        assert term.close() == 0


def test_a_hansen_refusal_is_explained_in_the_terminal(server, tmp_path, spawn):
    """Two players at two terminals under hansen-sst: White's immediate recapture of a ko is refused
    with rule 9's sentence (wrapped on the message lines), and the game goes on."""
    env = dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1", TERM="xterm")
    black = spawn([sys.executable, "-m", "client_cli", "play", "--server", server.url, "--name", "ann",
                   "--rules", "hansen-sst", "--board", "7x5", "--token-file", str(tmp_path / "ann.json")], env)
    room = black.expect(r"room (\S+)  hansen-sst").group(1)
    white = spawn([sys.executable, "-m", "client_cli", "play", "--server", server.url, "--name", "bob",
                   "--join", room, "--token-file", str(tmp_path / "bob.json")], env)
    for i, move in enumerate(["C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3", "D3"]):
        term = black if i % 2 == 0 else white
        term.expect(r"to move: you")
        term.type(move)
        term.expect(rf"played {move}")
    white.expect(r"to move: you")
    white.type("C3")
    white.expect(r"refused 'C3': Black's capture at D3 has the cycle set \{C3, D3\}: C3 is in it,\s+play\s+"
                 r"elsewhere\s+first\s+\(Hansen\s+rule\s+9\)")
    white.type("A1")
    white.expect(r"played A1")
    for term in (black, white):
        term.type("quit")


def test_parse_the_nieminen_words():
    assert parse_command("give", None) == Command("move", "give")
    assert parse_command("dispute c3", None) == Command("move", "dispute C3")
    assert parse_command("alive c3", None) == Command("move", "alive C3")
    assert parse_command("dispute", None).kind == "error"
