"""A scripted GTP engine for the bridge's tests: answers what its flags tell it to.

    python fake_gtp.py --moves D4,pass,resign   genmove answers these in turn, then "pass"
                       --refuse play            answer "? illegal move" to play commands
                       --unknown time_left      answer "? unknown command" to this command
                       --commands kgs-time_settings   also list these in list_commands
                       --die-on genmove         exit (status 3) when this command arrives
                       --hang-on genmove        never answer this command
                       --garble                 answer every command with a line that is not GTP
                       --no-ids                 leave the command id out of responses
                       --slow 6 --slow-first 1  the first N genmoves take this many seconds
                       --dead C3,D4             final_status_list dead answers these points
                       --max-size 19            refuse boardsize above this
                       --name Fake --version 1.0   what name and version answer
                       --estimate W+3.5         what estimate_score answers
Every command received is appended to --log FILE, one per line, without its id.
"""

import argparse
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--moves", default="")
parser.add_argument("--refuse", action="append", default=[])
parser.add_argument("--unknown", action="append", default=[])
parser.add_argument("--commands", default="")
parser.add_argument("--die-on")
parser.add_argument("--hang-on")
parser.add_argument("--garble", action="store_true")
parser.add_argument("--no-ids", action="store_true")
parser.add_argument("--log")
parser.add_argument("--dead", default="")
parser.add_argument("--estimate", default="0")
parser.add_argument("--max-size", type=int, default=25)
parser.add_argument("--name", default="Fake")
parser.add_argument("--version", default="1.0")
parser.add_argument("--slow", type=float, default=0.0)
parser.add_argument("--slow-first", type=int, default=0)
args = parser.parse_args()
moves = [m for m in args.moves.split(",") if m]

for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    ident = ""
    if words[0].isdigit():
        ident, words = words[0], words[1:]
    name = words[0]
    if args.log:
        with open(args.log, "a") as log:
            log.write(" ".join(words) + "\n")
    tag = "" if args.no_ids else ident
    if name == args.die_on:
        print("fake engine: dying as asked", file=sys.stderr, flush=True)
        sys.exit(3)
    if name == args.hang_on:
        time.sleep(3600)
    if args.garble:
        print("hello there\n", flush=True)
        continue
    if name in args.unknown:
        print(f"?{tag} unknown command\n", flush=True)
    elif name in args.refuse:
        print(f"?{tag} illegal move\n", flush=True)
    elif name == "genmove":
        if args.slow_first > 0:
            args.slow_first -= 1
            time.sleep(args.slow)
        print(f"={tag} {moves.pop(0) if moves else 'pass'}\n", flush=True)
    elif name == "final_status_list":
        points = args.dead.split(",") if words[1:] == ["dead"] and args.dead else []
        print(f"={tag} {' '.join(points)}\n", flush=True)
    elif name == "boardsize" and any(int(w) > args.max_size for w in words[1:] if w.isdigit()):
        print(f"?{tag} unacceptable size\n", flush=True)
    elif name == "estimate_score":
        print(f"={tag} {args.estimate} (upper bound: 0, lower: 0)\n", flush=True)
    elif name in ("name", "version"):
        print(f"={tag} {getattr(args, name)}\n", flush=True)
    elif name == "final_score":
        print(f"={tag} B+3.5\n", flush=True)
    elif name == "list_commands":
        listed = ["play", "genmove", "quit", *(c for c in args.commands.split(",") if c)]
        print(f"={tag} " + "\n".join(listed) + "\n", flush=True)
    elif name == "quit":
        print(f"={tag}\n", flush=True)
        break
    else:
        print(f"={tag}\n", flush=True)
