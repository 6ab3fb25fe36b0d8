"""`polygo play` in tmux against a real server: games typed at the prompt, as a player sees them."""

import asyncio
import os
import random
import re
import signal
import sys

from polygo.rules import Board, Game

from polygo.client.session import Client, backoff
from polygo.client.terminal import Command, parse_command

POLYGO = [sys.executable, "-m", "polygo.client"]


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
    assert parse_command("leave", None) == Command("leave")


def test_a_word_that_is_no_point_is_never_sent_as_a_move():
    """Issue 11 item 7: an unknown word (or an escape sequence) was sent to the server as a move."""
    game = Game(Board.grid(9, 9), rules="kee")
    assert parse_command("e5", game) == Command("move", "E5")
    assert parse_command("hello", game).kind == "error"
    assert parse_command("\x1b[A", game).kind == "error"
    assert parse_command("appeal Z9", game).kind == "error"
    cube = Game(Board.parse("cube4"), rules="kee")
    assert parse_command("001", cube) == Command("move", "001")


def _env(tmp_path) -> dict[str, str]:
    return dict(os.environ, POLYGO_HOME=str(tmp_path / "home"), NO_COLOR="1")


def test_a_bot_game_survives_a_killed_client_and_can_be_left_for_good(server, tmp_path, tmux):
    """Issue 11 item 1: the bots died with `polygo play`; after kill -9 the game waited for ever."""
    env = _env(tmp_path)
    first = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "1", "--rules", "chinese",
                  "--board", "5x5"], env)
    first.wait_for(r"YOUR TURN")
    room = first.wait_for(r"room (\S+)").group(1)
    first.type("c3")
    first.wait_for(r"2 W bot1 \S+")                   # the house bot answered, in the move log
    os.kill(first.pid(), signal.SIGKILL)
    first.wait_for(r"EXIT=")

    again = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann"], env)
    again.wait_for(r"1 B ann C3")                     # the same room, its log rebuilt
    again.wait_for(r"YOUR TURN")
    screen = again.screen()
    free = next(p for p in ("B2", "D4", "B4", "D2", "A1") if f"you {p}" not in screen and f"bot1 {p}" not in screen)
    again.type(free.lower())
    again.wait_for(r"4 W bot1 \S+")                   # the bot still plays after the restart
    again.type("leave")
    again.wait_for(r"leave this game for good\?")
    again.type("yes")
    again.wait_for(r"you left room \S+ for good")
    again.wait_for(r"EXIT=0")

    third = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann"], env)
    third.wait_for(r"waiting for 1 more player")      # a new room: the resigned game is not reopened
    assert third.wait_for(r"room (\S+)").group(1) != room


def test_opponents_actions_marking_and_result_are_shown(server, tmp_path, tmux):
    """Items 2, 3, 7, 8: passes in the log, your turn, the count and territory while marking, `pass`
    there explained (not 'game over'), undo against the bot, history on Up, W+/B+ results."""
    env = _env(tmp_path)
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "1", "--rules", "chinese",
                 "--board", "3x3", "--komi", "0.5"], env, width=100, height=30)
    term.wait_for(r"komi 0\.5")
    term.wait_for(r"YOUR TURN")
    term.type("frobnicate")
    term.wait_for(r"unknown command 'frobnicate'")
    term.type("b2")
    term.wait_for(r"2 W bot1 (passes|\S+)")
    term.type("undo")                                 # the bot answered B2 at once: both go back
    term.wait_for(r"W bot1 agrees to the undo")
    term.wait_for(r"B ann takes back B2 \(undo\)")
    term.wait_until(lambda screen: "waiting for the others" not in screen    # done: the notice goes
                    and "takes back B2" in screen)      # (on the screen drawn, not one caught blank)
    term.wait_for(r"YOUR TURN")
    term.type("b2")
    # the bot's new answer: its first one, taken back, is still in the log above
    term.wait_until(lambda screen: screen.count(" 2 W bot1 ") == 2)
    term.keys("Up")
    term.wait_for(r"> b2")                            # the history, not a move sent to the server
    term.keys("C-u")
    for _ in range(12):
        if term.wait_for(r"YOUR TURN|MARKING").group(0) == "MARKING":
            break
        passes = term.screen().count("B ann passes")
        term.type("pass")
        term.wait_until(lambda screen: screen.count("B ann passes") > passes)
    term.wait_for(r"MARKING: type 'done' to accept the count")
    term.wait_for(r"count now: B \d+, W [\d.]+")
    term.wait_for(r"territory \(lower case\): B \d+")
    term.type("pass")
    term.wait_for(r"the passes are over: this is the marking phase, not the end")
    assert "game over" not in term.screen().lower()
    term.type("done")
    result = term.wait_for(r"GAME OVER: ([BW]\+[\d.]+)").group(1)
    term.wait_for(rf"game over: {re.escape(result)} \(by passes\)")
    term.wait_for(r"EXIT=0")


