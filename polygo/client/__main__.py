"""`polygo`: play, watch, list rooms, export games, run bots — from the command line.

    polygo play --bots 2 --rules kee --board 9x9      a Kee game against two built-in bots
    polygo play --join ROOM                           take a seat in someone's room
    polygo watch ROOM | polygo rooms | polygo export GAME --format sgf
    polygo my-games                                   your unfinished games, those where it is your turn first
    polygo bot --builtin --room ROOM | polygo bot --gtp "gnugo --mode gtp --level 1"
    polygo play --seek chinese-9x9 --user ann         a rated game with whoever seeks it too
    polygo bot --builtin --arena arena-9x9 --user mybot     the server pairs it with the arena's bots

Errors print one line with a code and exit with status 2 (bad usage) or 1 (anything else).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from polygo.rules import Board, Game, GoRulesError
from polygo.protocol import JSON, MSGPACK, ChallengeState, Matched, RoomSettings, engine_options

from polygo.client.bot_config import BotConfig, read_config
from polygo.client.bot_service import serve
from polygo.client.bots import BuiltinBot
from polygo.client.errors import ClientError, ServerRefused, UsageError
from polygo.client.finding import Finding, find_games
from polygo.client.gtp_bridge import GtpBot
from polygo.client.local_server import local_server
from polygo.client.my_games import my_games, notice, table
from polygo.client.render import Style
from polygo.client.sdk import Bot, BotRunner
from polygo.client.room import result_line
from polygo.client.session import DEFAULT_URL, RECONNECT_FOR, Client, TokenStore, default_token_file
from polygo.client.terminal import TerminalApp

log = logging.getLogger("polygo")

PLAY_RECONNECT_FOR = 24 * 3600.0
"""A player at the terminal waits for the server as long as they like (Ctrl-C ends it)."""


class Parser(argparse.ArgumentParser):
    """argparse, with bad flags reported as a `bad-usage` error line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message} [bad-usage]\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="polygo", description="Play Go and its relatives on a polygo server.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--server", default=os.environ.get("POLYGO_SERVER", DEFAULT_URL),
                       help=f"server URL (POLYGO_SERVER, default {DEFAULT_URL})")
        p.add_argument("--name", default=os.environ.get("POLYGO_NAME"), help="your name (POLYGO_NAME, default your login)")
        p.add_argument("--token-file", type=Path, default=None,
                       help="where session tokens are kept (default $POLYGO_HOME/sessions.json)")
        p.add_argument("--json-frames", action="store_true", help="JSON text frames instead of msgpack")

    def login(p: argparse.ArgumentParser) -> None:
        p.add_argument("--user", help="log in as this registered user (its password in POLYGO_PASSWORD; "
                                      "registered on first use): rated pools and arenas need one")

    def room_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", help="ruleset: kee, lasker-maas, tromp-taylor, chinese, ...")
        p.add_argument("--board", help="19, 9x9, 7x5, torus:9x9, a shipped graph (hex5) or a JSON file")
        p.add_argument("--players", type=int, help="number of seats (2-8)")
        p.add_argument("--komi", type=float)
        p.add_argument("--handicap", type=int)
        p.add_argument("--handicap-mode", choices=["fixed", "free"])
        p.add_argument("--superko", choices=["situational", "positional"])
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="any other ruleset option, e.g. a1=off or move_cap_per_point=5 (hansen-sst), no_result_at=4 (nieminen), ko_shapes=reconstructed (jasiek-nkr); "
                            "VALUE is read as JSON when it is JSON, else as a string")
        p.add_argument("--clock", help="none, absolute:600, byoyomi:600+5x30, fischer:300+10, canadian:600+300/25, "
                                       "corr:3d (correspondence: days a move; corr:3d/10d banks up to 10 days)")
        p.add_argument("--private", action="store_true", help="unlisted room joined by invitation code")
        p.add_argument("--title", default="")

    play = sub.add_parser("play", help="play a game in the terminal")
    common(play)
    room_options(play)
    play.add_argument("--join", metavar="ROOM", help="sit in this room instead of creating one")
    play.add_argument("--invite", help="invitation code of a private room")
    play.add_argument("--seat", type=int, help="the seat to take (default: the first free one)")
    play.add_argument("--bots", type=int, default=0,
                      help="the last N seats are played by the server's house bot (the game survives restarts)")
    play.add_argument("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")
    play.add_argument("--no-local-server", action="store_true",
                      help="never start a local server when none answers")
    play.add_argument("--seek", metavar="POOL", help="wait for a game of this pool (polygo pools lists them)")
    play.add_argument("--challenge", metavar="NAME", action="append", default=[],
                      help="invite this registered player (repeat for each other seat) to a game of --pool, "
                           "or of the room options (unrated); the game starts when all accept")
    play.add_argument("--pool", help="with --challenge: the pool of the game (rated if the pool is)")
    play.add_argument("--accept", metavar="CHALLENGE", help="accept this challenge (polygo challenges lists them) "
                                                            "and play its game")
    login(play)

    watch = sub.add_parser("watch", help="watch a room as a spectator")
    common(watch)
    watch.add_argument("room")
    watch.add_argument("--invite")
    watch.add_argument("--no-color", action="store_true")

    rooms = sub.add_parser("rooms", help="list the open rooms")
    common(rooms)

    mine = sub.add_parser("my-games", help="list your unfinished games, those where it is your turn first")
    common(mine)

    export = sub.add_parser("export", help="print a game record as SGF or JSON")
    common(export)
    export.add_argument("game", help="the game's room id")
    export.add_argument("--format", choices=["sgf", "json"], default="sgf")
    export.add_argument("-o", "--output", type=Path, help="write to this file instead of standard output")
    export.add_argument("--no-local-server", action="store_true",
                        help="never start the local server (of `polygo play`) to read its games")

    bot = sub.add_parser("bot", help="run a bot: the built-in one or a GTP engine")
    common(bot)
    kind = bot.add_mutually_exclusive_group(required=True)
    kind.add_argument("--builtin", action="store_true", help="the built-in bot")
    kind.add_argument("--gtp", metavar="COMMAND", help='a GTP engine, e.g. "gnugo --mode gtp --level 1"')
    kind.add_argument("--config", type=Path, metavar="FILE",
                      help="a bot config file (TOML: engine, games to accept, chat, policies; see docs/bots.md)")
    bot.add_argument("--room", help="play in this room (default: look for open rooms with a free seat)")
    bot.add_argument("--seat", type=int)
    bot.add_argument("--invite")
    bot.add_argument("--games", type=int, default=0, help="stop after this many games (default: never)")
    bot.add_argument("--seed", type=int, default=None, help="seed of the built-in bot's choices")
    bot.add_argument("--engine-timeout", type=float, default=60.0, help="seconds a GTP engine may think")
    bot.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    bot.add_argument("--arena", metavar="POOL", help="join this pool's arena: the server pairs its bots continuously")
    bot.add_argument("--seek", metavar="POOL", action="append", default=[],
                     help="seek games of this pool, one at a time (repeat for several pools, sought in turn)")
    bot.add_argument("--challenges", action="store_true", help="accept challenges (by the config's filters)")
    login(bot)

    pools = sub.add_parser("pools", help="list the server's pools (what --seek and --arena name)")
    common(pools)

    challenges = sub.add_parser("challenges", help="list the standing challenges to and from you")
    common(challenges)
    login(challenges)
    challenges.add_argument("--decline", metavar="CHALLENGE", help="decline this challenge (or withdraw your own)")
    return parser


