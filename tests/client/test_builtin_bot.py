"""The built-in bot: its tactics on drawn positions, and whole games under every ruleset."""

import random

import pytest

from polygo.rules import PRESETS, Board, Game

from polygo.client.builtin_bot import choose_move, value_of
from polygo.client.tactics import Snapshot

SEATS = {"X": 0, "O": 1, "R": 2}


def drawn(picture: str) -> tuple[Board, dict[str, int]]:
    """A grid board and its stones from a picture: top row first, X O R stones, '.' empty."""
    rows = [row.split() for row in picture.strip().splitlines()]
    board = Board.grid(len(rows[0]), len(rows))
    setup = {}
    for r, row in enumerate(rows):
        for x, cell in enumerate(row):
            if cell != ".":
                setup[f"{'ABCDEFGHJKLMNOPQRSTUVWXYZ'[x]}{len(rows) - r}"] = SEATS[cell]
    return board, setup


def bot_move(picture: str, rules: str = "kee", players: int = 2, seed: int = 0) -> str | None:
    board, setup = drawn(picture)
    game = Game(board, rules=rules, players=players, setup=setup)
    return choose_move(game, 0, random.Random(seed))


@pytest.mark.parametrize("seed", range(5))
def test_captures_when_it_can(seed):
    assert bot_move("""
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
    """, seed=seed) == "C2"


@pytest.mark.parametrize("seed", range(5))
def test_captures_the_biggest_chain(seed):
    assert bot_move("""
        . X O O X
        . . X . .
        . . . . .
        . . . . .
        X O X . .
    """, seed=seed) == "D4"


@pytest.mark.parametrize("seed", range(5))
def test_escapes_atari(seed):
    assert bot_move("""
        . . . . .
        . . O . .
        . O X . .
        . . O . .
        . . . . .
    """, seed=seed) == "D3"


@pytest.mark.parametrize("seed", range(5))
def test_escapes_atari_by_capturing(seed):
    assert bot_move("""
        . . . . .
        . . . . .
        . O X . .
        O X O X .
        . . . . .
    """, seed=seed) == "C1"


def test_never_fills_its_own_eyes_and_passes_when_nothing_is_left():
    assert bot_move("""
        . X . X .
        X X X X X
        X . X . X
        X X X X X
        . X . X .
    """) == "pass"


def test_leaves_its_own_region_alone_in_lasker_maas():
    assert bot_move("""
        . . . X O . O
        . . . X O O O
        . . . X O . O
        X X X X O O O
        O O O O O . O
    """, rules="lasker-maas") == "pass"


def test_values_rule_out_self_atari_suicide_and_own_eyes():
    board, setup = drawn("""
        . O . . .
        . . . . .
        . . . . .
        X X . . .
        . X . . .
    """)
    snapshot = Snapshot(board, setup)
    rng = random.Random(0)
    assert value_of(snapshot.effect("A5", 0), snapshot, rng) is None
    assert value_of(snapshot.effect("A1", 0), snapshot, rng) is None
    assert value_of(snapshot.effect("C3", 0), snapshot, rng) > 0
    assert value_of(snapshot.effect("A1", 1), snapshot, rng) is None


@pytest.mark.parametrize("seed", range(5))
def test_appeals_for_a_prohibited_ko_recapture(seed):
    board, setup = drawn("""
        . . . . .
        . . . . .
        . X O . .
        X O . O .
        . X O . .
    """)
    game = Game(board, rules="kee", players=2, setup=setup)
    game.play("C2")
    assert game.why_illegal("B2") == "cycle"
    assert game.why_illegal("appeal B2") is None
    assert choose_move(game, 1, random.Random(seed)) == "appeal B2"


def test_recaptures_a_ko_without_appeal_where_there_are_no_appeals():
    board, setup = drawn("""
        . . . . .
        . . . . .
        . X O . .
        X O . O .
        . X O . .
    """)
    game = Game(board, rules="chinese", players=2, setup=setup, komi=0)
    game.play("C2")
    assert game.why_illegal("B2") == "superko"
    assert choose_move(game, 1, random.Random(0)) not in ("B2", "appeal B2")


