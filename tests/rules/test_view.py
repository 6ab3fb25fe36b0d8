"""The rule modules see their game through polygo/rules/view.py's GameView: Game offers all of it, and
no repetition rule or ending procedure reads a private name of its game."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from polygo.rules import PRESETS, Board, Game
from polygo.rules.view import GameView

RULE_MODULES = Path(__file__).resolve().parents[2] / "polygo" / "rules"


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_a_game_offers_the_view_its_rules_read(rules):
    g = Game(Board.grid(9, 9), rules=rules)
    assert isinstance(g, GameView)


def private_reads_of_the_game(path: Path) -> list[str]:
    """``game._x`` and ``self.game._x`` in a module, as "line: name"."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id in ("game", "other_game")) or (
                    isinstance(owner, ast.Attribute) and owner.attr == "game"):
                found.append(f"{node.lineno}: {node.attr}")
    return found


@pytest.mark.parametrize("path", sorted([*RULE_MODULES.glob("repetition/**/*.py"), *RULE_MODULES.glob("ending/*.py")]),
                         ids=lambda p: str(p.relative_to(RULE_MODULES)))
def test_no_rule_module_reads_a_private_name_of_its_game(path):
    assert private_reads_of_the_game(path) == []


def test_the_check_sees_a_private_read(tmp_path):
    module = tmp_path / "rule.py"
    module.write_text("def f(self, game):\n    return self.game._pos, game._turn, game.position\n")
    assert private_reads_of_the_game(module) == ["2: _pos", "2: _turn"]
