"""The release's version is one number: pyproject.toml's, the installed distribution's, and the
newest entry of CHANGELOG.md."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_changelog_opens_with_the_version_being_released():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    newest = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert newest is not None and newest.group(1) == declared
    assert version("polygo") == declared, "reinstall: pip install -e ."
