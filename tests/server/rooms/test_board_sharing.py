"""Rooms on the same graph board share one `Board` (a 1,000-point graph's is some 200 KiB, the
biggest part of such a room), also a game brought back from the store, and one description of it
in their settings (a copy each was some 240 KiB a 1,024-point room); and a graph no game uses any
more is not kept."""

from __future__ import annotations

import gc
import weakref

from polygo.server.app import Server
from polygo.server.rooms.games import board_of, replay
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


async def test_rooms_on_one_graph_share_its_description_also_back_from_the_store(config, players, seat):
    graph = triangular_lattice(12)
    reordered = {"edges": [list(reversed(e)) for e in reversed(graph["edges"])], "points": graph["points"]}
    first = await Server(config).start()
    try:
        a, b, c, d = await players(4, port=first.port)
        played = await seat([a, b], {"rules": "chinese", "board": graph})
        await a.ok("move", room=played, move="p0_0", seq=1)
        rooms = first.hub.rooms
        other = await seat([c, d], {"rules": "chinese", "board": reordered})
        assert rooms[played].settings["board"] is rooms[other].settings["board"]
        described = rooms[played].settings["board"]
        assert described == board_of(graph).to_json()
        snapshot = await c.ok("watch", room=played)
        assert snapshot["settings"]["board"] == described
    finally:
        await first.close()

    second = await Server(config).start()
    try:
        e, f = await players(2, port=second.port)
        back = await e.ok("watch", room=played)      # the adjourned game comes back from the store
        assert back["game"]["stones"] == {"p0_0": 0} and back["settings"]["board"] == described
        fresh = await seat([e, f], {"rules": "chinese", "board": graph})
        rooms = second.hub.rooms
        assert rooms[played].settings["board"] is rooms[fresh].settings["board"]
    finally:
        await second.close()
