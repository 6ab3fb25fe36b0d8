"""HTTP under game load: how long `GET /`, a static file (fresh and as a 304), `/healthz` and
`/metrics` take while polygo plays server_load.py's scripted games, and what each costs the server.

Two phases against one polygo process (prometheus_client installed; `/metrics` on the game port
unless `--metrics-port`):

- idle: each path requested `--idle` times one after another, with no game; the server's CPU over
  those requests, divided by their number, is the CPU per request (the heartbeat's share is
  negligible over a second or two);
- loaded: server_load.py's games (`--games`, default 200) play while a prober in its own process
  (so the game clients' busy loop does not delay it) asks for the paths in turn at a steady
  `--rate`; each request is a new connection (the server closes it after its answer), timed from
  connect to the last byte.

`--metrics-port` gives the server a separate metrics port (served by a thread of its own where
the checkout has one) and asks it for `/healthz` and `/metrics`.

`--against DIR` runs the same against the server of another checkout (e.g. a worktree of main),
the two alternated `--repeat` times, for before/after figures on a shared machine.

    python bench/server_http.py                         # 200 games, 20 requests/s
    python bench/server_http.py --games 50 --rate 40
    python bench/server_http.py --against /tmp/main --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import server_load
from server_load import Game, close_games, cpu_seconds, free_port, script, seat_games, wait_ready

POLYGO = server_load.POLYGO
PATHS = ("/", "/app.js", "/app.js 304", "/healthz", "/metrics")
"""What the prober asks for; "/app.js 304" is /app.js with the ETag of an earlier answer."""
PROBES = ("/healthz", "/metrics")
"""What the metrics port is asked for, when the server has one."""


def get(ports: tuple[int, int], target: str, etags: dict[str, str]) -> tuple[float, int]:
    """One request on a new connection to the game port or, for PROBES, the metrics port (the
    second of `ports`, the game port when there is none): (seconds from connect to the last
    byte, status)."""
    path, _, conditional = target.partition(" ")
    port = ports[1] if path in PROBES else ports[0]
    headers = {"If-None-Match": etags[path]} if conditional and path in etags else {}
    began = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        answer.read()
    finally:
        connection.close()
    if answer.getheader("ETag"):
        etags[path] = answer.getheader("ETag")
    return time.perf_counter() - began, answer.status


def probe(ports: tuple[int, int], rate: float, seconds: float) -> dict[str, list[float]]:
    """Ask for PATHS in turn, `rate` requests a second, for `seconds`: each path's durations."""
    etags: dict[str, str] = {}
    timings: dict[str, list[float]] = {path: [] for path in PATHS}
    get(ports, "/app.js", etags)
    began = time.perf_counter()
    for n in range(int(rate * seconds)):
        delay = began + n / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        path = PATHS[n % len(PATHS)]
        took, status = get(ports, path, etags)
        if status not in (200, 304):
            raise RuntimeError(f"{path} answered {status}")
        timings[path].append(took)
    return timings


def idle_cost(pid: int, ports: tuple[int, int], count: int) -> dict[str, float]:
    """Server CPU (µs) per request of each path, asked `count` times in a row with no game."""
    etags: dict[str, str] = {}
    get(ports, "/app.js", etags)
    cost = {}
    for path in PATHS:
        before = cpu_seconds(pid)
        for _ in range(count):
            get(ports, path, etags)
        cost[path] = (cpu_seconds(pid) - before) / count * 1e6
    return cost


async def loaded(pid: int, ports: tuple[int, int], games: int, moves: int, rate: float, seconds: float) -> dict:
    """The games, with the prober running beside them in its own process."""
    states = [Game(script(moves)) for _ in range(games)]
    opened, tasks, go = await seat_games("polygo", [ports[0]], states)
    await asyncio.sleep(0.2)
    prober = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--probe", str(ports[0]), str(ports[1]), "--rate", str(rate), "--seconds", str(seconds),
        stdout=subprocess.PIPE)
    began, server_cpu = time.perf_counter(), cpu_seconds(pid)
    go.set()
    await asyncio.wait_for(asyncio.gather(*(g.done.wait() for g in states)), timeout=600)
    elapsed, server_cpu = time.perf_counter() - began, cpu_seconds(pid) - server_cpu
    out, _ = await prober.communicate()
    await close_games(opened, tasks)
    moves_done = sum(g.delivered for g in states)
    return {"timings": json.loads(out), "rate": moves_done / elapsed, "seconds": elapsed,
            "cpu_per_move": server_cpu / moves_done * 1e6}


