"""The client's mirror of a room: clocks counted locally, resync when it disagrees with the server."""

from polygo.rules import Board, Game
from polygo.protocol import Event

from polygo.client.room import Clocks, result_line, result_text


def test_clocks_count_down_locally_for_the_running_seat():
    clocks = Clocks(running=0, seats=[{"main": 65.0}, {"main": 0.0, "periods": 3, "period_left": 30.0}], at=100.0)
    assert clocks.left(0, 110.0) == 55.0
    assert clocks.describe(0, 110.0) == "0:55"
    assert clocks.left(1, 110.0) == 30.0
    assert clocks.describe(1, 110.0) == "0:30 x3"
    assert clocks.left(0, 200.0) == 0.0


def test_a_byoyomi_clock_ticks_through_its_periods_and_shows_them_before_overtime():
    """Issue 11 item 4: it read 0:07 -> 0:04 -> 0:00 (3p), then froze until the flag fell."""
    settings = {"kind": "byoyomi", "main": 10, "periods": 3, "period": 5}
    clocks = Clocks(running=0, seats=[{"main": 7.0, "periods": 3, "period_left": 5.0, "stones_left": 0},
                                      {"main": 10.0, "periods": 3, "period_left": 5.0, "stones_left": 0}],
                    at=0.0, settings=settings)
    assert clocks.describe(1, 3.0) == "0:10+3x5s"          # main time, and what follows it
    assert clocks.describe(0, 0.0) == "0:07+3x5s"
    assert clocks.describe(0, 3.0) == "0:04+3x5s"
    assert clocks.describe(0, 7.5) == "0:05 x3"            # the first period
    assert clocks.describe(0, 12.5) == "0:05 x2"           # it ran out: the next one, full
    assert clocks.describe(0, 16.0) == "0:01 x2"
    assert clocks.describe(0, 21.0) == "0:01 x1"
    assert clocks.describe(0, 22.5) == "0:00 x0"


def test_every_clock_kind_reads_as_players_expect():
    canadian = Clocks(running=None, seats=[{"main": 0.0, "periods": 0, "period_left": 290.0, "stones_left": 20}],
                      at=0.0, settings={"kind": "canadian", "main": 600, "period": 300, "stones": 25})
    assert canadian.describe(0, 9.0) == "4:50 /20"
    fischer = Clocks(running=0, seats=[{"main": 298.2, "periods": 0, "period_left": 0, "stones_left": 0}],
                     at=0.0, settings={"kind": "fischer", "main": 300, "increment": 10, "cap": 0})
    assert fischer.describe(0, 1.0) == "4:58 +10s"
    corr = Clocks(running=0, seats=[{"main": 3 * 86400.0, "periods": 0, "period_left": 0.0, "stones_left": 0}],
                  at=0.0, settings={"kind": "corr", "period": 3 * 86400, "cap": 3 * 86400})
    assert corr.describe(0, 60.0) == "2d 23h 59m"
    assert corr.describe(0, 2 * 86400 + 1.0) == "23:59:59"
    none = Clocks(running=0, seats=[{"main": None, "periods": 0, "period_left": None, "stones_left": 0}], at=0.0)
    assert none.describe(0, 5.0) == ""


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


def test_presence_never_takes_the_version_of_an_event_the_mirror_missed(make_view):
    """Presence carries the room's latest version. Arriving before a resync's reply (which held a
    move), it was applied as that version's event: the mirror skipped the move and waited for ever
    for a turn it already had."""
    game = Game(Board.grid(5, 5), rules="kee", players=2)
    view = make_view(game, ["ann", "bob"])
    v = view.version
    assert view.apply_event(Event(room="R1", version=v, kind="presence", data={"online": [0, 1]}), 0.0)
    assert not view.apply_event(Event(room="R1", version=v + 1, kind="presence", data={"online": [0]}), 0.0)
    assert view.version == v                  # behind: the caller resyncs
    assert view.apply_event(Event(room="R1", version=v + 1, kind="move",
                                  data={"seat": 0, "move": "C3", "to_move": 1}), 0.0)
    assert view.version == v + 1 and [p.move for p in view.game.history] == ["C3"]


def test_the_captures_column_counts_what_each_player_captured(make_view):
    """Issue 11 item 8: it showed a player's own captured stones (the engine's prisoners' place)."""
    game = Game(Board.grid(5, 5), rules="kee", players=3)
    for move in ["C3", "C2", "pass", "pass", "B3", "pass", "pass", "D3", "pass", "pass", "C4"]:
        game.play(move)
    view = make_view(game, ["ann", "bob", "cy"])
    assert game.stone_at("C3") is None
    assert view.captured == [0, 1, 0]                  # white took black's stone
    assert view.log[-1].text == "C4, capturing 1" and view.log[-1].seat == 1


def test_the_log_says_what_a_rescission_took_back(make_view):
    game = Game(Board.grid(2, 1), rules="kee", players=2)
    for move in ["A1", "B1", "appeal A1", "pass"]:
        game.play(move)
    view = make_view(game, ["ann", "bob"])
    texts = [entry.text for entry in view.log]
    assert texts[2] == "appeals for A1 (an appealing pass, Kee rule 12)"
    assert texts[3] == "passes"
    assert texts[4].startswith("rescinds white's B1 (Kee rule 13)")


def test_results_are_written_as_go_players_write_them():
    two = ["black", "white"]
    assert result_text(two, {"reason": "passes", "ranking": [2, 1], "score": [40, 47.5]}) == "W+7.5"
    assert result_text(two, {"reason": "resignation", "ranking": [1, 2], "score": [0, 0]}) == "B+R"
    assert result_text(two, {"reason": "timeout", "ranking": [2, 1], "score": [3, 0]}) == "W+T"
    assert result_text(two, {"reason": "passes", "ranking": [1, 1], "score": [5, 5]}) == "Jigo (a draw)"
    three = ["black", "white", "red"]
    assert result_text(three, {"reason": "passes", "ranking": [2, 1, 2], "score": [8, 9, 8]}) \
        == "1. white 9, 2. black 8, 2. red 8"
    assert result_line(three, {"reason": "passes", "ranking": [2, 1, 2], "score": [8, 9, 8]}) \
        == "1. white 9, 2. black 8, 2. red 8 (by passes)"
    assert result_line(two, {"reason": "timeout", "ranking": [2, 1], "score": [3, 0]}) == "W+T (on time)"
