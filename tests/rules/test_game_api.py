"""The Game API as the server and the bots call it, and the everyday presets."""

import dataclasses

import pytest

from polygo.rules import PRESETS, Board, Game, IllegalMove, Ruleset, RulesetError, preset
from polygo.rules.repetition.rule import QUICK_PATH_ATTRIBUTES


def test_players_as_a_number_or_names():
    assert Game(Board.grid(9, 9), players=3).players == ("black", "white", "red")
    g = Game(Board.grid(9, 9), players=["ann", "bob"])
    assert g.players == ("ann", "bob") and g.to_move == 0
    for bad in (1, 9, ["a", "a"], True):
        with pytest.raises(RulesetError):
            Game(Board.grid(9, 9), players=bad)


@pytest.mark.parametrize("move, reason", [
    ("", "bad-move"), ("D4 E5", "bad-move"), ("appeal", "bad-move"), ("rank x", "bad-move"),
    ("Z99", "unknown-point"), ("I5", "unknown-point"), ("appeal Q99", "unknown-point"),
    ("dead D4", "not-scoring"), ("accept", "no-proposal"), ("rank 1", "bad-ranking"),
])
def test_every_refusal_has_a_reason(move, reason):
    g = Game(Board.grid(9, 9), rules="kee")
    assert g.why_illegal(move) == reason
    with pytest.raises(IllegalMove) as exc:
        g.play(move)
    assert exc.value.reason.value == reason and str(exc.value)
    assert g.history == [] and g.to_move == 0


def test_refused_move_changes_nothing_and_turns_are_enforced():
    g = Game(Board.grid(9, 9), rules="kee")
    g.play("D4")
    before = (g.stones(), g.to_move, len(g.history), g.position_hash)
    assert g.why_illegal("D4") == "occupied"
    assert g.why_illegal("E5", seat=0) == "not-your-turn"
    assert g.why_illegal("E5", seat=5) == "bad-seat"
    with pytest.raises(IllegalMove):
        g.play("D4")
    assert (g.stones(), g.to_move, len(g.history), g.position_hash) == before
    assert g.why_illegal("d5") is None               # grid names are case-insensitive


def test_resignation_two_players_and_drop_out_with_three():
    g = Game(Board.grid(9, 9))
    g.play("resign", seat=1)
    assert g.over and g.result.reason == "resignation" and g.ranking() == [1, 2]
    g = Game(Board.grid(5, 5), players=3)
    g.play("C3")
    g.play("resign", seat=1)
    assert not g.over and g.to_move == 2 and g.active == [True, False, True]
    g.play("D4")
    assert g.to_move == 0                            # white's turns are skipped
    g.drop_out(0, "timeout")
    assert g.over and g.result.reason == "timeout" and g.ranking() == [2, 3, 1]


def test_copy_is_independent_and_record_replays():
    g = Game(Board.grid(5, 5), rules="kee", players=3, setup={"A1": 2})
    for m in ("C3", "D4", "B2", "pass"):
        g.play(m)
    c = g.copy()
    c.play("E5")
    assert "E5" not in g.stones() and len(g.history) == 4
    r = Game.from_record(g.to_record())
    assert r.stones() == g.stones() and r.to_move == g.to_move and r.history == g.history


def test_from_record_names_the_bad_move():
    rec = Game(Board.grid(5, 5)).to_record()
    rec["moves"] = [[0, "C3"], [1, "C3"]]
    with pytest.raises(IllegalMove, match="move 1"):
        Game.from_record(rec)


def test_legal_moves_lists_points_pass_and_appeals():
    g = Game(Board.grid(2, 1), rules="kee")
    g.play("A1")
    g.play("B1")
    assert g.legal_moves() == ["pass", "appeal A1"]
    for m in g.legal_moves():
        g.copy().play(m)


def test_tromp_taylor_allows_multi_stone_suicide_chinese_does_not():
    setup = {"A1": 1, "C1": 1}
    tt = Game(Board.grid(3, 1), rules="tromp-taylor", setup=setup)
    tt.play("pass")
    assert tt.why_illegal("B1") is None
    ch = Game(Board.grid(3, 1), rules="chinese", setup=setup)
    ch.play("pass")
    assert ch.why_illegal("B1") == "suicide"