def test_nothing_to_do_out_of_turn():
    game = Game(Board.grid(5, 5), rules="kee")
    assert choose_move(game, 1, random.Random(0)) is None


def test_answers_ranking_proposals_once():
    game = Game(Board.grid(5, 5), rules="kee", players=3)
    game.play("C3")
    game.play("rank 2 1 3", seat=1)
    assert choose_move(game, 1, random.Random(0)) not in ("accept", "reject")
    assert choose_move(game, 2, random.Random(0)) == "reject"
    game.play("rank 3 1 1", seat=2)
    assert choose_move(game, 0, random.Random(0)) == "reject"
    game.play("rank 1 2 3", seat=1)
    assert choose_move(game, 0, random.Random(0)) == "accept"
    game.play("accept", seat=0)
    assert choose_move(game, 0, random.Random(0)) != "accept"


def play_out(game: Game, seed: int, limit: int = 2000) -> Game:
    """Built-in bots in every seat until the game ends; every move they choose must be legal."""
    rngs = [random.Random(seed * 10 + s) for s in range(len(game.players))]
    for _ in range(limit):
        if game.result is not None:
            return game
        moved = False
        for seat in range(len(game.players)):
            move = choose_move(game, seat, rngs[seat])
            if move is not None:
                game.play(move, seat=seat)
                moved = True
                break
        assert moved, f"nobody moves in phase {game.phase}"
    raise AssertionError(f"no end after {limit} moves")


GAMES = [
    ("kee", "7x7", 3), ("kee", "5x5", 2), ("kee", "hex5", 4), ("kee", "petersen", 3),
    ("lasker-maas", "7x7", 2), ("tromp-taylor", "7x7", 2), ("chinese", "7x7", 2),
    ("tromp-taylor", "torus:6x6", 2), ("jasiek-nkr", "7x7", 2), ("jasiek-nkr", "hex5", 2),
]


@pytest.mark.parametrize("rules,board,players", GAMES)
def test_full_games(rules, board, players):
    game = play_out(Game(Board.parse(board), rules=rules, players=players), seed=len(board) + players)
    assert game.phase == "ended"
    assert sorted(game.result.ranking)[0] == 1
    if rules == "lasker-maas":
        assert any(play.move == "pass" for play in game.history)


def test_lasker_maas_reaches_phase_two():
    game = Game(Board.grid(7, 7), rules="lasker-maas", players=2, komi=3.5)
    rngs = [random.Random(1), random.Random(2)]
    phases = set()
    while game.result is None:
        phases.add(game.phase)
        seat = game.to_move
        game.play(choose_move(game, seat, rngs[seat]), seat=seat)
    assert {"phase-1", "phase-2"} <= phases


def test_jasiek_nkr_bots_never_send_a_refused_ko_play():
    """Under Jasiek's New Ko Rules the bot picks from `legal_moves()`, so a ko capture barred by
    the basic ko, fighting or prohibition rule is never sent: after Black's capture in the
    ko, White's recapture is the best capture but refused, and the bot plays elsewhere."""
    board, setup = drawn("""
        . . . . . . .
        . . X O . . .
        . X O . O . .
        . . X O . . .
        . . . . . . .
    """)
    game = Game(board, rules="jasiek-nkr", setup=setup)
    game.play("D3")                                  # Black captures C3: a ko
    assert game.why_illegal("C3") == "basic-ko"
    for seed in range(5):
        move = choose_move(game, 1, random.Random(seed))
        assert move != "C3" and game.why_illegal(move) is None
    play_out(game, seed=4)


def test_every_preset_is_playable():
    for rules in PRESETS:
        players = 2 if PRESETS[rules].max_players == 2 else 3
        play_out(Game(Board.grid(5, 5), rules=rules, players=players), seed=3)


def test_is_a_pure_function_of_game_and_seed():
    first = play_out(Game(Board.grid(7, 7), rules="kee", players=3), seed=9)
    second = play_out(Game(Board.grid(7, 7), rules="kee", players=3), seed=9)
    assert [p.move for p in first.history] == [p.move for p in second.history]


