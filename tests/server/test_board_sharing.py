"""Rooms on the same graph board share one `Board` (a 1,000-point graph's is some 200 KiB, the
biggest part of such a room), also a game brought back from the store; and a graph no game uses
any more is not kept."""

from __future__ import annotations

import gc
import weakref

from server.games import board_of, replay
from tests.lattices import triangular_lattice


async def test_rooms_on_one_graph_share_its_board(server, players, seat):
    a, b, c, d = await players(4)
    graph = triangular_lattice(12)
    first = await seat([a, b], {"rules": "chinese", "board": graph})
    second = await seat([c, d], {"rules": "chinese", "board": dict(reversed(list(graph.items())))})
    other = await seat([a, c], {"rules": "chinese", "board": triangular_lattice(11)})
    rooms = server.hub.rooms
    assert rooms[first].game.board is rooms[second].game.board
    assert rooms[other].game.board is not rooms[first].game.board
    await a.ok("move", room=first, move="p0_0", seq=1)
    stored = await server.store.game(first)
    game, _ = replay(rooms[first].settings, stored["moves"])
    assert game.board is rooms[first].game.board
    assert game.stone_at("p0_0") == 0


def test_a_graph_no_game_uses_is_let_go():
    graph = triangular_lattice(5)
    board = board_of(graph)
    assert board_of(graph) is board
    gone = weakref.ref(board)
    del board
    gc.collect()
    assert gone() is None
