"""The page's pure parts, run in the browser itself: clock texts and their ticking for every clock
kind, the layout of a graph without coordinates, the replay's positions after a rescission."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def page(open_page):
    return open_page("", path="")


def run(page, module: str, body: str):
    return page.evaluate(f"async () => {{ const m = await import('/{module}'); {body} }}")


CLOCKS = [
    # settings, state, seconds elapsed, text then, text after
    ({"kind": "absolute", "main": 600}, {"main": 600, "periods": 0, "period_left": None, "stones_left": 0}, 61, "10:00", "8:59"),
    ({"kind": "fischer", "main": 300, "increment": 10, "cap": 0},
     {"main": 300, "periods": 0, "period_left": None, "stones_left": 0}, 1.5, "5:00 +10s", "4:58 +10s"),
    ({"kind": "byoyomi", "main": 10, "periods": 5, "period": 30},
     {"main": 10, "periods": 5, "period_left": 30, "stones_left": 0}, 45, "0:10 +5×30s", "0:25 ×4"),
    ({"kind": "byoyomi", "main": 0, "periods": 2, "period": 30},
     {"main": 0, "periods": 2, "period_left": 5, "stones_left": 0}, 6, "0:05 ×2", "0:29 ×1"),
    ({"kind": "canadian", "main": 600, "period": 300, "stones": 25},
     {"main": 600, "periods": 0, "period_left": 300, "stones_left": 25}, 0, "10:00 +5:00/25", "10:00 +5:00/25"),
    ({"kind": "canadian", "main": 5, "period": 300, "stones": 25},
     {"main": 5, "periods": 0, "period_left": 300, "stones_left": 25}, 65, "0:05 +5:00/25", "4:00 /25"),
    ({"kind": "absolute", "main": 7200}, {"main": 3725, "periods": 0, "period_left": None, "stones_left": 0}, 0, "1:02:05", "1:02:05"),
]


def test_every_clock_kind_reads_and_ticks(page):
    got = run(page, "dom.js", f"""
        return {json.dumps(CLOCKS)}.map(([c, s, dt]) => [m.clockText(c, s), m.clockText(c, m.tick(c, s, dt))]);
    """)
    assert got == [[then, after] for *_, then, after in CLOCKS]


def test_a_graph_without_coordinates_gets_a_layout_with_every_point_apart(page):
    distances = run(page, "board.js", """
        const points = Array.from({length: 12}, (_, i) => "p" + i);
        const edges = points.map((p, i) => [p, points[(i + 1) % 12]]).concat([["p0", "p6"]]);
        const pos = m.layout({points, edges}, null).pos;
        const d = [];
        for (const a of points) for (const b of points) if (a < b) d.push(Math.hypot(pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]));
        return d;
    """)
    assert min(distances) >= 0.999   # scaled so that the closest two points are one unit apart
    assert max(distances) < 12       # and not flung apart


def test_the_replay_puts_back_the_position_of_a_rescission(page):
    stones = run(page, "replay.js", """
        const board = {points: ["A1", "B1"], edges: [["A1", "B1"]]};
        const h = [[0, "A1", false], [1, "B1", false], [2, "A1", false], [0, "B1", false], [1, "A1", false],
                   [2, "B1", true], [0, "appeal A1", true], [1, "pass", true], [2, "pass", true], [2, "pass", false]];
        return m.positions(board, h);
    """)
    assert stones[1] == {"A1": 0}
    assert stones[2] == {"B1": 1}
    assert stones[6] == {"B1": 2}
    assert stones[9] == {"A1": 1}       # the rescinding pass: back to before the rescinded play
    assert stones[10] == {"A1": 1}


def test_replays_know_grids_and_fixed_handicaps_as_the_engine_does(page):
    from polygo.rules import Board
    from polygo.rules.handicap import fixed_handicap_points

    for spec, stones in [("9", 2), ("9", 5), ("13", 9), ("19", 4), ("19", 7), ("19", 8), ("9x7", 3)]:
        got = run(page, "replay.js", f"return Object.keys(m.fixedHandicap({spec!r}, {stones}));")
        assert sorted(got) == sorted(fixed_handicap_points(Board.parse(spec), stones)), (spec, stones)
    for spec in ["9", "7x5", "torus:5x5", "torus:3x4"]:
        got = run(page, "replay.js", f"return m.gridBoard({spec!r});")
        board = Board.parse(spec)
        assert got["points"] == list(board.points)
        assert sorted(map(sorted, got["edges"])) == sorted(map(sorted, board.to_json()["edges"])), spec
