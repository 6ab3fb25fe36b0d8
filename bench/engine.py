"""Engine speed: microseconds per ``play``, ``why_illegal`` and ``legal_moves``, beside sgfmill.

A legality check must cost microseconds, not a scan of the history. The targets
(docs/performance.md): ``Game.play`` under the full repetition rule at most 0.35× the time of
sgfmill's ``Board.play`` (which checks no repetition at all) over the same moves of real games
(``--records``), and ``legal_moves`` on a mid-game 19×19 under 0.3 ms. This is a benchmark to
run by hand, not a timed test:

    python bench/engine.py                    # the default boards and rulesets
    python bench/engine.py --games 2 --opening 200 --boards 19 hex5 --rules kee
    python bench/engine.py --boards 19 --rules chinese hansen-sst   # Hansen beside its peer
    python bench/engine.py --gnugo --boards 19 --rules chinese jasiek-nkr   # GNU Go games instead
    python bench/engine.py --records --boards 19 9 --repeat 3   # the committed GNU Go records

Games are seeded random playouts, the "random legal game" of Go programs' Monte Carlo search:
each player plays a random legal point that does not fill one of its own eyes (an empty point
whose neighbours are all its own stones), and passes when there is none, until the game ends
(capped at ``--cap`` plays). Each board is measured twice over the same games: the first
``--opening`` plays (sparse boards, small chains: where sgfmill's flood fills are cheapest) and
the whole games. Times are CPU time of this process (other work on the machine disturbs them
less than wall time), the best of ``--repeat`` runs, polygo and sgfmill measured alternately.

``jasiek-nkr`` (Jasiek's New Ko Rules) keeps a ko analysis up to date play by play: the last
table shows how many ko types each play recomputed (only ko positions a play touched), and
what a full classification from scratch costs on positions with several kos.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polygo.rules import Board, Game  # noqa: E402
from polygo.rules.board import COLUMNS  # noqa: E402

RULES = ("chinese", "tromp-taylor", "aga", "japanese", "kee", "lasker-maas", "nieminen", "hansen-sst",
         "jasiek-nkr")   # every preset: the target is for each
BOARDS = ("19", "torus:19x19", "hex5")


def fills_own_eye(g: Game, point: str, seat: int) -> bool:
    return all(g.stone_at(q) == seat for q in g.board.neighbours(point))


def random_game(board: Board, rules: str, seed: int, cap: int) -> list[str]:
    """A seeded random playout: random legal non-eye-filling points, a pass when none, to the end."""
    rng = random.Random(seed)
    g = Game(board, rules=rules, players=2)
    played: list[str] = []
    while len(played) < cap and g.to_move is not None:
        seat = g.to_move
        empty = [p for p in board.points if g.stone_at(p) is None]
        rng.shuffle(empty)
        move = next((p for p in empty if not fills_own_eye(g, p, seat) and g.why_illegal(p) is None), "pass")
        g.play(move)
        played.append(move)
    return played


GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


def gnugo_game(size: int, seed: int, cap: int) -> list[str]:
    """A GNU Go self-play game (level 0, seeded): real play with its kos, where random playouts
    have few real ones. GNU Go plays under its own (Japanese) ko rule; the benchmark cuts a game
    at the first move a timed ruleset refuses."""
    proc = subprocess.Popen([str(GNUGO), "--mode", "gtp", "--level", "0", "--never-resign", "--seed", str(seed)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(command: str) -> str:
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        lines = []
        while True:
            line = proc.stdout.readline()
            if not line or (line == "\n" and lines):
                break
            if line.strip():
                lines.append(line.strip())
        return lines[0].lstrip("=? ").strip() if lines else ""

    ask(f"boardsize {size}")
    moves: list[str] = []
    try:
        while len(moves) < cap:
            answer = ask(f"genmove {'bw'[len(moves) % 2]}").lower()
            if answer in ("resign", ""):
                break
            moves.append("pass" if answer == "pass" else answer.upper())
            if moves[-2:] == ["pass", "pass"]:
                break
    finally:
        ask("quit")
        proc.wait()
    return moves


DATA = Path(__file__).resolve().parent / "data"


def recorded_games(size: int, count: int) -> list[list[str]]:
    """The first ``count`` committed GNU Go self-play records of a size (``bench/gnugo_records.py``)."""
    lines = (DATA / f"gnugo-{size}.txt").read_text().splitlines()
    return [line.split() for line in lines[:count]]


def playable(board: Board, rules: tuple[str, ...], moves: list[str]) -> list[str]:
    """The longest start of ``moves`` that every ruleset in ``rules`` accepts."""
    games = [Game(board, rules=r, players=2) for r in rules]
    for i, move in enumerate(moves):
        if any(g.why_illegal(move) is not None for g in games):
            return moves[:i]
        for g in games:
            g.play(move)
    return moves


def best(run: Callable[[], float], repeat: int) -> float:
    return min(run() for _ in range(repeat))


def play_run(board: Board, rules: str, games: list[list[str]]) -> Callable[[], float]:
    """A timed run of ``Game.play`` over every move of every game: seconds per move."""
    total = sum(len(moves) for moves in games)

    def run() -> float:
        fresh = [Game(board, rules=rules, players=2) for _ in games]
        start = time.process_time()
        for g, moves in zip(fresh, games):
            play = g.play
            for move in moves:
                play(move)
        return (time.process_time() - start) / total

    return run


def sgfmill_moves(moves: list[str]) -> list[tuple[int, int, str]]:
    """The stone plays of a grid game as sgfmill's (row, col, colour); passes skipped."""
    out = []
    for i, move in enumerate(moves):
        if move != "pass":
            out.append((int(move[1:]) - 1, COLUMNS.index(move[0]), "bw"[i % 2]))
    return out


