"""Operations under load: a backup of the live database, and a graceful stop, while games are played.

The database first gets --megabytes of finished games, so that a copy takes a while. Then a
`polygo-server` process (the real command line) serves N scripted 19x19 games (the clients of
server_load.py: each move is sent as soon as the opponent's arrives). While they play:

1. the move rate over a quiet second, for reference;
2. `polygo-server backup` (VACUUM INTO + integrity_check): its duration and the move rate
   meanwhile;
3. the peer: the sqlite3 shell's `.backup` (SQLite's online backup API, which starts over
   whenever another connection writes the source), killed after --cap seconds: whether it
   finished, its duration and the move rate meanwhile;
4. SIGTERM: seconds from the signal to the process's exit, and whether every move the clients saw
   acknowledged is in the database.

Loopback only; every loop is bounded.

    python bench/server_ops.py                 # 200 games over 200 MB; needs the sqlite3 shell
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from server_load import ROOT, Game, free_port, script, seat_games, wait_ready

sys.path.insert(0, str(ROOT))

from polygo.server.store.writer import _connect  # noqa: E402


def delivered(states: list[Game]) -> int:
    return sum(g.delivered for g in states)


async def window(states: list[Game], argv: list[str], cap: float) -> dict:
    """Run a command (killed after `cap` seconds); its seconds, exit status and the move rate meanwhile."""
    before, began = delivered(states), time.perf_counter()
    proc = await asyncio.create_subprocess_exec(*argv, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), cap)
        finished = proc.returncode == 0
    except TimeoutError:
        proc.kill()
        out, _ = await proc.communicate()
        finished = False
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "rate": (delivered(states) - before) / seconds, "finished": finished,
            "output": out.decode().strip()}


def fill(db: str, megabytes: int) -> int:
    """Finished games straight into a new database (schema by the server's own migration), so the
    copies have something to copy; returns the moves written."""
    con = _connect(db, "NORMAL")
    moves, room = 0, 0
    event = "{" + '"pad":"' + "x" * 200 + '"}'
    while Path(db).stat().st_size < megabytes * 1e6:
        rows = []
        for _ in range(100):
            room_id = f"filler{room:07d}"
            room += 1
            con.execute("INSERT INTO rooms (room_id, owner, invite, version, created_at, updated_at)"
                        " VALUES (?, 'x', NULL, 300, 0, 0)", (room_id,))
            con.execute("INSERT INTO room_settings (room_id, settings) VALUES (?, '{}')", (room_id,))
            con.execute("INSERT INTO results (room_id, body, finished_at) VALUES (?, '{}', 0)", (room_id,))
            rows += [(room_id, i, i % 2, "A1", i, i + 1) for i in range(300)]
            con.executemany("INSERT INTO events (room_id, version, body) VALUES (?, ?, ?)",
                            [(room_id, i + 1, event) for i in range(300)])
        con.executemany("INSERT INTO moves (room_id, idx, seat, move, seq, version) VALUES (?, ?, ?, ?, ?, ?)", rows)
        moves += len(rows)
    con.close()
    return moves


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="enough to still be playing at the SIGTERM")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds each backup may take")
    parser.add_argument("--megabytes", type=int, default=200, help="finished games stored before the load")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "polygo.db")
        filled = fill(db, args.megabytes)
        proc = subprocess.Popen([sys.executable, "-m", "polygo.server", "--port", str(port), "--db", db,
                                 "--log-level", "WARNING"], cwd=ROOT)
        try:
            await wait_ready(port)
            states = [Game(script(171)) for _ in range(args.games)]
            _, tasks, go = await seat_games("polygo", [port], states)
            await asyncio.sleep(0.2)
            go.set()
            await asyncio.sleep(1.0)
            quiet = await window(states, [sys.executable, "-c", "import time; time.sleep(1)"], 10)
            ours = await window(states, [sys.executable, "-m", "polygo.server", "backup", str(Path(tmp) / "vacuum.db"),
                                         "--db", db], args.cap)
            peer = await window(states, [shutil.which("sqlite3") or "sqlite3", db,
                                         f".backup '{Path(tmp) / 'shell.db'}'"], args.cap)
            print(f"{args.games} games of 19x19 at full speed over {filled} stored moves "
                  f"({Path(db).stat().st_size / 1e6:.0f} MB)")
            print(f"{'':34} {'seconds':>8} {'moves/s meanwhile':>18}")
            print(f"{'nothing (reference)':34} {quiet['seconds']:8.2f} {quiet['rate']:18.0f}")
            print(f"{'polygo-server backup (VACUUM INTO)':34} {ours['seconds']:8.2f} {ours['rate']:18.0f}   "
                  f"{ours['output'] if ours['finished'] else 'NOT finished: ' + ours['output']}")
            print(f"{'sqlite3 shell .backup':34} {peer['seconds']:8.2f} {peer['rate']:18.0f}   "
                  f"{'finished' if peer['finished'] else f'NOT finished in {args.cap:g} s (killed)'}")
            duration = (f"backup duration polygo/shell x{ours['seconds'] / peer['seconds']:.2f}" if peer["finished"]
                        else f"the shell's .backup did not finish in {args.cap:g} s, VACUUM INTO took "
                             f"{ours['seconds']:.1f} s")
            print(f"ratio: {duration}; move rate during VACUUM INTO / reference x{ours['rate'] / quiet['rate']:.2f}, "
                  f"during .backup x{peer['rate'] / quiet['rate']:.2f}", flush=True)

            if all(g.done.is_set() for g in states):
                print("the games ended before the stop: use more games for the SIGTERM figure")
            stopped = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(proc.wait, 60)
            drain = time.perf_counter() - stopped
            await asyncio.sleep(0.2)
            acked = delivered(states)
            for task in tasks:
                task.cancel()
            with sqlite3.connect(db) as con:
                stored = con.execute("SELECT count(*) FROM moves").fetchone()[0] - filled
            print(f"SIGTERM with {sum(not g.done.is_set() for g in states)} games playing: exit {code} after "
                  f"{drain:.2f} s; moves the opponents received {acked}, moves in the database {stored} "
                  f"({'every acknowledged move stored' if stored >= acked else 'MISSING MOVES'})")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    asyncio.run(main())
