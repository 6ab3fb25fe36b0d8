"""`polygo-server admin`: what people ask an operator first, done on the running server.

The server listens on a Unix socket (`--admin-socket PATH`, `POLYGO_ADMIN_SOCKET`; off unless
set), made readable and writable by its own user only: whoever can open it is the operator (the
service's user, or root), as with HAProxy's or Docker's control sockets, so it needs no password
of its own, and nothing of it is reachable from the network. The command line connects there,
sends one request as a JSON line and prints the one JSON line that answers it. The commands act
on the live server, not only on the database, because their effects must reach memory: a closed
room stops at once, a banned client is disconnected, a reset password ends the sessions in use.

    who                                  the open connections: address, name, user, rooms watched
    close-room ROOM [--message TEXT]     end a game being played, or drop a room waiting for players
    remove-chat ROOM VERSION             delete one chat line (its event's version)
    ban name|address TARGET [--reason]   refuse a name (and its look-alikes) or an address / network
    unban name|address TARGET
    bans                                 the bans in force
    reset-password USER                  a new password (generated, or read from stdin); every
                                         session of the user ends
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import logging
import secrets
import socket
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

from polygo.protocol import ProtocolError

from .accounts.bans import KINDS, BanError
from .accounts.passwords import hash_password
from .accounts.sessions import Session
from .connection import Connection
from .hub import Hub
from .ops.logs import event
from .store import Store
from .store.errors import StoreError

log = logging.getLogger("polygo.admin")

LINE_LIMIT = 64 * 1024
"""The longest request line the socket reads."""

BANNED_CLOSE = 1008
"""The close code of a connection a ban cuts off (policy violation)."""


class AdminError(Exception):
    """A command that cannot be done; the message is for the operator."""


class RunningServer(Protocol):
    """What the operator's commands act on: the running server's connections, hub and store
    (app.py)."""

    connections: set[Connection]
    hub: Hub
    store: Store


class AdminSocket:
    """The server's side: a Unix socket answering one request per connection."""

    def __init__(self, server: RunningServer, path: str) -> None:
        self.server = server
        self.path = path
        self._listener: asyncio.AbstractServer | None = None

    async def start(self) -> AdminSocket:
        Path(self.path).unlink(missing_ok=True)      # a socket left by a killed server
        mask = os.umask(0o177)                        # srw------- from its creation on
        try:
            self._listener = await asyncio.start_unix_server(self._serve, self.path, limit=LINE_LIMIT)
        finally:
            os.umask(mask)
        return self

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            await self._listener.wait_closed()
            Path(self.path).unlink(missing_ok=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise AdminError("a request is a JSON object")
                answer = {"ok": True, **await self.handle(request)}
            except (AdminError, BanError, ProtocolError, StoreError, ValueError) as exc:
                answer = {"ok": False, "error": getattr(exc, "message", None) or str(exc)}
            except Exception as exc:
                log.exception("admin request failed")
                answer = {"ok": False, "error": f"the server failed on this command: {exc}"}
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        except (asyncio.TimeoutError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """Do one command; its result's fields, or AdminError."""
        command = request.get("command")
        handler = COMMANDS.get(command) if isinstance(command, str) else None
        if handler is None:
            raise AdminError(f"unknown command {command!r}; known: {', '.join(COMMANDS)}")
        result = await handler(self.server, request)
        event("admin", command=command, **{k: v for k, v in request.items() if k in LOGGED})
        return result


LOGGED = ("room", "version", "kind", "target", "user")
"""The request fields an `admin` log line shows (never a password)."""


def _text(request: dict[str, Any], field: str, default: str | None = None) -> str:
    value = request.get(field, default)
    if not isinstance(value, str) or not value:
        raise AdminError(f"{field!r} must be a non-empty string")
    return value


async def who(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    now = time.monotonic()
    connections = []
    for conn in sorted(server.connections, key=lambda c: c.id):
        session = conn.session
        connections.append({"conn": conn.id, "address": conn.client, "limit_key": conn.address, "codec": conn.codec,
                            "name": session.name if session else None, "user": session.user if session else None,
                            "rooms": sorted(room.id for room in conn.watching),
                            "seconds": round(now - conn.opened, 1)})
    return {"connections": connections}


async def close_room(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    room_id = _text(request, "room")
    message = _text(request, "message", "the server's operator closed this room")
    room = server.hub.rooms.get(room_id)
    if room is None:
        raise AdminError(f"no room {room_id!r} is in memory (a finished one needs no closing)")
    was = room.status
    if was == "waiting":
        await server.hub.close_unstarted(room, message)
    else:
        await room.call(room.close_by_operator, message)
    return {"room": room_id, "was": was}


async def remove_chat(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    room_id = _text(request, "room")
    version = request.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise AdminError("'version' must be the chat event's version, a whole number from 1")
    store = server.store
    line = await store.chat_line(room_id, version)
    if line is None:
        raise AdminError(f"room {room_id!r} has no chat line at version {version}")
    room = server.hub.rooms.get(room_id)

    async def remove() -> None:
        await store.remove_chat(room_id, version)
        if room is not None:
            room.forget_events(version)
            room.forget_chat(line=version)

    if room is not None:
        await room.call(remove)
    else:
        await remove()
    return {"room": room_id, "version": version, "removed": {k: line.get(k) for k in ("name", "user", "text")}}


async def ban(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    kind, target = _text(request, "kind"), _text(request, "target")
    reason = request.get("reason") or ""
    if not isinstance(reason, str):
        raise AdminError("'reason' must be a string")
    bans = server.hub.bans
    made = await bans.add(server.store, kind, target, reason)
    cut = []
    for conn in list(server.connections):
        session = conn.session
        hit = bans.address(conn.address) if kind == "address" else \
            bans.name(session.name, session.user) if session else None
        if hit is not None and hit.value == made.value:
            cut.append(conn)
    await asyncio.gather(*(conn.ws.close(BANNED_CLOSE, "banned") for conn in cut), return_exceptions=True)
    return {"kind": kind, "banned": made.shown, "disconnected": len(cut)}


async def unban(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    kind, target = _text(request, "kind"), _text(request, "target")
    if not await server.hub.bans.remove(server.store, kind, target):
        raise AdminError(f"no ban on the {kind} {target!r}")
    return {"kind": kind, "unbanned": target}


async def list_bans(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    return {"bans": [{"kind": b.kind, "target": b.shown, "reason": b.reason} for b in server.hub.bans]}


async def reset_password(server: RunningServer, request: dict[str, Any]) -> dict[str, Any]:
    user, password = _text(request, "user"), _text(request, "password")
    if not 1 <= len(password) <= 128:
        raise AdminError("a password has 1 to 128 characters")
    if await server.store.get_user(user) is None:
        raise AdminError(f"no registered user {user!r}")
    await server.store.set_password(user, await asyncio.to_thread(hash_password, password))
    await server.hub.sessions.logout(Session("-", user, user), everywhere=True)
    return {"user": user}


COMMANDS = {"who": who, "close-room": close_room, "remove-chat": remove_chat, "ban": ban, "unban": unban,
            "bans": list_bans, "reset-password": reset_password}


# -- the command line --------------------------------------------------------------------------------


def request(path: str, message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """Send one request to the admin socket at `path`; its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(json.dumps(message).encode() + b"\n")
        with sock.makefile("rb") as answer:
            line = answer.readline()
    if not line:
        raise AdminError("the server closed the admin socket without an answer")
    return json.loads(line)


def main(argv: Sequence[str], env: Mapping[str, str] | None = None, stdin: Any = None) -> int:
    """`polygo-server admin [--socket PATH] COMMAND ...`; prints the answer, returns the exit status."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="polygo-server admin",
                                     description="Operator commands on the running server, through its admin "
                                                 "socket (docs/operations.md, \"Admin commands\").")
    parser.add_argument("--socket", default=env.get("POLYGO_ADMIN_SOCKET"),
                        help="the server's --admin-socket (POLYGO_ADMIN_SOCKET)")
    parser.add_argument("--json", action="store_true", help="print the answer as the server's JSON")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("who", help="the open connections")
    close = commands.add_parser("close-room", help="end a game being played, or drop a waiting room")
    close.add_argument("room")
    close.add_argument("--message", help="what the room's watchers are told")
    chat = commands.add_parser("remove-chat", help="delete one chat line")
    chat.add_argument("room")
    chat.add_argument("version", type=int, help="the chat event's version")
    for name in ("ban", "unban"):
        sub = commands.add_parser(name, help=f"{name} a name (and its look-alikes) or an address or network")
        sub.add_argument("kind", choices=KINDS)
        sub.add_argument("target")
        if name == "ban":
            sub.add_argument("--reason", default="", help="shown to the banned client")
    commands.add_parser("bans", help="the bans in force")
    reset = commands.add_parser("reset-password", help="give a registered user a new password")
    reset.add_argument("user")
    reset.add_argument("--password-stdin", action="store_true",
                       help="read the new password from stdin's first line (default: generate one and print it)")
    args = parser.parse_args(argv)
    if not args.socket:
        parser.error("the admin socket is needed: --socket PATH or POLYGO_ADMIN_SOCKET (the server's --admin-socket)")
    message: dict[str, Any] = {k: v for k, v in vars(args).items()
                               if k not in ("socket", "json", "password_stdin") and v is not None}
    generated = None
    if args.command == "reset-password":
        if args.password_stdin:
            message["password"] = (stdin or sys.stdin).readline().rstrip("\n")
        else:
            message["password"] = generated = secrets.token_urlsafe(12)
    try:
        answer = request(args.socket, message)
    except (OSError, AdminError) as exc:
        print(f"polygo-server admin: error: {exc}", file=sys.stderr)
        return 1
    if not answer.get("ok"):
        print(f"polygo-server admin: error: {answer.get('error')}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(answer))
    else:
        print(_shown(args.command, answer, generated))
    return 0


def _shown(command: str, answer: dict[str, Any], generated: str | None) -> str:
    """The answer as lines for a terminal."""
    if command == "who":
        lines = [f"{'conn':>6}  {'address':<39}  {'name':<20}  {'user':<20}  rooms"]
        for c in answer["connections"]:
            lines.append(f"{c['conn']:>6}  {c['address']:<39}  {c['name'] or '-':<20}  {c['user'] or '-':<20}  "
                         f"{' '.join(c['rooms']) or '-'}")
        return "\n".join(lines + [f"{len(answer['connections'])} connections"])
    if command == "bans":
        return "\n".join(f"{b['kind']:<8} {b['target']:<40} {b['reason']}" for b in answer["bans"]) or "no bans"
    if command == "reset-password":
        return f"new password of {answer['user']}: {generated}" if generated else \
            f"password of {answer['user']} set; its sessions ended"
    return " ".join(f"{k}={json.dumps(v)}" for k, v in answer.items() if k != "ok")
