"""A handicap room without a komi gets komi 0.5 (the OGS/KGS convention), everywhere the game is built."""

from polygo.rules import Board, Game
from polygo.protocol import engine_options


def game_of(settings: dict) -> Game:
    return Game(Board.parse(settings.get("board", "9x9")), rules=settings["rules"], players=2,
                **engine_options(settings))


def test_handicap_without_komi_is_half_a_point():
    assert game_of({"rules": "chinese", "handicap": 2}).rules.komi == 0.5
    assert game_of({"rules": "japanese", "handicap": 3}).rules.komi == 0.5


def test_a_given_komi_and_even_games_keep_theirs():
    assert game_of({"rules": "chinese", "handicap": 2, "komi": 3}).rules.komi == 3
    assert game_of({"rules": "chinese", "handicap": 2, "komi": 0}).rules.komi == 0
    assert game_of({"rules": "chinese"}).rules.komi == 7.5
    assert game_of({"rules": "chinese", "handicap": 0}).rules.komi == 7.5


def test_lasker_maas_komi_is_not_changed():
    assert game_of({"rules": "lasker-maas", "handicap": 2}).rules.komi == Game(
        Board.parse("9x9"), rules="lasker-maas", players=2, handicap=2).rules.komi