async def run(root: Path, args: argparse.Namespace, uvloop: bool) -> dict:
    """One idle phase and one loaded phase against a fresh server of the checkout `root`."""
    server_load.ROOT = root
    port = free_port()
    ports = (port, free_port() if args.metrics_port else port)
    if args.metrics_port:
        if "create_rate=1e9)" not in POLYGO:
            raise SystemExit("server_load.POLYGO changed: give its Config the metrics port another way")
        server_load.POLYGO = POLYGO.replace("create_rate=1e9)", f"create_rate=1e9, metrics_port={ports[1]})")
    with tempfile.TemporaryDirectory() as tmp:
        proc = server_load.start("polygo", port, tmp, "FULL", uvloop)
        try:
            await wait_ready(port)
            cost = await asyncio.to_thread(idle_cost, proc.pid, ports, args.idle)
            result = await loaded(proc.pid, ports, args.games, args.moves, args.rate, args.seconds)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    result["cost"] = cost
    return result


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def report(name: str, r: dict) -> None:
    print(f"{name}: {r['rate']:.0f} moves/s over {r['seconds']:.1f} s, {r['cpu_per_move']:.0f} µs of server "
          f"CPU a move, load average {os.getloadavg()[0]:.1f}")
    for path in PATHS:
        t = r["timings"][path]
        if not t:
            print(f"  {path:12} no request answered")
            continue
        print(f"  {path:12} {len(t):4d} requests  p50 {quantile(t, 0.5):8.1f} ms  p99 {quantile(t, 0.99):8.1f} ms"
              f"  max {max(t) * 1000:8.1f} ms  idle CPU {r['cost'][path]:6.0f} µs/request", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--moves", type=int, default=150, help="moves per player per game (at most 171)")
    parser.add_argument("--rate", type=float, default=20, help="requests a second, all paths together")
    parser.add_argument("--seconds", type=float, default=15, help="how long the prober asks (keep it under "
                                                                     "the games' length)")
    parser.add_argument("--idle", type=int, default=300, help="requests of each path in the idle phase")
    parser.add_argument("--against", type=Path, help="another checkout's server, alternated with this one")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--metrics-port", action="store_true",
                        help="/healthz and /metrics from a separate metrics port")
    parser.add_argument("--probe", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe is not None:
        print(json.dumps(probe(tuple(args.probe), args.rate, args.seconds)))
        return
    from polygo.server.app import loop_factory
    uvloop = loop_factory() is not None
    roots = {"this": server_load.ROOT}
    if args.against is not None:
        roots["against"] = args.against.resolve()
    print(f"{args.games} games, {args.rate:g} requests/s for {args.seconds:g} s; /healthz and /metrics on "
          f"{'a metrics port' if args.metrics_port else 'the game port'}; server on "
          f"{'uvloop' if uvloop else 'asyncio'}; load average {os.getloadavg()[0]:.1f}")
    p99: dict[str, dict[str, list[float]]] = {name: {path: [] for path in PATHS} for name in roots}
    for _ in range(args.repeat):
        for name, root in roots.items():
            r = await run(root, args, uvloop)
            report(f"{name} ({root})", r)
            for path in PATHS:
                if r["timings"][path]:
                    p99[name][path].append(quantile(r["timings"][path], 0.99))
    if args.repeat > 1:
        for name in roots:
            print(f"median p99 over {args.repeat} runs, {name}: " + ", ".join(
                f"{path} {statistics.median(v):.1f} ms" for path, v in p99[name].items() if v))


if __name__ == "__main__":
    asyncio.run(main())