def _user() -> str:
    try:
        return getpass.getuser()[:32] or "player"
    except (KeyError, OSError):
        return "player"


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--option takes KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def settings_from(args: argparse.Namespace, players: int | None = None) -> RoomSettings:
    """The room settings the flags ask for; a board JSON file is read here (the server takes no paths)."""
    board: Any = args.board or "9x9"
    if isinstance(board, str) and board.endswith(".json"):
        try:
            board = json.loads(Path(board).read_text())
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read the board file {args.board}: {exc}") from None
    values: dict[str, Any] = {"rules": args.rules or "kee", "board": board,
                              "players": args.players or players or 2, "private": args.private,
                              "title": args.title, "bots": getattr(args, "bots", 0) or 0}
    for key in ("komi", "handicap", "handicap_mode", "superko", "clock"):
        value = getattr(args, key)
        if value is not None:
            values[key] = value
    if args.option:
        values["options"] = dict(_option(text) for text in args.option)
    try:   # the engine's verdict before anything connects or a local server starts
        Game(Board.from_spec(values["board"]), rules=values["rules"], players=values["players"],
             **engine_options(values))
    except (GoRulesError, ValueError) as exc:
        raise UsageError(f"these settings make no game: {exc}") from None
    return RoomSettings(**values)


def client_for(args: argparse.Namespace, *, remember: bool = True, reconnect_for: float = RECONNECT_FOR) -> Client:
    tokens = TokenStore(args.token_file or default_token_file()) if remember else None
    user = getattr(args, "user", None)
    return Client(args.server, name=args.name or user or _user(), tokens=tokens,
                  codec=JSON if args.json_frames else MSGPACK, reconnect_for=reconnect_for, **_login(user))