def test_the_screen_follows_the_terminal_size_and_draws_graph_edges(server, tmp_path, tmux):
    """Item 6: always 80x24 before; the cube showed 28 of its 56 points, graphs had no edges."""
    env = _env(tmp_path)
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "1", "--rules", "kee",
                 "--board", "village"], env)
    term.wait_for(r"YOUR TURN")
    term.wait_for(r"j-+k-+n")                         # the connections are drawn
    term.wait_for(r"b-+c-+d")
    term.type("quit")
    term.wait_for(r"EXIT=0")
    cube = tmux([*POLYGO, "play", "--server", server.url, "--name", "bob", "--bots", "1", "--rules", "kee",
                 "--board", "cube4"], env, width=80, height=24)
    cube.wait_for(r"points 1-\d+ of 56 \('more'")
    cube.resize(200, 60)
    cube.wait_for(r"points 1-56 of 56")               # all of it once the terminal is big enough
    cube.type("quit")


def test_losing_the_server_shows_reconnecting_and_the_game_resumes(server, tmp_path, tmux):
    """Item 5: a typed move showed "sent D4" for a minute, then three contradictory lines."""
    env = _env(tmp_path)
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "1", "--rules", "chinese",
                 "--board", "5x5", "--no-local-server"], env)
    term.wait_for(r"YOUR TURN")
    term.type("c3")
    term.wait_for(r"2 W bot1 \S+")
    port = server.port
    server.process.kill()
    server.process.wait()
    term.wait_for(r"lost the server; reconnecting… \(attempt \d+\)")
    screen = term.screen()
    free = next(p for p in ("B2", "D4", "B4", "D2", "A1") if f" {p}" not in screen.split("-- moves --")[1])
    term.type(free)
    term.wait_for(rf"reconnecting… \(attempt \d+\) *\n *sent {free}")   # a line each, not run together
    server.start(port)
    term.wait_for(rf"3 B ann {free}")                  # the move was resent once the server was back
    term.wait_for(r"4 W bot1 \S+")
    assert "reconnecting" not in term.screen()


def test_backoff_doubles_with_jitter_up_to_a_cap():
    rng = random.Random(7)
    delays = [backoff(attempt, rng) for attempt in range(1, 12)]
    assert 0.1 <= delays[0] <= 0.2 and 0.2 <= delays[1] <= 0.4
    assert all(5.0 <= d <= 10.0 for d in delays[7:])
    assert len({round(d, 6) for d in delays}) == len(delays)   # jitter: no two the same


async def test_chat_said_while_away_is_shown_on_rejoin_and_resign_asks_first(server, tmp_path, tmux):
    """Item 8: chat missed while away was lost; `resign` resigned at once."""
    env = _env(tmp_path)
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "1", "--rules", "chinese",
                 "--board", "5x5"], env)
    room = (await asyncio.to_thread(term.wait_for, r"room (\S+)")).group(1)
    await asyncio.to_thread(term.wait_for, r"YOUR TURN")
    term.type("quit")
    await asyncio.to_thread(term.wait_for, r"EXIT=0")
    async with Client(server.url, name="eve") as eve:
        await eve.watch(room)
        await eve.chat(room, "are you still there?")
    again = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann"], env)
    await asyncio.to_thread(again.wait_for, r"<eve> are you still there\?")
    again.type("resign")
    await asyncio.to_thread(again.wait_for, r"resign this game\? type 'yes'")
    again.type("no")
    await asyncio.to_thread(again.wait_for, r"not done: you did not resign")
    await asyncio.to_thread(again.wait_for, r"YOUR TURN")
    again.type("resign")
    again.type("yes")
    await asyncio.to_thread(again.wait_for, r"game over: W\+R \(by resignation\)")
    await asyncio.to_thread(again.wait_for, r"EXIT=0")