def test_positional_superko_in_tromp_taylor_and_chinese():
    for rules in ("tromp-taylor", "chinese"):
        g = Game(Board.grid(2, 1), rules=rules)
        g.play("A1")
        g.play("B1")
        assert g.why_illegal("A1") == "superko"
        assert g.why_illegal("appeal A1") == "no-appeals"


def test_tromp_taylor_ends_on_passes_chinese_marks_dead_stones():
    tt = Game(Board.grid(5, 5), rules="tromp-taylor", komi=0.5)
    tt.play("C3"), tt.play("pass"), tt.play("pass")
    assert tt.phase == "ended" and tt.score() == [25.0, 0.5]
    ch = Game(Board.grid(5, 5), rules="chinese")
    ch.play("C3"), ch.play("D4"), ch.play("pass"), ch.play("pass")
    assert ch.phase == "scoring" and ch.score() == [1.0, 1.0 + 7.5]


def test_chinese_handicap_bonus():
    g = Game(Board.grid(9, 9), rules="chinese", handicap=3, komi=0.5)
    assert g.to_move == 1 and len(g.stones()) == 3
    assert g.score() == [81.0, 3.5]


def test_ruleset_json_is_strict_and_round_trips():
    r = Ruleset.from_json({"name": "lasker-maas", "komi": 6.5, "superko": "positional"})
    assert Ruleset.from_json(r.to_json()) == r
    for bad in ({"name": "kee", "superko": "positional"}, {"name": "kee", "colour": 1},
                {"name": "nope"}, {"komi": 1}, {"name": "chinese", "handicap": -1}):
        with pytest.raises(RulesetError):
            Ruleset.from_json(bad)


KO = {"B3": 0, "A2": 0, "B1": 0, "C3": 1, "B2": 1, "D2": 1, "C1": 1}


def test_own_previous_position_ko_rule():
    g = Game(Board.grid(4, 3), rules="nieminen", setup=KO)
    g.play("C2")                                     # Black takes the ko
    assert g.why_illegal("B2") is None               # N7a, A2: White's first turn, White left no position
    g.play("B2")                                     # White takes back: the set-up position again
    assert g.why_illegal("C2") == "ko"               # would bring back the position Black left
    g.play("A3")                                     # a move elsewhere
    g.play("D3")
    assert g.why_illegal("C2") is None               # now a new position


def test_japanese_ko_refuses_the_retake_on_the_next_move_even_at_a_first_turn():
    """Japanese 1989, Article 6: a player whose stone has been captured in a ko "cannot
    recapture in that ko on the next move"; the text knows no "previous turn"."""
    g = Game(Board.grid(4, 3), rules="japanese", setup=KO)
    g.play("C2")                                     # Black takes the ko at once
    assert g.why_illegal("B2") == "ko"               # White's first move: the retake is refused
    with pytest.raises(IllegalMove, match="ko"):
        g.play("B2")
    g.play("D3")                                     # White plays elsewhere, Black answers
    g.play("A3")
    assert g.why_illegal("B2") is None               # no longer the next move: White may retake
    g.play("B2")
    assert g.why_illegal("C2") == "ko"               # and now Black may not at once


def test_territory_scoring_counts_prisoners_and_komi():
    g = Game(Board.grid(4, 3), rules="japanese", setup={"B1": 0, "B2": 0, "C1": 1, "C2": 1, "C3": 1})
    g.play("B3")
    g.play("A3")                                     # White invades; both pass; it is agreed dead
    g.play("pass")
    g.play("pass")
    assert g.phase == "scoring"
    g.play("dead A3", seat=0), g.play("done", seat=0), g.play("done", seat=1)
    # Black: territory A1-A3 and the dead stone as a prisoner; White: D1-D3 and komi.
    assert g.prisoners == [0, 1] and g.score() == [4.0, 9.5]


