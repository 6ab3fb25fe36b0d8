"""The container files, checked without Docker (no engine on these machines): hadolint lints the
Dockerfile, and the essentials are asserted: a non-root user, an exec-form entrypoint, a health
check on /healthz, the database on a volume, a build context that holds what the image copies,
and a compose file whose server is reached only through Caddy and may finish its drain."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "deploy" / "docker"


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", "\n".join(l for l in path.read_text().splitlines() if not l.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip())
            for line in text.splitlines() if line.strip()]


def final_stage(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    last = max(i for i, (op, _) in enumerate(steps) if op == "FROM")
    return steps[last:]


def test_hadolint_finds_nothing(tool):
    done = subprocess.run([tool("hadolint"), str(DOCKER / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "", done.stdout


def test_the_image_runs_unprivileged_in_exec_form_with_a_health_check_and_a_volume():
    final = dict(final_stage(instructions(DOCKER / "Dockerfile")))
    user = final["USER"].split(":")[0]
    assert user not in ("root", "0") and int(user) >= 1000
    assert json.loads(final["ENTRYPOINT"]) == ["polygo-server"]          # exec form: SIGTERM reaches it
    assert final["STOPSIGNAL"] == "SIGTERM"
    health = final["HEALTHCHECK"]
    command = json.loads(health.split("CMD", 1)[1])
    assert command[0] == "python" and "/healthz" in command[-1] and "POLYGO_PORT" in command[-1]
    assert json.loads(final["VOLUME"]) == ["/data"]
    env = dict(re.findall(r"(\w+)=(\S+)", final["ENV"]))
    assert env["POLYGO_DB"].startswith("/data/") and env["POLYGO_HOST"] == "0.0.0.0"
    assert final["EXPOSE"] == env["POLYGO_PORT"] == "8765"
    runs = " ".join(v for op, v in instructions(DOCKER / "Dockerfile") if op == "RUN")
    assert "--requirement requirements.txt" in runs and "--no-deps ." in runs


def test_the_image_s_packages_are_pinned_satisfy_pyproject_and_leave_the_client_s_out():
    pinned = dict(line.split("==") for line in (DOCKER / "requirements.txt").read_text().splitlines()
                  if line and not line.startswith("#"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["metrics"]
              + project["optional-dependencies"]["postgres"]]
    client = {"prompt_toolkit", "wcwidth"}
    for requirement in wanted:
        name = requirement.name.replace("-", "_")
        if name in client:
            assert name not in pinned, name
            continue
        assert requirement.specifier.contains(pinned[name]), (requirement, pinned[name])
    assert set(pinned) == {r.name.replace("-", "_") for r in wanted} - client
    steps = instructions(DOCKER / "Dockerfile")
    assert [v for op, v in steps if op == "FROM"] == ["${PYTHON_IMAGE} AS build", "${PYTHON_IMAGE}"]
    assert dict(steps)["ARG"].startswith("PYTHON_IMAGE=python:3.11-slim")


def test_the_server_runs_without_the_terminal_client_s_packages(tmp_path):
    code = ("import sys; sys.modules['prompt_toolkit'] = sys.modules['wcwidth'] = None\n"
            "import runpy; sys.argv = ['polygo-server', '--version']; runpy.run_module('polygo.server', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0 and done.stdout.startswith("polygo-server "), done.stderr


def test_the_health_check_command_works_against_a_real_server(tmp_path):
    final = dict(final_stage(instructions(DOCKER / "Dockerfile")))
    code = json.loads(final["HEALTHCHECK"].split("CMD", 1)[1])[-1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_PORT=str(port), POLYGO_LOG_LEVEL="WARNING")
    down = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
    assert down.returncode != 0                                             # nothing listens: unhealthy
    server = subprocess.Popen([sys.executable, "-m", "polygo.server", "--db", str(tmp_path / "h.db")], env=env, cwd=ROOT)
    try:
        for _ in range(200):
            if subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60).returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the health check never passed against a running server")
    finally:
        server.terminate()
        assert server.wait(timeout=60) == 0


def test_the_build_context_sends_what_the_image_copies_and_nothing_else():
    rules = [l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines()
             if l.strip() and not l.startswith("#")]

    def sent(path: str) -> bool:
        keep = True
        for rule in rules:
            negate = rule.startswith("!")
            pattern = rule.lstrip("!").rstrip("/")
            if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/") or \
                    fnmatch.fnmatch(path, pattern.replace("**/", "*/")) or fnmatch.fnmatch(path, pattern.replace("**/", "")):
                keep = negate
        return keep

    sources = []
    for op, args in instructions(DOCKER / "Dockerfile"):
        if op == "COPY" and not args.startswith("--from"):
            sources += args.split()[:-1]
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert sent(source) and sent(f"{source}/__init__.py" if (ROOT / source).is_dir() else source), source
    for private in (".git", ".venv", "tests", "bench", "deploy", "polygo.db", "polygo/server/__pycache__/x.pyc"):
        assert not sent(private), private


def test_the_image_copies_every_file_the_build_of_polygo_reads():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    copied = [source for op, args in instructions(DOCKER / "Dockerfile")
              if op == "COPY" and not args.startswith("--from") for source in args.split()[:-1]]
    needed = ["pyproject.toml", project["readme"], *project["license-files"], *project_packages()]
    assert [name for name in needed if name not in copied] == []


def project_packages() -> list[str]:
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    return build["packages"]


def test_compose_runs_the_server_behind_caddy_with_time_to_drain():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    polygo, caddy = compose["services"]["polygo"], compose["services"]["caddy"]
    context = (DOCKER / polygo["build"]["context"]).resolve()
    assert context == ROOT and (context / polygo["build"]["dockerfile"]).samefile(DOCKER / "Dockerfile")
    assert "ports" not in polygo and polygo["expose"] == ["8765"]         # reached only through Caddy
    assert any(v.endswith(":/data") for v in polygo["volumes"])
    assert polygo["stop_signal"] == "SIGTERM"
    grace = int(polygo["stop_grace_period"].rstrip("s"))
    assert grace > int(polygo["environment"]["POLYGO_DRAIN_TIMEOUT"])
    assert polygo["read_only"] is True and polygo["cap_drop"] == ["ALL"]
    assert caddy["environment"]["POLYGO_UPSTREAM"] == "polygo:8765"
    assert caddy["depends_on"]["polygo"]["condition"] == "service_healthy"
    mounted = [v.split(":")[0] for v in caddy["volumes"] if v.endswith(":/etc/caddy/Caddyfile:ro")]
    assert mounted and (DOCKER / mounted[0]).resolve() == ROOT / "deploy" / "caddy" / "Caddyfile"
    assert set(compose["volumes"]) >= {"polygo-data", "caddy-data"}


def test_the_cluster_compose_file_runs_three_nodes_on_postgresql_behind_haproxy():
    compose = yaml.safe_load((DOCKER / "compose.cluster.yaml").read_text())
    services = compose["services"]
    nodes = {name: services[f"node-{name}"] for name in "abc"}
    haproxy = services["haproxy"]
    for name, node in nodes.items():
        assert node["environment"]["POLYGO_NODE_ID"] == name
        assert node["environment"]["POLYGO_DB"].startswith("postgresql://polygo:${POLYGO_PG_PASSWORD")
        assert node["environment"]["POLYGO_DB"].endswith("@postgres/polygo")
        assert "ports" not in node and node["expose"] == ["8765"]
        assert haproxy["environment"][f"POLYGO_NODE_{name.upper()}"] == f"node-{name}:8765"
        assert int(node["stop_grace_period"].rstrip("s")) > int(node["environment"]["POLYGO_DRAIN_TIMEOUT"])
        assert node["depends_on"]["postgres"]["condition"] == "service_healthy"
    mounted = [v.split(":")[0] for v in haproxy["volumes"] if v.endswith(":/usr/local/etc/haproxy/haproxy.cfg:ro")]
    assert mounted and (DOCKER / mounted[0]).resolve() == ROOT / "deploy" / "haproxy" / "haproxy.cfg"
    assert services["caddy"]["environment"]["POLYGO_UPSTREAM"] == f"haproxy:{haproxy['environment']['POLYGO_LISTEN'][1:]}"
    published = [name for name, service in services.items() if "ports" in service]
    assert published == ["caddy"]                               # PostgreSQL and the nodes stay inside
    assert "pg_isready" in services["postgres"]["healthcheck"]["test"]