def _login(user: str | None, variable: str = "POLYGO_PASSWORD") -> dict[str, str]:
    """The Client's login for `user`, its password from the environment (never a flag: a command
    line is visible to every user of the machine)."""
    if user is None:
        return {}
    password = os.environ.get(variable)
    if not password:
        raise UsageError(f"logging in as {user!r} needs its password in the environment variable {variable}")
    return {"user": user, "password": password}


def style_for(args: argparse.Namespace) -> Style:
    return Style(color=not (args.no_color or os.environ.get("NO_COLOR")) and sys.stdout.isatty())


async def cmd_play(args: argparse.Namespace) -> int:
    if args.bots < 0 or args.bots > 7:
        raise UsageError("--bots takes 0 to 7")
    if args.join and args.bots:
        raise UsageError("--bots fills the seats of a room you create; it cannot be used with --join")
    finding = [flag for flag, value in (("--seek", args.seek), ("--challenge", args.challenge),
                                        ("--accept", args.accept)) if value]
    if len(finding) > 1 or (finding and (args.join or args.bots)):
        raise UsageError(f"{' and '.join(finding) or '--seek'} wait for a room the server starts: use one, "
                         f"without --join or --bots")
    if args.pool and not args.challenge:
        raise UsageError("--pool names the pool of a --challenge")
    if args.players is not None and args.bots and args.players < args.bots + 1:
        raise UsageError(f"--players {args.players} leaves no seat for you beside {args.bots} bots")
    # Read the settings (and any board file) first: a bad flag must not start a local server.
    found = args.seek or args.accept or (args.challenge and args.pool)
    seats = 1 + args.bots if args.bots else 1 + len(args.challenge) if args.challenge else None
    settings = None if args.join or found else settings_from(args, players=seats)
    if settings is not None and args.seat is not None and not 0 <= args.seat < settings.players - settings.bots:
        raise UsageError(f"--seat {args.seat}: the bots sit in the last {settings.bots} seats; "
                         f"take one of 0 to {settings.players - settings.bots - 1}")
    async with _local_server(args, print):
        async with client_for(args, reconnect_for=PLAY_RECONNECT_FOR) as client:
            line = None
            if args.seek:
                room = await _sought_room(client, args.seek)
            elif args.challenge or args.accept:
                room = await _challenge_room(client, args, settings)
            else:
                line, my_turn = await _my_turn(client)
                room = await _choose_room(client, args, settings, my_turn)
            await client.recent_chat(room)
            app = TerminalApp(client, room, style=style_for(args))
            if line:
                app.message = f"{line}; 'help' lists the commands"
            result = await app.run()
            print(_result_line(client, room, result, app.left_for_good))
    return 0


async def _sought_room(client: Client, pool: str) -> str:
    """Seek a game of `pool` and wait for the room the server starts; seated there."""
    seeking = await client.seek(pool=pool)
    mark = "?" if seeking.provisional else ""
    rating = f" (your rating {seeking.rating}{mark})" if seeking.rating is not None else ""
    print(f"seeking a{' rated' if seeking.rated else 'n unrated'} game of {pool}{rating}; Ctrl-C stops")
    while True:
        notice = await client.notices.get()
        if isinstance(notice, Matched) and notice.via == "seek":
            await client.sit(notice.room, notice.seat)
            print(f"room {notice.room}: you play seat {notice.seat}")
            return notice.room


async def _challenge_room(client: Client, args: argparse.Namespace, settings: RoomSettings | None) -> str:
    """Challenge (or accept a challenge) and wait for the room it starts; seated there."""
    if args.accept:
        ident = args.accept
        await client.challenges()              # this connection hears how the challenge goes
        await client.challenge_reply(ident, True)
        print(f"challenge {ident} accepted; waiting for the others' answers")
    else:
        made = await client.challenge(args.challenge, pool=args.pool, settings=None if args.pool else settings)
        ident = made["id"]
        kind = f"a{' rated' if made['rated'] else 'n unrated'} game" + (f" of {made['pool']}" if made["pool"] else "")
        print(f"challenged {', '.join(args.challenge)} to {kind} (challenge {ident}); waiting for their answers")
    while True:
        notice = await client.notices.get()
        if isinstance(notice, Matched) and notice.challenge == ident:
            await client.sit(notice.room, notice.seat)
            print(f"room {notice.room}: you play seat {notice.seat}")
            return notice.room
        if isinstance(notice, ChallengeState) and notice.challenge["id"] == ident \
                and notice.challenge["status"] not in ("open", "started"):
            raise ServerRefused(f"challenge {ident} is {notice.challenge['status']}", code="challenge-closed")


