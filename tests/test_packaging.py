"""`pip wheel .` builds a complete wheel and leaves the checkout as it found it (no build/, no
*.egg-info): built here from a copy of the tracked files, with pip's build isolation."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def tracked_copy(to: Path) -> set[str]:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    names = {name for name in files.decode().split("\0") if name and (ROOT / name).is_file()}
    for name in names:
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, to / name)
    return names


@pytest.mark.slow
def test_a_wheel_build_is_complete_and_leaves_the_checkout_clean(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout")
    tree, out = tmp_path / "tree", tmp_path / "out"
    tracked = tracked_copy(tree)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), "."],
                   cwd=tree, check=True, timeout=300)
    left = {str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file()} - tracked
    assert left == set(), f"the build left files in the checkout: {sorted(left)[:10]}"
    [wheel] = out.glob("polygo-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"polygo/server/web/index.html", "polygo/rules/boards/hex5.json", "polygo/server/__main__.py",
            "polygo/client/__main__.py", "polygo/protocol/messages.py"} <= names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert not any(name.startswith(("tests/", "bench/", "docs/")) for name in names)