def test_winds_down_a_game_that_runs_too_long(monkeypatch):
    from polygo.client import builtin_bot

    game = Game(Board.grid(5, 5), rules="kee", players=2)
    game.play("C3")
    assert choose_move(game, 1, random.Random(0)) != "pass"
    monkeypatch.setattr(builtin_bot, "WIND_DOWN", 0)
    assert choose_move(game, 1, random.Random(0)) == "pass"


def test_the_benchmark_refuses_bad_flags_with_a_usage_error():
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "bench" / "bot_vs_random.py"
    for flags in (["--games", "0"], ["--rules", "bogus"], ["--size", "30"]):
        done = subprocess.run([sys.executable, str(bench), *flags], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "error:" in done.stderr and "Traceback" not in done.stderr, flags
    done = subprocess.run([sys.executable, str(bench), "--games", "2", "--size", "5"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "built-in bot wins" in done.stdout


def test_hansen_bots_meet_cycle_sets_and_still_finish_by_passes():
    """Under hansen-sst the bot chooses among legal_moves only, so a cycle set (rule 9) never
    makes it send a refused move; from a ko White may not retake at once, and every game winds
    down by passes well before the move cap would end it with no result."""
    setup = {"C4": 0, "B3": 0, "C2": 0, "D4": 1, "E3": 1, "D2": 1}
    for seed in range(6):
        game = Game(Board.grid(7, 5), rules="hansen-sst", setup=setup)
        for move in ("pass", "C3", "D3"):
            game.play(move)
        assert game.why_illegal("C3") == "cycle-set"
        assert choose_move(game, 1, random.Random(seed)) != "C3"
        assert play_out(game, seed).result.reason == "passes"


# --- Nieminen's dispute play-out --------------------------------------------------------------

WALLS = """
    . . X O .
    . . X O .
    O . X O .
    . . X O .
    . . X O .
"""


def nieminen_marking(picture: str) -> Game:
    board, setup = drawn(picture)
    game = Game(board, rules="nieminen", players=2, setup=setup)
    game.play("pass")
    game.play("pass")
    return game


def test_disputes_its_own_chain_marked_dead_when_it_may_live():
    game = nieminen_marking(WALLS)
    game.play("dead D3", seat=0)          # White's wall: five liberties on the E column
    assert choose_move(game, 1, random.Random(0)) in {f"dispute D{row}" for row in range(1, 6)}
    game.play("alive D3", seat=0)
    game.play("dead A3", seat=0)          # the lone invader, three liberties: it tries
    assert choose_move(game, 1, random.Random(0)) == "dispute A3"


def test_accepts_the_mark_on_a_chain_in_atari():
    game = nieminen_marking("""
        . . X O .
        . . X O .
        X O X O .
        . X X O .
        . . X O .
    """)
    game.play("dead B3", seat=0)
    assert choose_move(game, 1, random.Random(0)) == "done"


@pytest.mark.parametrize("seed", range(3))
def test_as_owner_it_answers_a_play_with_a_give_not_a_pass(seed):
    game = nieminen_marking(WALLS)
    game.play("dispute D3", seat=0)
    assert choose_move(game, 1, random.Random(seed)) == "pass"   # the owner's first move
    game.play("pass")
    game.play("E3")                                               # Black's throw-in
    move = choose_move(game, 1, random.Random(seed))
    assert move in ("give", "E2", "E4") and game.why_illegal(move) is None


@pytest.mark.parametrize("seed", range(4))
def test_two_bots_play_a_dispute_to_the_end(seed):
    """White marks Black's wall dead, the bot disputes it; the play-out, the marking after it and
    the game end, every move legal (play_out checks), and nothing is disputed twice. (Whether the
    wall lives is the bots' tactics: White does fill Black's area and the one-move reading of the
    owner does not always hold it.)"""
    game = nieminen_marking(WALLS)
    game.play("dead C3", seat=1)
    game = play_out(game, seed=seed, limit=500)
    disputes = [p.move for p in game.history if p.move.startswith("dispute C")]
    assert len(disputes) == 1
    assert game.result.reason == "passes"
    start = [p.move for p in game.history].index(disputes[0])
    assert "give" in [p.move for p in game.history[start:]]   # White plays inside, Black answers
