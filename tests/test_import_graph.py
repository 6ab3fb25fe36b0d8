"""No import circles inside a package, and no import against the layers of DESIGN.md: a reader
can read each package's modules bottom up, and the engine and the wire stay free of the server.

Every import in a module counts, those under ``if TYPE_CHECKING:`` and inside functions too
(a circle hidden from the interpreter is still one for the reader). An import of ``a.b.c``
is an edge to the module ``a.b.c`` only, not to the packages around it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules(package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that the module ``name`` (at ``path``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def circles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    known = modules(package)
    graph = {name: imports(name, path, known) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


PACKAGES = ["polygo/rules", "polygo/protocol", "polygo/server", "polygo/client"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_has_an_import_circle(package):
    assert circles(package) == []


#: what each package may not import (DESIGN.md): the engine is pure, the wire knows no server,
#: and the server and the client never import each other
FORBIDDEN = {
    "polygo.rules": ("polygo.protocol", "polygo.server", "polygo.client", "asyncio", "websockets", "aiosqlite",
                     "sqlite3", "msgpack"),
    "polygo.protocol": ("polygo.server", "polygo.client", "websockets", "aiosqlite", "sqlite3"),
    "polygo.server": ("polygo.client",),
    "polygo.client": ("polygo.server", "aiosqlite", "sqlite3"),
}


def absolute_imports(path: Path) -> set[str]:
    """Every module a file imports by its absolute name, and its relative imports made absolute."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts if path.name == "__init__.py" else parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def violations(package: str) -> list[str]:
    banned = FORBIDDEN[package]
    return sorted(f"{path.relative_to(ROOT)} imports {name}"
                  for path in (ROOT / package.replace(".", "/")).rglob("*.py")
                  for name in absolute_imports(path)
                  if any(name == b or name.startswith(b + ".") for b in banned))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_each_package_imports_only_what_its_layer_allows(package):
    assert violations(package) == []


def test_the_layer_check_finds_an_import_that_goes_the_wrong_way(tmp_path, monkeypatch):
    (tmp_path / "polygo" / "protocol").mkdir(parents=True)
    (tmp_path / "polygo" / "protocol" / "a.py").write_text("from ..server.hub import Hub\nimport asyncio\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert violations("polygo.protocol") == ["polygo/protocol/a.py imports polygo.server.hub.Hub"]


def test_the_check_finds_a_circle(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from .b import x\n")
    (tmp_path / "pkg" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    (tmp_path / "pkg" / "c.py").write_text("import pkg.a\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert circles("pkg") == [["pkg.a", "pkg.b"]]


#: the server's rooms and its assembly, and which of them each may import (docs/architecture.md):
#: a room listed here imports no other of the server's, so the arrows are the whole map
SERVER_ROOMS = {
    "limits": set(),
    "ops": {"limits"},
    "store": {"ops"},
    "accounts": {"limits", "store"},
    "net": {"accounts", "limits", "ops"},
    "rooms": {"accounts", "limits", "net", "ops", "store"},
    "house": {"accounts", "rooms", "store"},
    "finding": {"accounts", "limits", "net", "rooms", "store"},
    "cluster": {"finding", "net", "rooms", "store"},
    "config": {"finding", "limits", "ops", "store"},
    "hub": {"accounts", "cluster", "config", "finding", "house", "limits", "net", "ops", "rooms", "store"},
    "connection": {"accounts", "hub", "limits", "net", "ops", "rooms", "store"},
    "http": {"accounts", "hub", "limits", "ops", "rooms"},
    "admin": {"accounts", "connection", "hub", "ops", "store"},
    "app": {"accounts", "admin", "config", "connection", "http", "hub", "net", "ops", "rooms", "store"},
    "__main__": {"admin", "app", "config", "finding", "ops", "store"},
}

#: only these know websockets: the rest of the server sees a connection as `net.peer.Peer`
KNOWS_WEBSOCKETS = {"net", "http", "connection", "app"}


def server_room(module: str) -> str | None:
    """The room (or assembly module) of `polygo.server`'s module `module`; None for the package
    itself (its `VERSION`) and for names outside the server."""
    parts = module.split(".")
    if parts[:2] != ["polygo", "server"] or len(parts) < 3:
        return None
    return parts[2] if parts[2] in SERVER_ROOMS else None


def room_violations() -> list[str]:
    found = []
    for path in sorted((ROOT / "polygo" / "server").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        here = server_room(".".join(parts))
        if here is None:
            continue
        for name in sorted(absolute_imports(path)):
            there = server_room(name)
            if there is not None and there != here and there not in SERVER_ROOMS[here]:
                found.append(f"{path.relative_to(ROOT)} ({here}) imports {name} ({there})")
            if name.split(".")[0] == "websockets" and here not in KNOWS_WEBSOCKETS:
                found.append(f"{path.relative_to(ROOT)} ({here}) imports {name}")
    return found


def test_every_server_module_is_in_a_room_of_the_map():
    rooms = {path.relative_to(ROOT / "polygo" / "server").with_suffix("").parts[0]
             for path in (ROOT / "polygo" / "server").glob("*") if path.suffix == ".py" or (path / "__init__.py").exists()}
    assert rooms - {"__init__"} == set(SERVER_ROOMS)


def test_each_server_room_imports_only_the_rooms_the_map_allows():
    assert room_violations() == []


def test_the_map_of_rooms_has_no_circle():
    order: list[str] = []
    while len(order) < len(SERVER_ROOMS):
        ready = sorted(r for r, below in SERVER_ROOMS.items() if r not in order and below <= set(order))
        assert ready, f"a circle among {sorted(set(SERVER_ROOMS) - set(order))}"
        order += ready


def test_the_room_check_finds_an_arrow_the_map_does_not_allow(tmp_path, monkeypatch):
    rooms = tmp_path / "polygo" / "server" / "rooms"
    rooms.mkdir(parents=True)
    (rooms / "room.py").write_text("from ..hub import Hub\nfrom websockets.frames import CloseCode\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert room_violations() == ["polygo/server/rooms/room.py (rooms) imports polygo.server.hub.Hub (hub)",
                                 "polygo/server/rooms/room.py (rooms) imports websockets.frames.CloseCode"]