def test_a_byoyomi_clock_ticks_through_its_periods_on_screen_until_the_flag_falls(server, tmp_path, tmux):
    """Item 4: it showed 0:07 -> 0:04 -> 0:00 (3p) and froze; before overtime, "0:00" and no periods."""
    env = _env(tmp_path)
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "1", "--rules", "chinese",
                 "--board", "5x5", "--clock", "byoyomi:3+3x2"], env)
    term.wait_for(r"W white +bot1 +0:03\+3x2s")          # main time, then what follows it
    term.wait_for(r"B black +ann +0:0[12]\+3x2s")         # counting down
    term.wait_for(r"ann +0:0[12] x3")                     # the first period
    term.wait_for(r"ann +0:0[12] x2")                     # the next one, not a frozen 0:00
    term.wait_for(r"ann +0:0[12] x1")
    term.wait_for(r"B ann runs out of time")
    term.wait_for(r"game over: W\+T \(on time\)")


def test_a_hansen_refusal_is_explained_in_the_terminal(server, tmp_path, tmux):
    """Two players at two terminals under hansen-sst: White's immediate recapture of a ko is refused
    with rule 9's sentence (wrapped on the message lines), and the game goes on."""
    black = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--rules", "hansen-sst",
                  "--board", "7x5"], dict(_env(tmp_path / "ann")), width=120, height=30)
    room = black.wait_for(r"room (\S+)").group(1)
    white = tmux([*POLYGO, "play", "--server", server.url, "--name", "bob", "--join", room],
                 dict(_env(tmp_path / "bob")), width=120, height=30)
    for i, move in enumerate(["C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3", "D3"]):
        term, name = (black, "ann") if i % 2 == 0 else (white, "bob")
        term.wait_for(r"YOUR TURN")
        term.type(move.lower())
        shown = "passes" if move == "pass" else move
        term.wait_for(rf"{i + 1} [BW] (you|{name}) {shown}")
    white.wait_for(r"YOUR TURN")
    white.type("c3")
    white.wait_for(r"refused 'C3': Black's capture at D3 has the cycle set \{C3, D3\}: C3 is in it,\s+play\s+"
                   r"elsewhere\s+first\s+\(Hansen\s+rule\s+9\)")
    white.type("a1")
    white.wait_for(r"10 W (you|bob) A1")


def test_parse_the_nieminen_words():
    assert parse_command("give", None) == Command("move", "give")
    assert parse_command("dispute c3", None) == Command("move", "dispute C3")
    assert parse_command("alive c3", None) == Command("move", "alive C3")
    assert parse_command("dispute", None).kind == "error"


def test_a_19x19_game_fits_60x24_and_21_rows_with_its_panel(server, tmp_path, tmux):
    """At 60x24 only the board was drawn (no turn, clock or log); at 21 rows a 19x19 grid became a
    list of 361 points, which could not be played; at 60 columns the panel lost its ends."""
    env = _env(tmp_path)
    term = tmux([*POLYGO, "play", "--server", server.url, "--name", "ann", "--bots", "2", "--rules", "kee",
                 "--board", "19", "--clock", "byoyomi:300+3x30"], env, width=60, height=24)
    patterns = [r"YOUR TURN", r"^16 \.{3}\+\.{5}\+\.{5}\+\.{3} ",     # compact, with its star points
                r"^19 \.{19}( |$)", r"^ 1 \.{19}( |$)", r"ann +\d:\d\d\+3x30s", r"caps 0", r"R red +bot2"]
    screen = term.wait_until(lambda s: all(re.search(p, s, re.M) for p in patterns))
    assert all(len(line) <= 60 for line in screen.splitlines())
    term.type("k10")
    term.wait_for(r"1 B ann K10")                        # the move log beside the board
    term.wait_until(lambda s: re.search(r"^10[ >]\.{3}\+\.{5}B\.{5}\+\.{3}", s, re.M) is not None)
    term.wait_for(r"3 R bot2 \S+")
    term.resize(60, 21)
    before = term.wait_for(r"rows (\d+)-\d+ of 19 shown \('more'").group(1)
    assert "points 1-" not in term.screen()
    term.wait_for(r"YOUR TURN")
    term.type("more")
    # (a look may catch the screen blank, between a clear and its redraw)
    term.wait_until(lambda s: (rows := re.search(r"rows (\d+)-\d+ of 19 shown", s)) is not None
                    and rows.group(1) != before)
    term.resize(46, 40)                                   # too narrow for the panel beside: below
    term.wait_until(lambda s: re.search(r"^   A B C D E F G H J K L M N O P Q R S T", s, re.M)
                    and re.search(r"^> B black +ann", s, re.M) is not None)
    term.type("quit")
    term.wait_for(r"EXIT=0")
