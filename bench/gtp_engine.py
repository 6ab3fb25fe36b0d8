"""GTP round trips: polygo's asyncio `GtpEngine` against a plain blocking pipe to the same engine.

Both drive GNU Go (or the scripted fake engine with --fake) through the same commands: `rounds`
pairs of `play b D4` / `undo`, each sent only once the previous answer is read, so the figure is the
round trip (the engine's own work is tiny for these two commands). The peer writes to the engine's
stdin and reads its stdout with no event loop, no futures, no ids and no logging: what is left of
the difference is the cost of the asyncio client (one command object and future per request, the
reader task, the id check, cancellation safety).

    python bench/gtp_engine.py                  # GNU Go, 2000 rounds
    python bench/gtp_engine.py --rounds 500 --fake
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from polygo.client.gtp import GtpEngine  # noqa: E402

COMMANDS = ("play b D4", "undo")


def engine_argv(fake: bool) -> list[str]:
    if fake:
        return [sys.executable, str(ROOT / "tests" / "client" / "fake_gtp.py")]
    gnugo = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
    if gnugo is None:
        sys.exit("GNU Go is not installed (apt-get install gnugo); run with --fake for the scripted engine")
    return [gnugo, "--mode", "gtp", "--level", "0"]


def pipe_rounds(argv: list[str], rounds: int) -> float:
    """Seconds for `rounds` command pairs over a blocking pipe."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None

    def ask(text: str) -> str:
        process.stdin.write(text + "\n")
        process.stdin.flush()
        lines = []
        while (line := process.stdout.readline()) not in ("\n", ""):
            lines.append(line)
        if not lines or not lines[0].startswith("="):
            raise RuntimeError(f"{text!r} failed: {lines}")
        return "".join(lines)

    ask("boardsize 19")
    ask("clear_board")
    start = time.perf_counter()
    for _ in range(rounds):
        for command in COMMANDS:
            ask(command)
    elapsed = time.perf_counter() - start
    ask("quit")
    process.wait()
    return elapsed


async def engine_rounds(argv: list[str], rounds: int) -> float:
    """Seconds for `rounds` command pairs through `GtpEngine`."""
    async with await GtpEngine.popen(argv) as engine:
        await engine.boardsize(19)
        await engine.clear_board()
        start = time.perf_counter()
        for _ in range(rounds):
            for command in COMMANDS:
                await engine.command(command)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--fake", action="store_true", help="the scripted fake engine instead of GNU Go")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds takes 1 or more")
    argv = engine_argv(args.fake)
    commands = 2 * args.rounds
    peer = pipe_rounds(argv, args.rounds)
    ours = asyncio.run(engine_rounds(argv, args.rounds))
    print(f"engine: {' '.join(argv)}; {commands} commands each")
    print(f"blocking pipe (peer): {peer:.3f} s, {1e6 * peer / commands:.1f} us per command")
    print(f"GtpEngine (asyncio):  {ours:.3f} s, {1e6 * ours / commands:.1f} us per command")
    print(f"ratio GtpEngine / pipe: {ours / peer:.2f}")


if __name__ == "__main__":
    main()
