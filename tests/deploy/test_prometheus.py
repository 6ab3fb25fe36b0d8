"""The Prometheus files: promtool accepts the scrape config and the rules, the rule unit tests
pass (each alert fires on its failure and stays quiet on a healthy server), and every polygo
metric the rules name is one the server exports."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml
from prometheus_client.parser import text_string_to_metric_families

from polygo.server.ops.metrics import PrometheusMetrics

PROMETHEUS = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"


def promtool(tool, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([tool("promtool"), *args], cwd=PROMETHEUS, capture_output=True, text=True, timeout=120)


def test_promtool_accepts_the_config_and_the_rules(tool):
    for args in (("check", "config", "prometheus.yml"), ("check", "rules", "polygo-rules.yml")):
        done = promtool(tool, *args)
        assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr


def test_the_alerts_fire_on_their_failures(tool):
    done = promtool(tool, "test", "rules", "polygo-rules.test.yml")
    assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr


def test_the_issue_s_alerts_are_there_on_metrics_the_server_exports():
    rules = yaml.safe_load((PROMETHEUS / "polygo-rules.yml").read_text())["groups"][0]["rules"]
    alerts = {r["alert"]: r["expr"] for r in rules}
    assert {"PolygoNoCommits", "PolygoAckLatencyHigh", "PolygoCommitFailures", "PolygoEventLoopLag",
            "PolygoBackupTooOld", "PolygoDatabaseDown"} <= set(alerts)
    metrics = PrometheusMetrics(lambda: {"connections": 0, "sessions": 0, "rooms": {}, "pending_writes": 0,
                                         "ready": True, "last_backup": 0.0})
    metrics.committed(1, 0.001)
    metrics.commit_failed()
    exported = {s.name for family in text_string_to_metric_families(metrics.render().decode())
                for s in family.samples}
    for expr in alerts.values():
        for name in re.findall(r"\b(polygo_\w+)", expr):
            assert name in exported, name
