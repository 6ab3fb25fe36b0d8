"""A player's unfinished games as the terminal shows them: `polygo my-games`, and the notice
`polygo play` prints on connecting ("your turn in 2 games: ...").

A correspondence player comes back now and then: the first thing he needs is every game that
waits for his move and how long each still gives him, the most pressing first (the server's
order, `my_games` in docs/protocol.md)."""

from __future__ import annotations

import time
from typing import Any

from polygo.protocol import ListMyGames, MyGames

from polygo.client.session import Client


async def my_games(client: Client) -> MyGames:
    reply = await client.request(ListMyGames())
    assert isinstance(reply, MyGames)
    return reply


def notice(games: MyGames, now: float | None = None) -> str | None:
    """One line naming the games where it is the player's turn, or None if there is none."""
    mine = [g for g in games.games if g["your_turn"]]
    if not mine:
        return None
    now = time.time() if now is None else now
    listed = ", ".join(f"{g['room']}{_due(g, now)}" for g in mine)
    plural = "s" if len(mine) > 1 else ""
    return f"your turn in {len(mine)} game{plural}: {listed}"


def table(games: MyGames, now: float | None = None) -> list[str]:
    """The games as lines of a table: room, whose turn, time left, rules, board, players, title."""
    now = time.time() if now is None else now
    lines = [f"{'room':<12} {'turn':<10} {'left':<10} {'rules':<13} {'board':<10} players"]
    for g in games.games:
        settings = g["settings"]
        board = settings.get("board")
        turn = ("YOURS" if g["your_turn"] else "waiting" if g["status"] == "waiting"
                else g["seats"][g["to_move"]] or "-" if g["to_move"] is not None else "-")
        players = ", ".join(name or "-" for name in g["seats"])
        lines.append(f"{g['room']:<12} {turn:<10} {_left(g, now):<10} {settings.get('rules', ''):<13} "
                     f"{board if isinstance(board, str) else 'graph':<10} {players}  {g.get('title') or ''}".rstrip())
    return lines


def _due(game: dict[str, Any], now: float) -> str:
    left = _left(game, now)
    return f" ({left} left)" if left else ""


def _left(game: dict[str, Any], now: float) -> str:
    """Time until the mover's deadline, in its two largest units (`2d 5h`, `3h 12m`, `45s`)."""
    deadline = game.get("deadline")
    if deadline is None:
        return ""
    seconds = max(0, int(deadline - now))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if minutes else f"{secs}s"