def sgfmill_run(size: int, games: list[list[str]]) -> Callable[[], float] | None:
    """A timed run of sgfmill's ``Board.play`` over the same stone plays: seconds per play."""
    try:
        from sgfmill import boards
    except ImportError:
        return None
    converted = [sgfmill_moves(moves) for moves in games]
    total = sum(len(moves) for moves in converted)

    def run() -> float:
        fresh = [boards.Board(size) for _ in converted]
        start = time.process_time()
        for b, moves in zip(fresh, converted):
            play = b.play
            for row, col, colour in moves:
                play(row, col, colour)
        return (time.process_time() - start) / total

    return run


def time_play(board: Board, rules: str, games: list[list[str]], repeat: int) -> tuple[float, float | None]:
    """Seconds per ``Game.play`` and per sgfmill play (None off square grids), timed alternately."""
    ours = play_run(board, rules, games)
    theirs = sgfmill_run(board.width, games) if board.kind == "grid" and board.width == board.height else None
    best_ours = best_theirs = float("inf")
    for _ in range(repeat):
        best_ours = min(best_ours, ours())
        if theirs is not None:
            best_theirs = min(best_theirs, theirs())
    return best_ours, (best_theirs if theirs is not None else None)


def positions(board: Board, rules: str, moves: list[str], every: int) -> list[Game]:
    """Copies of the game after every ``every`` moves, where play is still on."""
    g = Game(board, rules=rules, players=2)
    out = []
    for i, move in enumerate(moves, 1):
        g.play(move)
        if i % every == 0 and g.to_move is not None:
            out.append(g.copy())
    return out


def time_why_illegal(samples: list[Game], repeat: int) -> float:
    """Seconds per ``why_illegal`` of an empty point, over every empty point of each sample."""
    asks = [(g, [p for p in g.board.points if g.stone_at(p) is None]) for g in samples]
    total = sum(len(points) for _, points in asks)

    def run() -> float:
        start = time.process_time()
        for g, points in asks:
            why = g.why_illegal
            for p in points:
                why(p)
        return time.process_time() - start

    return best(run, repeat) / total


def time_legal_moves(samples: list[Game], repeat: int) -> float:
    """Seconds per ``legal_moves()`` call, averaged over the samples."""

    def run() -> float:
        start = time.process_time()
        for g in samples:
            g.legal_moves()
        return time.process_time() - start

    return best(run, repeat) / len(samples)


