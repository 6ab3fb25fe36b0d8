"""The series an operator's dashboards and alerts read: the build's version, refused handshakes by
reason, games started and finished per ruleset, every error code from 0, and no `*_created`."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.rules import PRESETS
from polygo.protocol import ErrorCode
from polygo.server import VERSION
from polygo.server.store.backup import backup
from tests.server.http.test_http import get, samples, scrape


async def test_every_labelled_counter_starts_at_zero_and_nothing_is_created(server):
    status, _, body = await get(server.port, "/metrics")
    assert status == 200
    values = samples(body)
    assert values[("polygo_build_info", (("version", VERSION),))] == 1
    for code in ErrorCode:
        assert values[("polygo_errors_total", (("code", code.value),))] == 0
    for rules in PRESETS:
        assert values[("polygo_games_started_total", (("rules", rules),))] == 0
        assert values[("polygo_games_finished_total", (("rules", rules),))] == 0
    for reason in ("limit", "flood", "starting", "draining", "banned"):
        assert values[("polygo_handshakes_refused_total", (("reason", reason),))] == 0
    assert not [name for name, _ in values if name.endswith("_created")]


async def test_games_are_counted_per_ruleset(server, players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "japanese", "board": "9"})
    assert (await black.move(room, "resign", 1))["type"] == "ack"
    await seat([black, white], {"rules": "kee", "board": "5"})
    values = await scrape(server.port)
    assert values[("polygo_games_started_total", (("rules", "japanese"),))] == 1
    assert values[("polygo_games_finished_total", (("rules", "japanese"),))] == 1
    assert values[("polygo_games_started_total", (("rules", "kee"),))] == 1
    assert values[("polygo_games_finished_total", (("rules", "kee"),))] == 0


async def test_handshakes_over_the_limit_are_counted(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "gate.db"), connections_per_address=1)
    kept = await connect(f"ws://127.0.0.1:{srv.port}/")
    try:
        with pytest.raises(InvalidStatus):
            await connect(f"ws://127.0.0.1:{srv.port}/")
    finally:
        await kept.close()
    values = await scrape(srv.port)
    assert values[("polygo_handshakes_refused_total", (("reason", "limit"),))] == 1


async def test_the_newest_backup_s_time_is_exported_when_the_server_knows_where_they_are(make_server, tmp_path):
    copies = tmp_path / "backups"
    copies.mkdir()
    srv = await make_server(db=str(tmp_path / "b.db"), backup_dir=str(copies))
    assert (await scrape(srv.port))[("polygo_last_backup_timestamp_seconds", ())] == 0
    for hour in (1, 2):
        backup(srv.config.db, copies, keep=48, now=datetime(2026, 11, 28, hour, 0, 0, tzinfo=timezone.utc))
    (copies / "polygo-20991231T000000Z.db.partial").write_text("")      # not a kept copy
    values = await scrape(srv.port)
    assert values[("polygo_last_backup_timestamp_seconds", ())] == datetime(2026, 11, 28, 2, tzinfo=timezone.utc).timestamp()


async def test_without_a_backup_dir_there_is_no_backup_metric(server):
    assert not [name for name, _ in await scrape(server.port) if "backup" in name]


async def test_every_polygo_metric_is_in_the_operations_table(server):
    """An operator paged on a series (`polygo_database_up 0`) finds what it means in
    docs/operations.md's table of metrics."""
    _, _, body = await get(server.port, "/metrics")
    names = {name for name, _ in samples(body) if name.startswith("polygo_")}
    table = (Path(__file__).resolve().parents[3] / "docs" / "operations.md").read_text()
    families = {re.sub(r"_(bucket|count|sum)$", "", name) for name in names}
    assert "polygo_database_up" in families
    assert not [name for name in sorted(families) if f"| `{name}" not in table]
