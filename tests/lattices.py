"""Large graph boards for the tests of the server and the page: triangular lattices without
coordinates (the page lays them out; the server carries them in one `create`)."""

from __future__ import annotations


def triangular_lattice(side: int) -> dict:
    """A side × side triangular lattice (each point joined to six neighbours inside), no coordinates."""
    name = lambda x, y: f"p{x}_{y}"   # noqa: E731
    points = [name(x, y) for y in range(side) for x in range(side)]
    edges = [[name(x, y), name(x + 1, y)] for y in range(side) for x in range(side - 1)]
    edges += [[name(x, y), name(x, y + 1)] for y in range(side - 1) for x in range(side)]
    edges += [[name(x, y), name(x + 1, y + 1)] for y in range(side - 1) for x in range(side - 1)]
    return {"points": points, "edges": edges}
