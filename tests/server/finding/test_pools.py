"""Pools as data: the shipped ones, the operator's TOML file (added, changed, turned off), its
mistakes refused at start with a sentence naming the pool, and the pools on the wire."""

from __future__ import annotations

import pytest

from polygo.server.finding import pools
from polygo.server.config import parse_config


def write(tmp_path, text: str):
    path = tmp_path / "pools.toml"
    path.write_text(text)
    return path


def test_the_shipped_pools_include_kee_3p_hex5_and_chinese_9x9():
    shipped = pools.load(None)
    kee, chinese = shipped["kee-3p-hex5"], shipped["chinese-9x9"]
    assert (kee.rules, kee.players, kee.board, kee.clock) == ("kee", 3, "hex5", "fischer:300+5")
    assert (chinese.rules, chinese.players, chinese.board) == ("chinese", 2, "9x9")
    assert chinese.clock.startswith("byoyomi:") and any(p.arena for p in shipped.values())
    for pool in shipped.values():
        assert pools.check(pool) is pool


def test_a_pool_file_adds_changes_and_turns_off_pools(tmp_path):
    path = write(tmp_path, """
[pools.lasker-maas-19]
rules = "lasker-maas"
board = "19"
clock = "canadian:1200+300/25"
komi = 5

[pools.arena-9x9]
clock = "fischer:60+1"

[pools.chinese-19x19]
enabled = false
""")
    loaded = pools.load(path)
    assert loaded["lasker-maas-19"].komi == 5.0 and loaded["lasker-maas-19"].rated
    assert loaded["arena-9x9"].clock == "fischer:60+1" and loaded["arena-9x9"].arena
    assert "chinese-19x19" not in loaded and "kee-3p-hex5" in loaded
    stored = loaded["lasker-maas-19"].stored_settings()
    assert stored["pool"] == "lasker-maas-19" and stored["rated"] is True and stored["clock"]["kind"] == "canadian"


@pytest.mark.parametrize("text,words", [
    ("[pools.x]\nrules = 'nope'\n", "pool 'x'"),
    ("[pools.x]\nrules = 'kee'\ncolour = 'red'\n", "unknown keys colour"),
    ("[pools.x]\nboard = '9'\n", "rules is missing"),
    ("[pools.x]\nrules = 'chinese'\nplayers = '2'\n", "players has the wrong type"),
    ("[pools.x]\nrules = 'japanese'\nplayers = 3\n", "japanese is for 2 players"),
    ("[pools.Bad_Name]\nrules = 'chinese'\n", "pool name 'Bad_Name'"),
    ("[other]\n", "holds only [pools.NAME] tables"),
    ("[pools.x]\nrules = 'chinese'\narena = true\n", "an arena needs a clock"),
    ("[pools.x\n", "is not TOML"),
])
def test_a_bad_pool_file_is_refused_with_a_sentence(tmp_path, text, words):
    with pytest.raises(pools.PoolError) as refused:
        pools.load(write(tmp_path, text))
    assert words in str(refused.value)


def test_a_bad_pool_file_is_a_usage_error(tmp_path, capsys):
    path = write(tmp_path, "[pools.x]\nrules = 'nope'\n")
    with pytest.raises(SystemExit) as stopped:
        parse_config(["--pools", str(path)], env={})
    assert stopped.value.code == 2 and "pool 'x'" in capsys.readouterr().err
    turned_off = write(tmp_path, "[pools.chinese-9x9]\nenabled = false\n")
    assert parse_config([], env={"POLYGO_POOLS": str(turned_off)}).pools_file == str(turned_off)


async def test_the_operator_s_pools_are_listed_on_the_wire(tmp_path, make_server, connect_client):
    path = write(tmp_path, "[pools.tiny]\nrules = 'tromp-taylor'\nboard = '5x5'\nrated = false\n")
    srv = await make_server(pools_file=str(path))
    client = await connect_client(port=srv.port)
    await client.hello("ann")
    listed = {p["name"]: p for p in (await client.ok("pools"))["pools"]}
    assert listed["tiny"]["rated"] is False and listed["tiny"]["seeking"] == 0
    assert (await client.ok("seek", pool="tiny"))["rated"] is False     # unrated: open to guests
