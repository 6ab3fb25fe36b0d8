"""A move resent after its room left memory: acknowledged from the store, as the room would have.

A finished room is not rebuilt at a restart and leaves memory a while after its last watcher
(`Config.evict_after`), yet a client that lost the `ack` of its last move (a bot's final `done`)
sends it again and must get the ack the move got the first time, not `no-such-room`. The answer
comes from the stored moves: the same move under the same seq is acknowledged with its version,
another move under it is `seq-reused`, any other seq of a seated session is `game-over`. A
session with no seat in the room gets what it would have got before: `no-such-room` for a
private room (its id is not confirmed to a stranger), `not-seated` for a public one.
"""

from __future__ import annotations

from polygo.rules import IllegalMove, parse_move
from polygo.protocol import Ack, ErrorCode, ProtocolError

from ..accounts.sessions import Session
from ..store import Store
from .games import board_of


async def ack_from_store(store: Store, session: Session, room_id: str, seq: int, move: str,
                         missing: ProtocolError) -> Ack:
    """The answer to a resend of `move` under `seq` in the finished room `room_id`; `missing`
    (the room's `no-such-room`) is raised when the store has no finished room of that id."""
    room = await store.finished_seats(room_id)
    if room is None:
        raise missing
    seat = next((s for s, (token, user) in room["seats"].items() if session.owns(token, user)), None)
    if seat is None:
        if room["invite"] is not None:
            raise missing
        raise ProtocolError(ErrorCode.NOT_SEATED, "you hold no seat in this room")
    for known, played, version in await store.seat_seqs(room_id, seat):
        if known == seq:
            if _spelled(move, room["settings"]) != played:
                raise ProtocolError(ErrorCode.SEQ_REUSED,
                                    f"seq {seq} was your move {played!r} (version {version}), not {move!r}",
                                    field="seq")
            return Ack(room=room_id, seq=seq, version=version)
    raise ProtocolError(ErrorCode.GAME_OVER, "this game is over")


def _spelled(move: str, settings: dict) -> str | None:
    """The canonical spelling of `move` on the room's board (None if it is no move there)."""
    try:
        return parse_move(move, board_of(settings["board"])).text
    except IllegalMove:
        return None
