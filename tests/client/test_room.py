"""The client's mirror of a room: clocks counted locally, resync when it disagrees with the server."""

from gorules import Board, Game
from protocol import Event

from client_cli.room import Clocks


def test_clocks_count_down_locally_for_the_running_seat():
    clocks = Clocks(running=0, seats=[{"main": 65.0}, {"main": 0.0, "periods": 3, "period_left": 30.0}], at=100.0)
    assert clocks.left(0, 110.0) == 55.0
    assert clocks.describe(0, 110.0) == "0:55"
    assert clocks.left(1, 110.0) == 30.0
    assert clocks.describe(1, 110.0) == "0:30 (3p)"
    assert clocks.left(0, 200.0) == 0.0


def test_the_mirror_asks_for_a_snapshot_when_it_disagrees(make_view):
    game = Game(Board.grid(5, 5), rules="kee", players=2)
    view = make_view(game, ["ann", "bob"])
    v = view.version
    assert view.apply_event(Event(room="R1", version=v + 1, kind="move",
                                  data={"seat": 0, "move": "C3", "to_move": 1}), 0.0)
    assert not view.apply_event(Event(room="R1", version=v + 3, kind="chat", data={"text": "hi"}), 0.0)
    assert not view.needs_snapshot  # a gap: the missed events will do
    assert not view.apply_event(Event(room="R1", version=v + 2, kind="move",
                                      data={"seat": 1, "move": "C3", "to_move": 0}), 0.0)
    assert view.needs_snapshot  # the server accepted what the mirror cannot play: take a snapshot