async def _my_turn(client: Client) -> tuple[str | None, list[str]]:
    """The line telling the games where it is the player's turn (None: there is none), printed
    and later shown under the board, and those rooms, the most pressing first."""
    try:
        games = await my_games(client)
    except ServerRefused:               # a server older than my_games
        return None, []
    line = notice(games)
    if line:
        print(line)
    return line, [g["room"] for g in games.games if g["your_turn"]]


def _local_server(args: argparse.Namespace, say: Callable[[str], None],
                  only_with_games: bool = False) -> contextlib.AbstractAsyncContextManager[None]:
    """The local server `polygo play` starts when none answers (`polygo.client.local_server`)."""
    if args.no_local_server:
        return contextlib.nullcontext()
    home = args.token_file.parent if args.token_file else default_token_file().parent
    return local_server(args.server, home, say, only_with_games=only_with_games)


async def _choose_room(client: Client, args: argparse.Namespace, settings: RoomSettings | None,
                       my_turn: Sequence[str] = ()) -> str:
    """The room to play: the one joined (`settings` is None), a held seat to resume (first those
    where it is the player's turn, `my_turn`, the most pressing first), or a new room.

    A held seat is resumed only where the game goes on and the player is still in it (not after a
    resignation, a timeout or `leave`)."""
    if settings is None:
        held = client.seats_in(args.join)
        if held and (args.seat is None or args.seat in held):
            await client.watch(args.join, args.invite)
        else:
            await client.sit(args.join, args.seat, args.invite)
        return args.join
    creating = args.rules or args.board or args.bots or args.players
    if not creating:
        held = sorted({room for room, _ in client.held})
        for room in [*(r for r in my_turn if r in held), *(r for r in held if r not in my_turn)]:
            try:
                view = await client.watch(room)
            except ServerRefused:
                continue
            if view.status != "ended" and any(view.game.active[s] for s in client.seats_in(room)):
                print(f"rejoining room {room}")
                return room
    created = await client.create(settings)
    await client.sit(created.room, args.seat if args.seat is not None else 0, created.invite)
    invite = f" (invitation code {created.invite})" if created.invite else ""
    print(f"created room {created.room}{invite}")
    return created.room


def _result_line(client: Client, room: str, result: dict | None, left: bool = False) -> str:
    if left:
        return f"you left room {room} for good"
    if result is None:
        return f"left room {room}; 'polygo play' rejoins it"
    view = client.rooms[room]
    players = view.game.players
    score = ", ".join(f"{players[s]} {p:g}" for s, p in enumerate(result.get("score", [])))
    ranking = ", ".join(f"{players[s]} {place}" for s, place in enumerate(result.get("ranking", [])))
    return f"game over: {result_line(players, result)}; score {score}; ranking {ranking}"


async def cmd_watch(args: argparse.Namespace) -> int:
    async with client_for(args, remember=False) as client:
        await client.watch(args.room, args.invite)
        app = TerminalApp(client, args.room, style=style_for(args), spectator=True)
        result = await app.run()
        print(_result_line(client, args.room, result))
    return 0


async def cmd_rooms(args: argparse.Namespace) -> int:
    async with client_for(args, remember=False) as client:
        rooms = await client.list_rooms()
    if not rooms:
        print("no open rooms")
        return 0
    print(f"{'room':<12} {'status':<8} {'rules':<13} {'board':<10} seats")
    for room in rooms:
        settings = room.get("settings", {})
        board = settings.get("board")
        board_text = board if isinstance(board, str) else "graph"
        seats = ", ".join(name or "-" for name in room.get("seats", []))
        print(f"{room['room']:<12} {room.get('status', ''):<8} {settings.get('rules', ''):<13} "
              f"{board_text:<10} {seats}  {room.get('title') or ''}".rstrip())
    return 0


async def cmd_my_games(args: argparse.Namespace) -> int:
    async with client_for(args) as client:
        games = await my_games(client)
    if not games.games:
        print("no unfinished games")
        return 0
    print("\n".join(table(games)))
    print(notice(games) or "it is your turn in none of them")
    return 0


async def cmd_export(args: argparse.Namespace) -> int:
    async with _local_server(args, lambda line: print(line, file=sys.stderr), only_with_games=True), \
            client_for(args, remember=False) as client:
        record = await client.game_record(args.game, args.format)
    text = record if isinstance(record, str) else json.dumps(record, indent=1)
    if args.output:
        try:
            args.output.write_text(text)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


