"""Boards as graphs: named points and the connections between them (Kee rule 1).

A board knows only its topology. Stones live in :class:`polygo.rules.position.Position`;
the rules and the history live in :class:`polygo.rules.game.Game`.
"""

from __future__ import annotations

import json
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import BoardError

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MAX_GRID = len(COLUMNS)
MAX_POINTS = 4096
MAX_COORD = 1_000_000
"""Coordinates for drawing lie within ±MAX_COORD: near the float's limit the span of the points
overflows, and a page draws the room with a NaN viewBox."""


def grid_name(x: int, y: int) -> str:
    """GTP name of column ``x`` and row ``y`` (both from 0; row 0 is the bottom)."""
    return f"{COLUMNS[x]}{y + 1}"


#: words a move string may start with, so never a point's name (``dispute`` and ``give`` are
#: Nieminen's dispute play-out)
MOVE_WORDS = frozenset({"pass", "appeal", "resign", "timeout", "dead", "alive", "done", "resume",
                        "dispute", "give", "rank", "accept", "reject"})

class Board:
    """An immutable graph of points with names, and optional coordinates for drawing.

    Internally points are indices ``0..n-1``; ``neighbour_indices`` is the adjacency the
    engine's hot loops use.
    """

    __slots__ = ("points", "kind", "width", "height", "coords", "exact_index", "neighbour_indices",
                 "spec", "__dict__", "__weakref__")

    def __init__(self, points: Iterable[str], edges: Iterable[tuple[str, str]], *,
                 coords: Mapping[str, tuple[float, float]] | None = None,
                 kind: str = "graph", width: int | None = None, height: int | None = None,
                 spec: str | None = None):
        names = tuple(points)
        if not names:
            raise BoardError("a board needs at least one point")
        if len(names) > MAX_POINTS:
            raise BoardError(f"a board has at most {MAX_POINTS} points, this one has {len(names)}")
        index: dict[str, int] = {}
        for i, name in enumerate(names):
            if not isinstance(name, str) or name.split() != [name]:      # empty, or holds a space
                raise BoardError(f"point name {name!r} must be a non-empty string without spaces")
            if name.lower() in MOVE_WORDS:
                raise BoardError(f"point name {name!r} is a reserved move word")
            if name in index:
                raise BoardError(f"duplicate point name {name!r}")
            index[name] = i
        adjacency: list[list[int]] = [[] for _ in names]
        for edge in edges:
            if not isinstance(edge, (list, tuple)) or len(edge) != 2:
                raise BoardError(f"edge {edge!r} must be a pair of point names")
            a, b = edge
            for end in (a, b):
                if end not in index:
                    raise BoardError(f"edge {[a, b]!r} names unknown point {end!r}")
            if a == b:
                raise BoardError(f"edge {[a, b]!r} is a self-loop")
            ia, ib = index[a], index[b]
            if ib not in adjacency[ia]:
                adjacency[ia].append(ib)
                adjacency[ib].append(ia)
        self.points = names
        self.kind = kind
        self.width = width
        self.height = height
        self.spec = spec
        self.exact_index = index   # read-only: point name -> index, exact names only (the engine's hot path)
        self.neighbour_indices = tuple(tuple(sorted(n)) for n in adjacency)
        self.coords = self._check_coords(coords) if coords else None

    def _check_coords(self, coords: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        checked = {}
        for name, xy in coords.items():
            if name not in self.exact_index:
                raise BoardError(f"coords name unknown point {name!r}")
            if (not isinstance(xy, (list, tuple)) or len(xy) != 2
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xy)):
                raise BoardError(f"coords of {name!r} must be [x, y] numbers, got {xy!r}")
            if not all(-MAX_COORD <= v <= MAX_COORD for v in xy):     # False for NaN too
                raise BoardError(f"coords of {name!r} must be finite numbers within ±{MAX_COORD:,}, got {list(xy)!r}")
            checked[name] = (xy[0], xy[1])
        return checked

    # --- constructors -------------------------------------------------------------------

    @classmethod
    def grid(cls, width: int, height: int | None = None) -> "Board":
        """A rectangular grid with GTP names (A1 bottom-left, no column I)."""
        height = width if height is None else height
        cls._check_grid_size(width, height)
        names = [grid_name(x, y) for y in range(height) for x in range(width)]
        edges = [(grid_name(x, y), grid_name(x + 1, y)) for y in range(height) for x in range(width - 1)]
        edges += [(grid_name(x, y), grid_name(x, y + 1)) for y in range(height - 1) for x in range(width)]
        coords = {grid_name(x, y): (x, y) for y in range(height) for x in range(width)}
        spec = f"{width}x{height}"
        return cls(names, edges, coords=coords, kind="grid", width=width, height=height, spec=spec)

    @classmethod
    def torus(cls, width: int, height: int | None = None) -> "Board":
        """A grid whose edges wrap around, so that every point has four neighbours."""
        height = width if height is None else height
        cls._check_grid_size(width, height)
        if width < 3 or height < 3:
            raise BoardError("a torus needs at least 3×3 points (smaller ones would have double edges)")
        names = [grid_name(x, y) for y in range(height) for x in range(width)]
        edges = [(grid_name(x, y), grid_name((x + 1) % width, y)) for y in range(height) for x in range(width)]
        edges += [(grid_name(x, y), grid_name(x, (y + 1) % height)) for y in range(height) for x in range(width)]
        coords = {grid_name(x, y): (x, y) for y in range(height) for x in range(width)}
        return cls(names, edges, coords=coords, kind="torus", width=width, height=height,
                   spec=f"torus:{width}x{height}")

    @classmethod
    def standard(cls, size: int) -> "Board":
        if size not in (9, 13, 19):
            raise BoardError(f"standard sizes are 9, 13 and 19, not {size}")
        return cls.grid(size, size)

    @staticmethod
    def _check_grid_size(width: int, height: int) -> None:
        for v in (width, height):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_GRID:
                raise BoardError(f"grid sides must be whole numbers from 1 to {MAX_GRID}, got {v!r}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> "Board":
        """A graph board from ``{"points": [...], "edges": [[a, b], ...], "coords": {...}}``."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise BoardError(f"board JSON does not parse: {exc}") from None
        if not isinstance(data, Mapping):
            raise BoardError("a board must be a JSON object with 'points' and 'edges'")
        unknown = set(data) - {"points", "edges", "coords", "name"}
        if unknown:
            raise BoardError(f"unknown board keys: {', '.join(sorted(unknown))}")
        points, edges = data.get("points"), data.get("edges", [])
        if not isinstance(points, list):
            raise BoardError("board 'points' must be a list of names")
        if not isinstance(edges, list):
            raise BoardError("board 'edges' must be a list of [a, b] pairs")
        coords = data.get("coords")
        if coords is not None and not isinstance(coords, Mapping):
            raise BoardError("board 'coords' must map point names to [x, y]")
        return cls(points, edges, coords=coords)

    @classmethod
    def shipped(cls) -> list[str]:
        """Names of the graph boards that come with the package."""
        return sorted(p.name[:-5] for p in resources.files("polygo.rules").joinpath("boards").iterdir()
                      if p.name.endswith(".json"))

    @classmethod
    def parse(cls, spec: str) -> "Board":
        """A board from a short text: ``19``, ``9x9``, ``torus:9x9``, a shipped name, or a JSON file."""
        if not isinstance(spec, str) or not spec.strip():
            raise BoardError("a board spec must be a non-empty string such as '19', '9x9' or 'torus:9x9'")
        text = spec.strip()
        kind, _, size = text.rpartition(":")
        if kind in ("", "grid", "torus") and _looks_like_size(size):
            w, h = _parse_size(size)
            return cls.torus(w, h) if kind == "torus" else cls.grid(w, h)
        if text in cls.shipped():
            board = cls.from_json(resources.files("polygo.rules").joinpath("boards", text + ".json").read_text())
            board.spec = text
            return board
        path = Path(text)
        if path.suffix == ".json":
            try:
                return cls.from_json(path.read_text(encoding="utf-8"))
            except OSError as exc:
                raise BoardError(f"cannot read board file {text!r}: {exc.strerror}") from None
        raise BoardError(f"unknown board {text!r}: use a size like 19 or 9x9, torus:9x9, "
                         f"one of {', '.join(cls.shipped())}, or a .json file")

    @classmethod
    def from_spec(cls, spec: "str | Mapping[str, Any]") -> "Board":
        """The inverse of :meth:`describe`: a spec string or an inline graph."""
        return cls.parse(spec) if isinstance(spec, str) else cls.from_json(spec)

    # --- queries ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.points)

    def __contains__(self, name: object) -> bool:
        return name in self.exact_index

    def index(self, name: str) -> int:
        try:
            return self.exact_index[name]
        except (KeyError, TypeError):
            raise BoardError(f"{name!r} is not a point of this board") from None

    def find(self, name: str) -> int | None:
        """Index of ``name``, or None; accepts lower-case grid names."""
        i = self.exact_index.get(name)
        if i is None and self.kind != "graph":
            i = self.exact_index.get(name.upper())
        return i

    def neighbours(self, name: str) -> tuple[str, ...]:
        return tuple(self.points[j] for j in self.neighbour_indices[self.index(name)])

    @cached_property
    def edges(self) -> tuple[tuple[str, str], ...]:
        return tuple((self.points[i], self.points[j])
                     for i, ns in enumerate(self.neighbour_indices) for j in ns if i < j)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"points": list(self.points), "edges": [list(e) for e in self.edges]}
        if self.coords:
            data["coords"] = {k: list(v) for k, v in self.coords.items()}
        return data

    @cached_property
    def as_json(self) -> dict[str, Any]:
        """:meth:`to_json` built once and shared by every caller, never to be changed: a server
        sends it in every snapshot (building it is costly on large boards) and keeps it in the
        settings of each room on a graph (a copy each would be a large share of a room)."""
        return self.to_json()

    def describe(self) -> "str | dict[str, Any]":
        """What a record stores: the spec string where there is one, else the whole graph
        (:attr:`as_json`, shared)."""
        return self.spec if self.spec else self.as_json

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.points == other.points
                and self.neighbour_indices == other.neighbour_indices)

    def __hash__(self) -> int:
        return hash((self.points, self.neighbour_indices))

    def __repr__(self) -> str:
        return f"Board({self.spec or f'graph of {len(self)} points'})"


def _looks_like_size(text: str) -> bool:
    return bool(text) and all(part.isdigit() for part in text.lower().split("x")) and text.lower().count("x") <= 1


def _parse_size(text: str) -> tuple[int, int]:
    parts = [int(p) for p in text.lower().split("x")]
    return (parts[0], parts[0]) if len(parts) == 1 else (parts[0], parts[1])
