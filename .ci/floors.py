"""Print a pip constraints file that pins every direct dependency to its declared floor.

CI installs the project under these constraints (as PIP_CONSTRAINT, which pip applies to the
isolated build environment too) and runs the fast tier, so every lower bound in pyproject.toml
is a version the project is seen to run on (`.ci/run`).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*?)\s*(;.*)?$")
FLOOR = re.compile(r">=\s*([0-9][^,\s]*)")


def requirements(pyproject: Path) -> list[str]:
    """Every direct requirement: the build backend, the runtime dependencies and every extra's."""
    data = tomllib.loads(pyproject.read_text())
    project = data["project"]
    found = [*data.get("build-system", {}).get("requires", []), *project.get("dependencies", [])]
    for extra in project.get("optional-dependencies", {}).values():
        found.extend(extra)
    return found


def floor_pin(requirement: str) -> str:
    """`name==floor` (with its environment marker), or ValueError for a requirement without one."""
    match = REQUIREMENT.match(requirement)
    if match is None:
        raise ValueError(f"cannot read the requirement {requirement!r}")
    name, _extras, specifier, marker = match.groups()
    floor = FLOOR.search(specifier)
    if floor is None:
        raise ValueError(f"{requirement!r} declares no lower bound (>=)")
    return f"{name}=={floor.group(1)}" + (f" {marker}" if marker else "")


def constraints(pyproject: Path) -> list[str]:
    pins = {floor_pin(requirement) for requirement in requirements(pyproject)}
    return sorted(pins, key=str.lower)


def main() -> int:
    pyproject = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "pyproject.toml"
    try:
        print("\n".join(constraints(pyproject)))
    except ValueError as error:
        print(f"floors: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