async def cmd_bot(args: argparse.Namespace) -> int:
    if args.games < 0:
        raise UsageError("--games takes a number of games, or 0 for no limit")
    if args.engine_timeout <= 0:
        raise UsageError("--engine-timeout takes a number of seconds above 0")
    config = read_config(args.config) if args.config else BotConfig(
        gtp=args.gtp, builtin=args.builtin, seed=args.seed, timeout=args.engine_timeout, total_games=args.games,
        log_level=args.log_level)
    logging.basicConfig(level=config.log_level if args.config else args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    bot = bot_from(config)
    info = await bot.start()
    name = config.name or args.name or bot.name
    program = f"polygo-bot/{info or bot.name}"[:64]
    token_file = config.token_file or args.token_file
    tokens = TokenStore(token_file) if token_file else None
    user = args.user or config.user
    finding = Finding(seek=tuple(args.seek) or config.seek, arena=args.arena or config.arena,
                      challenges=args.challenges or config.challenges)
    async with Client(config.server or args.server, name=user or name, tokens=tokens, program=program,
                      **_login(user, config.password_env)) as client:
        runner = BotRunner(bot, client)
        if finding.seek or finding.arena or finding.challenges:
            if args.room:
                raise UsageError("--room plays one room; --seek, --arena and --challenges find games")
            await find_games(runner, finding, accept=config.accept, max_games=config.max_games,
                             total=config.total_games)
            return 0
        if args.room:
            view = await client.watch(args.room, args.invite)
            reason = config.accept.refusal(view.settings) or await bot.check_room(view.settings)
            if reason is not None:
                raise UsageError(f"{bot.name} cannot play room {args.room}: {reason}")
            async with runner:
                result = await runner.play(args.room, args.seat, args.invite)
            log.info("room %s ended: %s", args.room, result)
            return 0
        await serve(runner, accept=config.accept, max_games=config.max_games, total=config.total_games,
                    idle_timeout=config.idle_timeout if args.config else None)
    return 0


def bot_from(config: BotConfig) -> Bot:
    """The bot a config describes, its policies set."""
    bot: Bot
    if config.builtin:
        bot = BuiltinBot(seed=config.seed)
    else:
        assert config.gtp is not None
        bot = GtpBot(config.gtp, timeout=config.timeout, move_overhead=config.move_overhead,
                     analysis=config.analysis)
    bot.greeting, bot.farewell = config.greeting, config.farewell
    bot.accept_undo = config.undo == "accept"
    bot.may_resign = config.resign == "engine"
    bot.max_resumes = config.max_resumes
    return bot


async def cmd_pools(args: argparse.Namespace) -> int:
    async with client_for(args, remember=False) as client:
        pools = await client.pools()
    print(f"{'pool':<16} {'rules':<10} {'players':>7} {'board':<8} {'clock':<20} {'rated':<6} seeking  arena")
    for pool in pools:
        print(f"{pool['name']:<16} {pool['rules']:<10} {pool['players']:>7} {pool['board']:<8} {pool['clock']:<20} "
              f"{'yes' if pool['rated'] else 'no':<6} {pool['seeking']:>7}  "
              f"{pool['in_arena'] if pool['arena'] else '-'}")
    return 0


async def cmd_challenges(args: argparse.Namespace) -> int:
    async with client_for(args) as client:
        if args.decline:
            await client.challenge_reply(args.decline, False)
            print(f"challenge {args.decline} declined")
            return 0
        standing = await client.challenges()
    if not standing:
        print("no standing challenges")
    for challenge in standing:
        game = challenge["pool"] or f"{challenge['settings']['rules']} {challenge['settings']['board']}"
        answers = ", ".join(f"{p['name']}{' (accepted)' if p['accepted'] else ''}" for p in challenge["players"])
        left = max(0, round(challenge["expires"] - time.time()))
        print(f"{challenge['id']}  from {challenge['by']} to {answers}: {game}, "
              f"{'rated' if challenge['rated'] else 'unrated'}, {left} s left")
    return 0


COMMANDS = {"play": cmd_play, "watch": cmd_watch, "rooms": cmd_rooms, "my-games": cmd_my_games, "export": cmd_export,
            "bot": cmd_bot, "pools": cmd_pools, "challenges": cmd_challenges}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(COMMANDS[args.command](args))
    except UsageError as exc:
        print(f"polygo {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ClientError as exc:
        print(f"polygo {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
