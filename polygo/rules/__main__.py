"""``python -m polygo.rules replay ...``: the referee on the command line (JSON lines out)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from .errors import GoRulesError
from .referee import game_from_options, referee


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m polygo.rules", description="Settle rules questions.")
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="replay moves and print what the rules make of each")
    replay.add_argument("moves", nargs="*", help="moves in order: D4, pass, 'appeal D4', 'white:accept', ...")
    replay.add_argument("--rules", default="kee", help="ruleset preset (default kee)")
    replay.add_argument("--board", default="19", help="19, 9x9, torus:9x9, a shipped board, or a .json file")
    replay.add_argument("--players", default="2", help="a number of players, or names separated by commas")
    replay.add_argument("--komi", type=float)
    replay.add_argument("--handicap", type=int)
    replay.add_argument("--handicap-mode", choices=["fixed", "free"])
    replay.add_argument("--superko", choices=["positional", "situational"])
    replay.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="any other ruleset option, e.g. a1=off, a3=true, move_cap_per_point=5, ko_shapes=reconstructed "
                             "(VALUE read as JSON when it is JSON, else as a string)")
    replay.add_argument("--record", metavar="FILE", help="read a game record JSON ('-' for stdin)")
    return parser


def _players(text: str) -> Any:
    return int(text) if text.isdigit() else [name.strip() for name in text.split(",")]


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise GoRulesError(f"--option takes KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _read_record(path: str) -> dict[str, Any]:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        raise GoRulesError(f"cannot read record {path!r}: {exc.strerror}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GoRulesError(f"record {path!r} is not JSON: {exc}") from None
    if not isinstance(record, dict):
        raise GoRulesError("a record is a JSON object with board, rules, players, options and moves")
    return record


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.record:
            record = _read_record(args.record)
            game = game_from_options(record.get("board", "19"), record.get("rules", "kee"),
                                     record.get("players", 2), record.get("options") or {})
            moves = list(record.get("moves", [])) + list(args.moves)
        else:
            options = {key: value for key, value in (
                ("komi", args.komi), ("handicap", args.handicap),
                ("handicap_mode", args.handicap_mode), ("superko", args.superko)) if value is not None}
            options.update(_option(text) for text in args.option)
            game = game_from_options(args.board, args.rules, _players(args.players), options)
            moves = args.moves
        for line in referee(game, moves):
            print(json.dumps(line, ensure_ascii=False))
    except GoRulesError as exc:
        print(f"python -m polygo.rules: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
