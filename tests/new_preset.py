"""A preset no polygo ships, for the tests that add one to `PRESETS` and nothing else, and see it
served, offered and counted by the web page, written in SGF and played by the GTP bridge: New
Zealand's rules (area scoring, situational superko, suicide allowed, no handicap compensation).
Everything a test checks of it but its name, title and komi comes from those parts.

In-process tests add it with `monkeypatch.setitem(PRESETS, NAME, NEW)`; a server subprocess gets it
by being started as `python -c SERVER ...` (the same arguments as `python -m polygo.server`), from
the repository's top directory.
"""

from __future__ import annotations

from polygo.rules.ruleset import PRESETS, Repetition, Ruleset, Suicide

NAME = "test-nz"
NEW = Ruleset(NAME, Repetition.SITUATIONAL, Suicide.BOARD_CHANGING, komi=7.0, title="New Zealand (a test's)")

DESCRIBED = {
    "name": NAME, "title": "New Zealand (a test's)",
    "help": "area scoring, situational superko, suicide allowed, komi 7; 2 or more players",
    "scoring": "area", "sgf": "NZ",
    "gtp": {"gnugo": ["--chinese-rules", "--situational-superko", "--allow-suicide"], "kgs": "new_zealand",
            "katago": "new-zealand"},
}
"""What the server serves of it (`welcome.rulesets`, `GET /api/rulesets`)."""

SERVER = ("import runpy, tests.new_preset as added; added.register(); "
          "runpy.run_module('polygo.server', run_name='__main__', alter_sys=True)")


def register() -> None:
    """Add the preset in this process, for good (a subprocess's start)."""
    PRESETS[NAME] = NEW