def bench(board: Board, rules: str, games: list[list[str]], args: argparse.Namespace) -> dict[str, object]:
    samples = [g for game in games for g in positions(board, rules, game, every=10)]
    first = games[0]
    middle = positions(board, rules, first[:len(first) // 2], every=max(len(first) // 2, 1))[-1:]
    play, sgfmill = time_play(board, rules, games, args.repeat)
    return {
        "moves": sum(len(m) for m in games),
        "play": play, "sgfmill": sgfmill,
        "why": time_why_illegal(samples, args.repeat),
        "legal": time_legal_moves(samples, args.repeat),
        "legal_max": max(time_legal_moves([g], args.repeat) for g in samples),
        "legal_mid": time_legal_moves(middle, args.repeat * 5) if middle else None,
        "mid_stones": len(middle[0].stones()) if middle else 0,
    }


def ko_grid(kos: int) -> dict[str, int]:
    """A 19x19 set-up with ``kos`` simple kos (the KO7 shape, White's stone in the mouth)."""
    setup: dict[str, int] = {}
    shape = {(2, 3): 0, (1, 2): 0, (2, 1): 0, (3, 3): 1, (4, 2): 1, (3, 1): 1, (2, 2): 1}
    for k in range(kos):
        x0, y0 = 6 * (k % 3), 4 * (k // 3)
        for (x, y), seat in shape.items():
            setup[f"{COLUMNS[x0 + x]}{y0 + y + 1}"] = seat
    return setup


def ko_gadgets(copies: int) -> tuple[Board, dict[str, int]]:
    """A graph of ``copies`` double kos in seki and triple kos (the spec's gadgets, main strings
    of two nodes): the coupled ko positions whose types need the search of J6-J7."""
    points: list[str] = []
    edges: list[tuple[str, str]] = []
    setup: dict[str, int] = {}

    def edge(a: str, b: str) -> None:
        for p in (a, b):
            if p not in points:
                points.append(p)
        edges.append((a, b))

    for c in range(copies):
        for kind, held in (("d", (1, 0)), ("t", (0, 1, 1))):
            b, w = f"{kind}{c}b", f"{kind}{c}w"
            edge(b, b + "'")
            edge(w, w + "'")
            setup.update({b: 0, b + "'": 0, w: 1, w + "'": 1})
            for k, seat in enumerate(held):
                x, y = f"{kind}{c}x{k}", f"{kind}{c}y{k}"
                edge(b, x)
                edge(x, y)
                edge(y, w)
                setup[x if seat == 1 else y] = seat
            if kind == "d":
                edge(f"{kind}{c}s", b)
                edge(f"{kind}{c}s", w)
    return Board(points, edges), setup


def time_full_analysis(board: Board, setup: dict[str, int], repeat: int) -> tuple[int, float, float]:
    """(ko positions, seconds per full analysis from scratch with every ko's type read, of which
    the types). The analysis works a type out when it is read, so the
    types are what reading them all adds to the rest: mouths, strings, couplings, ko positions."""
    from polygo.rules.repetition.jasiek.analysis import Analysis
    g = Game(board, rules="jasiek-nkr", setup=setup)
    rule = g._rule

    def run(with_types: bool) -> float:
        start = time.process_time()
        for _ in range(20):
            a = Analysis(rule.shapes)
            a.rebuild(g.position, rule.had_two)
            if with_types:
                for ko in a.kos:
                    a.kinds[ko]
        return (time.process_time() - start) / 20

    full = best(lambda: run(True), repeat)
    return len(g.ko_analysis()), full, full - best(lambda: run(False), repeat)


def nkr_incremental(board: Board, games: list[list[str]]) -> tuple[int, int, int]:
    """(plays, ko positions seen after the plays in all, types computed) over the games."""
    plays = seen = computed = 0
    for moves in games:
        g = Game(board, rules="jasiek-nkr", players=2)
        before = g._rule.analysis.classified
        for move in moves:
            g.play(move)
            plays += 1
            seen += len(g._rule.analysis.kos)
        computed += g._rule.analysis.classified - before
    return plays, seen, computed


def report_nkr(args: argparse.Namespace) -> None:
    board = Board.standard(19)
    if args.gnugo:
        games = [playable(board, ("jasiek-nkr",), gnugo_game(19, args.seed + i, args.cap)) for i in range(args.games)]
    else:
        games = [random_game(board, "jasiek-nkr", args.seed + i, args.cap) for i in range(args.games)]
    plays, seen, computed = nkr_incremental(board, games)
    kind = "GNU Go games" if args.gnugo else "playouts"
    print(f"\njasiek-nkr on 19x19, {len(games)} {kind}: {plays} plays, {seen} ko positions on the board after "
          f"them in all, {computed} types computed ({computed / max(seen, 1):.0%} of the ko positions standing; "
          f"the rest kept from the play before)")
    print(f"{'position':<40} {'kos':>4} {'full analysis':>14} {'of it: types':>13} {'per ko':>9}")
    rows = [(f"19x19, {n} simple kos", board, ko_grid(n)) for n in (3, 12)]
    rows += [(f"graph, {2 * n} double/triple kos in seki", *ko_gadgets(n)) for n in (2, 8)]
    for name, b, setup in rows:
        kos, full, types = time_full_analysis(b, setup, args.repeat)
        print(f"{name:<40} {kos:>4} {us(full, 14)} {us(types, 13)} {us(types / max(kos, 1), 9)}")


def us(seconds: object, width: int) -> str:
    return f"{'-':>{width}}" if seconds is None else f"{seconds * 1e6:{width}.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", nargs="+", default=list(BOARDS), help="board specs (default: %(default)s)")
    parser.add_argument("--rules", nargs="+", default=list(RULES), help="presets (default: %(default)s)")
    parser.add_argument("--games", type=int, default=3, help="random games per row (default: %(default)s)")
    parser.add_argument("--opening", type=int, default=300,
                        help="plays of each game timed in the opening rows (default: %(default)s)")
    parser.add_argument("--cap", type=int, default=2000, help="plays per game at most (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=7, help="timing runs; the best is shown (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gnugo", action="store_true",
                        help="time GNU Go self-play games (level 0) instead of random playouts (square grids)")
    parser.add_argument("--records", action="store_true",
                        help="time the GNU Go records in bench/data (9x9 and 19x19) instead of random playouts")
    args = parser.parse_args(argv)
    if args.gnugo and GNUGO is None:
        parser.error("--gnugo needs GNU Go on the PATH or in /usr/games (apt-get install gnugo)")
    kind = ("GNU Go self-play games (level 0)" if args.gnugo else "committed GNU Go records" if args.records
            else "seeded random games")
    print(f"python {sys.version.split()[0]}; {args.games} {kind} per row (seed {args.seed}); "
          f"CPU time, best of {args.repeat}; µs")
    header = (f"{'board':<12} {'rules':<12} {'part':<8} {'plays':>6} {'play':>7} {'sgfmill':>8} {'ratio':>6} "
              f"{'why_illegal':>11} {'legal_moves':>11} {'max':>7} {'mid-game':>8} {'(stones)':>8}")
    print(header)
    print("-" * len(header))
    for spec in args.boards:
        board = Board.parse(spec)
        for rules in args.rules:
            if args.gnugo:
                whole = [playable(board, (rules,), gnugo_game(board.width, args.seed + i, args.cap))
                         for i in range(args.games)]
            elif args.records:
                whole = [playable(board, (rules,), moves) for moves in recorded_games(board.width, args.games)]
            else:
                whole = [random_game(board, rules, args.seed + i, args.cap) for i in range(args.games)]
            for part, games in (("opening", [g[:args.opening] for g in whole]), ("game", whole)):
                r = bench(board, rules, games, args)
                ratio = f"{r['play'] / r['sgfmill']:6.2f}" if r["sgfmill"] else f"{'-':>6}"
                print(f"{spec:<12} {rules:<12} {part:<8} {r['moves']:>6} {us(r['play'], 7)} {us(r['sgfmill'], 8)} {ratio} "
                      f"{us(r['why'], 11)} {us(r['legal'], 11)} {us(r['legal_max'], 7)} {us(r['legal_mid'], 8)} "
                      f"{r['mid_stones']:>8}", flush=True)
    print("""
part:        opening = the first --opening plays of each game; game = the whole playouts
plays:       plays timed (all games of the row)
play:        Game.play per move: parse, turn, occupied, suicide, full repetition check, apply, record
sgfmill:     sgfmill.boards.Board.play per stone play of the same games (captures only, no repetition
             check); ratio = play / sgfmill (issue 13: at most 0.35 on real games)
why_illegal: per empty point, at every 10th position of the games
legal_moves: per call at every 10th position: the mean, and the slowest position (max)
mid-game:    legal_moves at the middle of the first game, and the stones then on the board (issue 13: under 0.3 ms on 19x19)""")
    if "jasiek-nkr" in args.rules:
        report_nkr(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
