"""A preset describes itself: its title and help, its scoring family, SGF's RU and the GTP engines'
rules, the last three computed from its parts (polygo/rules/describe.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from polygo.rules import PRESETS, Board, Game, describe, describe_presets, preset
from polygo.rules.describe import FAMILIES, help_line
from polygo.rules.ruleset import Repetition, Ruleset, Scoring, Suicide
from polygo.rules.sgf import to_sgf

# what the tables by name (the web page's, the GTP bridge's, SGF's) said before the presets said it
EXPECTED = {
    #                scoring        RU              GNU Go options                                              kgs-rules      kata-set-rules
    "kee":          ("area",        "kee",          "--chinese-rules --positional-superko --allow-suicide",    "new_zealand", "tromp-taylor"),
    "chinese":      ("area",        "Chinese",      "--chinese-rules --positional-superko",                    "chinese",     "chinese"),
    "japanese":     ("territory",   "Japanese",     "--japanese-rules",                                        "japanese",    "japanese"),
    "aga":          ("area",        "AGA",          "--chinese-rules --situational-superko",                   "aga",         "aga"),
    "tromp-taylor": ("area",        "Tromp-Taylor", "--chinese-rules --positional-superko --allow-suicide --capture-all-dead",
                                                                                                               "new_zealand", "tromp-taylor"),
    "lasker-maas":  ("lasker-maas", "lasker-maas",  "--japanese-rules --situational-superko",                  "japanese",    "japanese"),
    "nieminen":     ("territory",   "nieminen",     "--japanese-rules",                                        "japanese",    "japanese"),
    "hansen-sst":   ("area",        "hansen-sst",   "--chinese-rules --allow-suicide",                         "new_zealand", "tromp-taylor"),
    "jasiek-nkr":   ("area",        "jasiek-nkr",   "--chinese-rules --allow-suicide",                         "new_zealand", "tromp-taylor"),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_shipped_preset_describes_itself_as_the_tables_said(name):
    scoring, sgf, gnugo, kgs, katago = EXPECTED[name]
    d = describe(preset(name))
    assert (d["name"], d["scoring"], d["sgf"]) == (name, scoring, sgf)
    assert d["gtp"] == {"gnugo": gnugo.split(), "kgs": kgs, "katago": katago}
    assert d["title"] and d["help"]


def test_every_preset_is_described_in_order():
    assert [d["name"] for d in describe_presets()] == list(PRESETS) == list(EXPECTED)


def test_the_everyday_presets_help_is_made_from_their_parts():
    assert help_line(preset("chinese")) == "area scoring, positional superko, komi 7.5; 2 or more players"
    assert help_line(preset("japanese")) == "territory and prisoners, simple ko, komi 6.5; 2 players"
    assert help_line(preset("aga")) == "area scoring, situational superko, komi 7.5; 2 players"
    assert help_line(preset("tromp-taylor")) == (
        "area scoring, positional superko, suicide allowed, every stone alive at the end; 2 or more players")
    assert all(not preset(n).help for n in ("chinese", "japanese", "aga", "tromp-taylor"))


def test_a_new_preset_is_described_from_its_parts_alone():
    nz = Ruleset("nz", Repetition.SITUATIONAL, Suicide.BOARD_CHANGING, komi=7.0)
    assert describe(nz) == {
        "name": "nz", "title": "nz", "help": "area scoring, situational superko, suicide allowed, komi 7; 2 or more players",
        "scoring": "area", "sgf": "NZ",
        "gtp": {"gnugo": ["--chinese-rules", "--situational-superko", "--allow-suicide"], "kgs": "new_zealand",
                "katago": "new-zealand"}}
    territory = Ruleset("t", Repetition.POSITIONAL, Suicide.FORBIDDEN, scoring=Scoring.TERRITORY, max_players=2)
    assert describe(territory)["sgf"] == "t"        # Japanese scoring, but not the Japanese ko rule
    assert describe(territory)["gtp"]["gnugo"] == ["--japanese-rules", "--positional-superko"]


def test_every_scoring_has_a_family():
    assert set(FAMILIES) == set(Scoring)


def test_title_and_help_are_words_about_the_rules_not_rules():
    chinese = preset("chinese")
    assert replace(chinese, title="other", help="other") == chinese
    assert "title" not in chinese.parts() and "help" not in chinese.parts()
    assert chinese.with_options(komi=5.5).title == "Chinese"


def test_sgf_names_the_preset_not_the_rooms_options():
    game = Game(Board.grid(5, 5), rules="chinese", players=2, superko="situational")
    game.play("resign")
    assert "RU[Chinese]" in to_sgf(game.to_record())
