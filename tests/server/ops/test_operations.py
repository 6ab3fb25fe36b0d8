"""The operator's side of the process: sd_notify and the watchdog under a fake systemd socket,
JSON log lines, and the new settings on the command line and in the environment."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess

import pytest

from polygo.server.config import Config, parse_config
from polygo.server.ops.systemd import Notifier


def test_settings_for_operations_from_arguments_and_environment():
    env = {"POLYGO_LOG_FORMAT": "JSON", "POLYGO_DRAIN_TIMEOUT": "30", "POLYGO_METRICS_PORT": "9100",
           "POLYGO_METRICS_HOST": "127.0.0.2"}
    config = parse_config([], env)
    assert (config.log_format, config.drain_timeout, config.metrics_port, config.metrics_host) == \
        ("json", 30.0, 9100, "127.0.0.2")
    config = parse_config(["--log-format", "text", "--drain-timeout", "5", "--metrics-port", "0"], env)
    assert (config.log_format, config.drain_timeout, config.metrics_port) == ("text", 5.0, 0)
    defaults = parse_config([], {"POLYGO_METRICS_PORT": "", "POLYGO_METRICS_HOST": ""})
    assert defaults == Config() and defaults.metrics_port is None and defaults.drain_timeout == 10.0


@pytest.mark.parametrize("argv, env", [
    (["--log-format", "xml"], {}), ([], {"POLYGO_LOG_FORMAT": "yaml"}), (["--drain-timeout", "0"], {}),
    ([], {"POLYGO_DRAIN_TIMEOUT": "soon"}), (["--metrics-port", "70000"], {}), (["--metrics-host", "::1"], {}),
])
def test_bad_operations_settings_are_usage_errors(argv, env, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_config(argv, env)
    assert exc.value.code == 2 and "polygo-server: error:" in capsys.readouterr().err


def test_notifier_speaks_to_paths_and_abstract_sockets_and_reads_the_watchdog(tmp_path):
    assert not Notifier({}).enabled
    Notifier({}).notify("READY=1")                     # outside systemd: nothing, no error
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0polygo-test-%d" % os.getpid())
        notifier = Notifier({"NOTIFY_SOCKET": "@polygo-test-%d" % os.getpid(), "WATCHDOG_USEC": "3000000"})
        notifier.notify("READY=1", "STATUS=up")
        assert sock.recv(100) == b"READY=1\nSTATUS=up"
        assert notifier.watchdog == 1.5
    assert Notifier({"WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "1"}).watchdog is None   # another process's
    assert Notifier({"WATCHDOG_USEC": "lots"}).watchdog is None
    gone = Notifier({"NOTIFY_SOCKET": str(tmp_path / "nobody")})
    gone.notify("STOPPING=1")                          # systemd gone: logged, not raised


async def test_under_systemd_ready_watchdog_and_stopping_are_notified(tmp_path, port, spawn_server):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(30)
        proc = await spawn_server(tmp_path / "n.db", port,
                                  env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"})
        messages = [sock.recv(1000).decode()]
        assert messages[0].startswith("READY=1\nSTATUS=serving on port")
        pings = 0
        while pings < 3:
            message = sock.recv(1000).decode()
            assert message == "WATCHDOG=1"
            pings += 1
        proc.send_signal(signal.SIGTERM)
        while not message.startswith("STOPPING=1"):
            message = sock.recv(1000).decode()
        assert proc.wait(timeout=30) == 0


async def test_json_logs_are_one_object_per_line(tmp_path, port, spawn_server):
    proc = await spawn_server(tmp_path / "j.db", port, "--log-format", "json", "--log-level", "INFO",
                              stderr=subprocess.PIPE, text=True)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    entries = [json.loads(line) for line in err.splitlines()]
    assert all(set(e) == {"time", "level", "logger", "message"} for e in entries)
    messages = [e["message"] for e in entries]
    assert any(m.startswith("polygo listening on 127.0.0.1:") for m in messages)
    assert "SIGTERM: graceful stop within 10 s" in messages and messages[-1] == "stopped"
    assert not any(e["logger"].startswith("websockets") for e in entries)   # probes are not logged at INFO
