"""The systemd units: `systemd-analyze verify` finds nothing to say (of the cluster node template
through an instance of it), the offline security review scores each service at most 2.0, and the
settings that make it a notify service with a watchdog, a state directory and a graceful stop are
there; a node of the template takes its node id from the instance name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"

UNITS = DEPLOY / "systemd"
INSTALLED = "/opt/polygo/bin/polygo-server"


def settings(path: Path) -> dict[str, list[str]]:
    """Every `Key=value` of a unit file (keys may repeat)."""
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def test_units_verify_cleanly(tool, tmp_path):
    analyze = tool("systemd-analyze")
    here = str(Path(sys.executable).parent / "polygo-server")    # the install prefix is the only change
    copies = []
    for unit in ("polygo.service", "polygo-backup.service", "polygo-backup.timer", "polygo@.service"):
        text = (UNITS / unit).read_text()
        if unit.endswith(".service"):
            assert text.count(INSTALLED) == 1
        copy = tmp_path / unit
        copy.write_text(text.replace(INSTALLED, here))
        copies.append(str(copy).replace("@.", "@a."))      # a template is verified through an instance
    done = subprocess.run([analyze, "verify", *copies], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr.strip() == "" and done.stdout.strip() == "", done.stderr


@pytest.mark.parametrize("unit", ["polygo.service", "polygo-backup.service", "polygo@.service"])
def test_offline_security_score_is_at_most_2(tool, unit):
    done = subprocess.run([tool("systemd-analyze"), "security", "--offline=true", "--no-pager", str(UNITS / unit)],
                          capture_output=True, text=True, timeout=120)
    name = unit.replace("@.", "@i.")                           # a template is scored as instance "i"
    found = re.search(rf"Overall exposure level for {re.escape(name)}: (\d+\.\d+)", done.stdout)
    assert found, done.stdout + done.stderr
    assert float(found.group(1)) <= 2.0


def test_the_service_is_a_notify_service_with_a_watchdog_that_stops_gracefully():
    unit = settings(UNITS / "polygo.service")
    assert unit["Type"] == ["notify"] and unit["NotifyAccess"] == ["main"]
    assert unit["User"] == ["polygo"] and unit["StateDirectory"] == ["polygo"]
    assert unit["ExecStart"] == [INSTALLED] and unit["KillSignal"] == ["SIGTERM"]
    assert "POLYGO_DB=/var/lib/polygo/polygo.db" in unit["Environment"][0].split()
    drain = float(re.search(r"POLYGO_DRAIN_TIMEOUT=(\d+)", unit["Environment"][0]).group(1))
    assert float(unit["TimeoutStopSec"][0]) > drain          # systemd's SIGKILL comes after the drain
    assert int(unit["WatchdogSec"][0]) >= 10                  # the loop pings every 0.5 s
    example = (UNITS / "polygo.env.example").read_text()
    assert f"POLYGO_DRAIN_TIMEOUT={int(drain)}" in example and "POLYGO_DB=/var/lib/polygo/polygo.db" in example


def test_the_backup_runs_hourly_and_keeps_the_newest_copies():
    backup = settings(UNITS / "polygo-backup.service")
    assert backup["Type"] == ["oneshot"] and backup["User"] == ["polygo"]
    assert backup["ExecStart"] == [f"{INSTALLED} backup /var/lib/polygo-backups --keep ${{POLYGO_BACKUP_KEEP}}"]
    assert backup["StateDirectory"] == ["polygo polygo-backups"]
    server = settings(UNITS / "polygo.service")         # the server reads the copies' age from there
    assert "POLYGO_BACKUP_DIR=/var/lib/polygo-backups" in server["Environment"]
    timer = settings(UNITS / "polygo-backup.timer")
    assert timer["OnCalendar"] == ["hourly"] and timer["Persistent"] == ["true"]


def test_the_node_template_runs_one_cluster_node_per_instance():
    node = settings(UNITS / "polygo@.service")
    single = settings(UNITS / "polygo.service")
    assert "POLYGO_NODE_ID=%i" in node["Environment"][0].split()
    assert node["EnvironmentFile"] == ["/etc/polygo/cluster.env", "/etc/polygo/node-%i.env"]
    assert "StateDirectory" not in node                       # the games live in PostgreSQL
    for key in ("Type", "NotifyAccess", "ExecStart", "KillSignal", "TimeoutStopSec", "WatchdogSec", "User",
                "SystemCallFilter", "ProtectSystem", "RestrictAddressFamilies"):
        assert node[key] == single[key], key                  # otherwise the single server's unit
    example = (UNITS / "polygo-cluster.env.example").read_text()
    assert "POLYGO_DB=postgresql://" in example and "POLYGO_PORT=" in example
