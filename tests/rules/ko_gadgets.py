"""Graph boards for Jasiek's ko rules: main strings with eyes, kos coupling two strings, spare
points for moves elsewhere (tests/rules/test_jasiek_nkr.py, test_jasiek_disturbing.py)."""

from __future__ import annotations

from polygo.rules import Board, Game

BLACK, WHITE = 0, 1


class Gadget:
    """A graph board built from main strings, eyes, kos and spare points."""

    def __init__(self) -> None:
        self.points: list[str] = []
        self.edges: list[tuple[str, str]] = []
        self.setup: dict[str, int] = {}

    def node(self, name: str, seat: int | None = None) -> str:
        if name not in self.points:
            self.points.append(name)
        if seat is not None:
            self.setup[name] = seat
        return name

    def edge(self, a: str, b: str) -> None:
        self.edges.append((self.node(a), self.node(b)))

    def string(self, name: str, seat: int, eyes: int = 0) -> None:
        self.node(name, seat)
        self.node(name + "'", seat)
        self.edge(name, name + "'")
        for i in range(1, eyes + 1):
            self.edge(name, f"e{name}{i}")

    def ko(self, k: int, b: str, w: str, held: int) -> None:
        x, y = f"x{k}", f"y{k}"
        self.edge(b, x)
        self.edge(x, y)
        self.edge(y, w)
        self.node(x if held == WHITE else y, held)

    def spares(self, n: int) -> None:
        for k in range(1, n + 1):
            self.edge(f"t{k}", f"l{k}")
            self.edge(f"s{k}", f"m{k}")

    def open_space(self) -> None:
        """A path f1-f2-f3 of empty points: a stone on f2 changes the stones outside every ko
        position and makes no ko mouth (f2 keeps two liberties), so it changes the class of R4
        and nothing else."""
        self.edge("f1", "f2")
        self.edge("f2", "f3")

    def game(self, **options) -> Game:
        return Game(Board(self.points, self.edges), rules="jasiek-nkr", setup=self.setup, **options)


def eternal() -> Gadget:
    """Eternal life (NKR-11, NKR-13): the cycle Q-P-R-T between strings W1 and B1."""
    gad = Gadget()
    gad.string("W1", WHITE)
    gad.string("B1", BLACK)
    for a, b in (("Q", "P"), ("P", "R"), ("R", "T"), ("Q", "W1"), ("P", "W1"), ("Lw", "W1"),
                 ("R", "B1"), ("T", "B1"), ("Lb", "B1")):
        gad.edge(a, b)
    gad.node("P", BLACK)
    gad.node("T", WHITE)
    gad.spares(2)
    return gad
