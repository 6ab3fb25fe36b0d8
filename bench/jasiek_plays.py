"""Where jasiek-nkr's time goes on the committed GNU Go records: µs per play by how the rule saw
it, beside chinese on the same plays, and the floor of the rule's quiet design.

Each play of the records (`bench/engine.py --records`' games) is put in a category by one
instrumented replay (which of the rule's hooks it reached, with a mouth on the board or not),
then every play is timed alone (`perf_counter` around `Game.play`, the best of `--repeat`
replays, jasiek-nkr and chinese in turn). "over" is what a category adds to every move on
average over chinese. With `--floor` the same plays are timed again in a process of their own
with the rule held asleep from the start (every stone play down the quick path's store in
``mouth_watch``, its lone-stone and wall tests, no hook doing anything), beside chinese timed in that
process ("its chinese": processes differ by a few per cent): what no correct implementation of
the quiet design goes under, since a play that reaches the rule does more. Ratios are to sgfmill's
``Board.play`` over the same stone plays (CPU time, best of `--repeat`), as `bench/engine.py`
prints them. With `--bytecodes` each play's Python bytecodes are counted instead (one replay
under ``sys.settrace``): the same table without the machine's noise, which per-play times of a
few µs have plenty of on a shared machine (it leaves out the work a bytecode does in C: a set
built, a list copied). A measurement to run by hand, not a test:

    python bench/jasiek_plays.py --boards 19 9 --repeat 9 --floor
    python bench/jasiek_plays.py --boards 19 9 --bytecodes
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engine  # noqa: E402
from polygo.rules import Game  # noqa: E402
from polygo.rules.repetition.jasiek import rules as nkr  # noqa: E402

NewKoRules = nkr.NewKoRules


def records(spec: str) -> tuple[engine.Board, list[list[str]]]:
    """The board and the six committed records both presets accept (`bench/engine.py --records`)."""
    board = engine.Board.parse(spec)
    both = ("chinese", "jasiek-nkr")
    return board, [engine.playable(board, both, m) for m in engine.recorded_games(board.width, 6)]


def categories(board: engine.Board, games: list[list[str]]) -> list[str]:
    """How the rule saw each play of one replay (the hooks wrapped for it, then put back)."""
    seen: dict[str, Any] = {}
    hooks = {name: getattr(NewKoRules, name) for name in ("before_stone", "stone_played", "alone", "walled")}

    def before_stone(self: Any, seat: int, p: int, probe: Any) -> Any:
        a = self.analysis
        if probe.captured:
            seen["hook"] = "ko capture" if p in a.ko_at else "capture, mouths elsewhere" if a.matched \
                else "capture, no mouth"
        else:
            seen["hook"] = "careful, in a ko position" if p in a.ko_at else "careful, plain"
        return hooks["before_stone"](self, seat, p, probe)

    def stone_played(self: Any, index: int, seat: int, p: int) -> None:
        seen.setdefault("played", True)
        hooks["stone_played"](self, index, seat, p)

    def alone(self: Any, *args: int) -> None:
        seen["quiet hook"] = True
        hooks["alone"](self, *args)

    def walled(self: Any, *args: int) -> None:
        seen["quiet hook"] = True
        hooks["walled"](self, *args)

    for name, hook in (("before_stone", before_stone), ("stone_played", stone_played), ("alone", alone),
                       ("walled", walled)):
        setattr(NewKoRules, name, hook)
    out = []
    try:
        for moves in games:
            g = Game(board, rules="jasiek-nkr", players=2)
            for move in moves:
                seen.clear()
                ko = bool(g._rule.analysis.matched)
                g.play(move)
                if move == "pass":
                    out.append("pass")
                elif "hook" in seen:
                    out.append(seen["hook"])
                elif "played" in seen:
                    out.append("woken by alone or walled" if "quiet hook" in seen
                               else "plain, a ko standing" if ko else "plain, no mouth")
                else:
                    out.append("quiet, alone or walled called" if "quiet hook" in seen else "quiet")
    finally:
        for name, hook in hooks.items():
            setattr(NewKoRules, name, hook)
    return out


def per_play(board: engine.Board, rules: str, games: list[list[str]], best: list[float]) -> None:
    """One replay, each play timed alone; ``best`` keeps each play's best."""
    k = 0
    clock = time.perf_counter
    for moves in games:
        play = Game(board, rules=rules, players=2).play
        for move in moves:
            start = clock()
            play(move)
            spent = clock() - start
            if spent < best[k]:
                best[k] = spent
            k += 1