def test_aga_handicap_bonus_is_n_minus_1_and_superko_is_situational():
    g = Game(Board.grid(9, 9), rules="aga", handicap=3, komi=0.5)
    assert g.score() == [81.0, 2.5]
    assert Game(Board.grid(9, 9), rules="aga").rules.repetition.value == "situational"


@pytest.mark.parametrize("rules", ["kee", "chinese", "japanese"])
def test_resume_from_marking_when_dead_stones_are_disputed(rules):
    g = Game(Board.grid(5, 5), rules=rules)
    for m in ("C3", "D4", "pass", "pass"):
        g.play(m)
    assert g.phase == "scoring"
    g.play("dead D4", seat=0)
    g.play("resume", seat=1)                         # White disputes: play on, Black first
    assert g.phase == "play" and g.to_move == 0 and g.dead == [] and g.consecutive_passes() == 0
    g.play("E4")
    g.play("pass")
    assert g.phase == "play"                         # the passes before the resumption no longer count
    g.play("pass")
    assert g.phase == "scoring"


def test_resume_only_from_marking():
    g = Game(Board.grid(5, 5), rules="kee")
    assert g.why_illegal("resume") == "not-scoring"
    lm = Game(Board.grid(5, 5), rules="lasker-maas")
    for m in ("pass", "pass", "pass", "pass"):
        lm.play(m)
    assert lm.phase == "ended" and lm.why_illegal("resume", seat=0) == "game-over"


@pytest.mark.parametrize("rules, options", [
    ("chinese", {}),
    ("hansen-sst", {"move_cap_per_point": 10, "a1": "basic-ko", "a3": False, "keying": "config",
                    "counter": "immediate"}),
    ("nieminen", {"no_result_at": 3}),
    ("jasiek-nkr", {"ko_shapes": "two-point"}),
])
def test_family_options_write_out_the_defaults_a_record_needs(rules, options):
    """A stored record names its rule family's options even at their defaults, and they replay."""
    ruleset = Ruleset.from_json(rules)
    assert ruleset.family_options() == options
    assert ruleset.with_options(**options) == ruleset


@pytest.mark.parametrize("rules", ["nieminen", "hansen-sst", "jasiek-nkr"])
def test_a_two_player_repetition_rule_refuses_a_third_seat_without_the_presets_limit(rules):
    """Nieminen's, Hansen's and Jasiek's texts are for two players and their rules keep records
    per seat of two; a ruleset built by hand without the preset's max_players must not seat a
    third player (Nieminen's N14a reads who left a board as the other of two seats; Hansen's rule raised
    IndexError in legal_moves() with the third seat to move)."""
    own = dataclasses.replace(preset(rules), name="by-hand", max_players=None)
    with pytest.raises(RulesetError, match="for two players, not 3"):
        Game(Board.grid(5, 5), own, players=3)
    assert len(Game(Board.grid(5, 5), own).players) == 2


@pytest.mark.parametrize("rules", ["japanese", "kee", "lasker-maas", "jasiek-nkr", "hansen-sst"])
def test_a_game_keeps_at_most_29_attributes(rules):
    """More than 29 and every attribute read of the quick path gets slower (docs/performance.md):
    a new attribute means folding or dropping another."""
    g = Game(Board.grid(9, 9), rules=rules)
    for move in ("D4", "E5", "pass", "pass"):
        g.play(move)
    assert len(vars(g)) <= 29


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_what_the_quick_path_reads_is_in_each_rule_instance(rules):
    """The quick path reads these every play; it stays fast only while each is the instance's
    own value of a builtin type (docs/performance.md)."""
    g = Game(Board.grid(9, 9), rules=rules)
    g.play("D4")
    rule = g._rule
    assert set(QUICK_PATH_ATTRIBUTES) <= set(vars(rule)), set(QUICK_PATH_ATTRIBUTES) - set(vars(rule))
    assert "watches_stones" in vars(g._ending)
    for cls in type(rule).__mro__:
        for name in QUICK_PATH_ATTRIBUTES:
            if name in vars(cls):
                kind = type(vars(cls)[name])
                assert kind.__module__ == "builtins", f"{cls.__name__}.{name} is a {kind.__name__}"

