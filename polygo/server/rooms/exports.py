"""A finished game's record (`game`, and the JSON API's records and archives): as JSON, the
engine's record with the history and the stored details, or as SGF with each move's time left."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from polygo.rules.sgf import to_sgf
from polygo.protocol import ErrorCode, GameRecord, ProtocolError

from ..store import Store
from .games import effective_options, effective_settings, replay
from .listings import seat_names


async def record(store: Store, room_id: str, fmt: str) -> GameRecord:
    """The record of the stored game `room_id` in format `fmt` ("json" or "sgf")."""
    if fmt not in ("json", "sgf"):
        raise ProtocolError(ErrorCode.BAD_FIELD, 'format must be "json" or "sgf"', field="format")
    row = await store.game(room_id)
    if row is None:
        raise ProtocolError(ErrorCode.NO_SUCH_GAME, f"no game {room_id!r}", field="room")
    game, _ = replay(row["settings"], row["moves"])
    names = seat_names(row["names"], row["settings"], row["seats"])
    history = game.history
    if fmt == "json":
        engine_record = dict(game.to_record(), options=effective_options(game))
        record = {"room": room_id, "settings": effective_settings(row["settings"]), "seats": names,
                  "record": engine_record,
                  "history": [[p.seat, p.move, p.rescinded] for p in history], "result": row["result"],
                  "created": row["created_at"], "finished": row["finished_at"]}
        return GameRecord(room=room_id, format=fmt, record=record)
    settings = row["settings"]
    sgf_record = dict(game.to_record(), names=names,
                      rescinded=[i for i, p in enumerate(history) if p.rescinded],
                      title=settings.get("title") or f"polygo {room_id}", place=f"polygo room {room_id}",
                      clock=settings.get("clock"), times=await _times_left(store, room_id))
    if row["result"] is not None:
        sgf_record["result"] = row["result"]
    stamp = row["finished_at"] or row["created_at"]
    sgf_record["date"] = datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d")
    try:
        text = to_sgf(sgf_record)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.NOT_EXPORTABLE, str(exc)) from None
    return GameRecord(room=room_id, format=fmt, record=text)


async def _times_left(store: Store, room_id: str) -> dict[int, list[Any]]:
    """Each move's time left for its mover, by history index, from the stored move events (the last
    event at an index wins: an undone move's is replaced by the move played instead)."""
    times: dict[int, list[Any]] = {}
    for event in await store.events_since(room_id, 0):
        if event.get("kind") == "move" and isinstance(event.get("index"), int):
            left = _time_left(event)
            if left is not None:
                times[event["index"]] = left
    return times


def _time_left(event: dict[str, Any]) -> list[Any] | None:
    """The mover's [seconds left, periods or stones left in overtime] after a stored move event."""
    clocks = event.get("clocks")
    seat = event.get("seat")
    if not isinstance(clocks, dict) or not isinstance(seat, int) or seat >= len(clocks.get("seats") or []):
        return None
    left = clocks["seats"][seat]
    main = left.get("main")
    if main is None:
        return None
    if main > 0:
        return [main, 0]
    return [left.get("period_left") or 0, left.get("stones_left") or left.get("periods") or 0]