def bytecodes(board: engine.Board, rules: str, games: list[list[str]]) -> list[int]:
    """Each play's bytecodes, in one replay (``sys.settrace`` with opcode events)."""
    counts: list[int] = []

    def opcode(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            counts[-1] += 1
        return opcode

    def call(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        return opcode

    for moves in games:
        play = Game(board, rules=rules, players=2).play
        for move in moves:
            counts.append(0)
            sys.settrace(call)
            try:
                play(move)
            finally:
                sys.settrace(None)
    return counts


def held_quiet() -> Any:
    """NewKoRules.reset that leaves the rule quiet for good (the floor; see the module's doc)."""
    reset = NewKoRules.reset

    def quiet_reset(self: Any) -> None:
        reset(self)
        self.mouth_watch = self._deferred
        self.hot_points, self.walls = nkr._NOWHERE, nkr._NOWHERE
        self.hot_hashes, self.sees_captures = (), False

    return quiet_reset


def child(part: str, spec: str, repeat: int) -> list[Any]:
    """Run in a process of its own (``--part``), so that the class changes it makes (the hooks
    wrapped, the rule held quiet) leave the timed process's specialised bytecode alone: each
    change to a class throws away what CPython 3.11 specialised on it."""
    done = subprocess.run([sys.executable, __file__, "--part", part, spec, str(repeat)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def part(name: str, spec: str, repeat: int) -> None:
    """A child's work: the categories, or the floor's best time per play, as JSON."""
    board, games = records(spec)
    if name == "categories":
        print(json.dumps(categories(board, games)))
        return
    NewKoRules.reset = held_quiet()
    NewKoRules.alone = NewKoRules.walled = NewKoRules.passed = lambda self, *args: None
    n = sum(len(moves) for moves in games)
    best, chinese = [float("inf")] * n, [float("inf")] * n
    for _ in range(repeat):   # chinese beside it in this process: processes differ by a few %
        per_play(board, "jasiek-nkr", games, best)
        per_play(board, "chinese", games, chinese)
    print(json.dumps([best, chinese]))


def report(spec: str, repeat: int, floor: bool, count_bytecodes: bool = False) -> None:
    board, games = records(spec)
    cats = child("categories", spec, 1)
    columns = ["jasiek-nkr", "chinese"]
    sgfmill = None if count_bytecodes else engine.sgfmill_run(board.width, games)
    peer = float("inf")
    if count_bytecodes:
        best: dict[str, list[float]] = {c: [float(b) for b in bytecodes(board, c, games)] for c in columns}
        unit, scale, what = "bc", 1, "bytecodes a play; over = bytecodes a move over chinese"
    else:
        best = {c: [float("inf")] * len(cats) for c in columns}
        unit, scale, what = "µs", 1e6, f"best of {repeat} per play; over = µs a move over chinese"
    for _ in range(0 if count_bytecodes else repeat):
        per_play(board, "jasiek-nkr", games, best["jasiek-nkr"])
        per_play(board, "chinese", games, best["chinese"])
        if sgfmill is not None:
            peer = min(peer, sgfmill())
    if floor and not count_bytecodes:
        columns += ["floor", "its chinese"]
        best["floor"], best["its chinese"] = child("floor", spec, repeat)
    rows: dict[str, list[float]] = defaultdict(lambda: [0.0] * (1 + len(columns)))   # count, sums
    for k, cat in enumerate(cats):
        row = rows[cat]
        row[0] += 1
        for i, c in enumerate(columns):
            row[1 + i] += best[c][k]
    n = len(cats)
    head = "".join(f"{c + ' ' + unit:>15}" for c in columns)
    print(f"\n{spec}: {n} moves of 6 records, {what}")
    print(f"{'plays':32}{'n':>6} {head}{'over':>8}" + (f"{'floor over':>12}" if len(columns) > 2 else ""))
    for cat, row in sorted(rows.items(), key=lambda kv: kv[1][2] - kv[1][1]):
        count = int(row[0])
        cells = "".join(f"{v / count * scale:15.2f}" for v in row[1:])
        over = f"{(row[1] - row[2]) / n * scale:8.3f}"
        if len(columns) > 2:
            over += f"{(row[3] - row[4]) / n * scale:12.3f}"
        print(f"{cat:32}{count:6} {cells}{over}")
    totals = [sum(best[c]) for c in columns]
    stones = sum(len(engine.sgfmill_moves(g)) for g in games)
    over = f"{(totals[0] - totals[1]) / n * scale:8.3f}"
    if len(columns) > 2:
        over += f"{(totals[2] - totals[3]) / n * scale:12.3f}"
    print(f"{'every move':32}{n:6} " + "".join(f"{t / n * scale:15.2f}" for t in totals) + over)
    if sgfmill is not None:
        print(f"ratio to sgfmill's Board.play ({peer * 1e6:.2f} µs a stone play, {stones} plays): "
              + ", ".join(f"{c} {t / n / peer:.2f}" for c, t in zip(columns, totals))
              + " (sums of per-play bests: lower than bench/engine.py's)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", nargs="+", default=["19", "9"])
    parser.add_argument("--repeat", type=int, default=9, help="replays; each play's best is kept")
    parser.add_argument("--floor", action="store_true", help="time the plays with the rule held quiet too")
    parser.add_argument("--bytecodes", action="store_true",
                        help="count each play's bytecodes in one replay instead of timing it (no --floor)")
    parser.add_argument("--part", nargs=3, help=argparse.SUPPRESS)   # (see child)
    args = parser.parse_args()
    if args.part:
        part(args.part[0], args.part[1], int(args.part[2]))
        return
    for spec in args.boards:
        report(spec, args.repeat, args.floor, args.bytecodes)


if __name__ == "__main__":
    main()
