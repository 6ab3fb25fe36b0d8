"""Settings from the command line over the environment over defaults; the token bucket; passwords."""

from __future__ import annotations

import subprocess
import sys

import pytest

from polygo.server.config import Config, parse_config
from polygo.server.accounts.passwords import check_password, hash_password
from polygo.server.limits.ratelimit import TokenBucket


def test_defaults_environment_and_arguments():
    assert parse_config([], {}) == Config()
    env = {"POLYGO_HOST": "0.0.0.0", "POLYGO_PORT": "9000", "POLYGO_DB": "/tmp/x.db", "POLYGO_LOG_LEVEL": "debug"}
    config = parse_config([], env)
    assert (config.host, config.port, config.db, config.log_level) == ("0.0.0.0", 9000, "/tmp/x.db", "DEBUG")
    config = parse_config(["--port", "7000", "--db", "y.db"], env)
    assert (config.host, config.port, config.db) == ("0.0.0.0", 7000, "y.db")


def test_token_bucket_allows_bursts_then_the_rate():
    bucket = TokenBucket(rate=2, burst=3, now=0.0)
    assert [bucket.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.allow(0.5) and not bucket.allow(0.5)
    assert [bucket.allow(100.0) for _ in range(4)] == [True, True, True, False]


def test_password_hashes_are_salted_and_checked():
    first, second = hash_password("pw"), hash_password("pw")
    assert first != second and first.startswith("scrypt$")
    assert check_password("pw", first) and not check_password("wrong", first)
    assert not check_password("pw", "garbage") and not check_password("pw", "md5$1$2$3$00$00")


@pytest.mark.parametrize("argv, env", [
    (["--port", "99999"], {}), (["--port", "x"], {}), ([], {"POLYGO_PORT": "abc"}),
    ([], {"POLYGO_LOG_LEVEL": "loud"}),
])
def test_bad_settings_are_usage_errors(argv, env, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_config(argv, env)
    assert exc.value.code == 2 and "polygo-server: error:" in capsys.readouterr().err


def test_an_unopenable_database_is_a_clear_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "polygo.server", "--port", "0", "--db", str(tmp_path / "no" / "x.db")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "cannot start: database" in done.stderr and "Traceback" not in done.stderr


def test_the_help_names_each_limit_by_its_unit(capsys):
    """A rate is a number per second, not a delay: `--guest-rate SECONDS` read as "one guest every
    SECONDS" would set the limit upside down."""
    with pytest.raises(SystemExit):
        parse_config(["--help"], env={})
    text = capsys.readouterr().out
    for flag in ("--create-rate", "--read-rate", "--guest-rate", "--register-rate", "--chat-rate"):
        assert f"{flag} PER_SECOND" in text, flag
    assert "--login-window SECONDS" in text and "--max-rooms N" in text
