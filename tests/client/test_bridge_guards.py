"""The bridge's guards: marks checked against the engine, rooms the engine cannot play refused before
sitting, an engine that cannot start refused at start, a mid-game substitution told to the room."""

import asyncio
import subprocess
import sys

import pytest

from polygo.protocol import RoomSettings

from polygo.client.errors import ServerRefused
from polygo.client.gtp_bridge import GtpBot
from polygo.client.sdk import Bot, Turn, run_bot
from polygo.client.session import Client

GUARD = 120.0  # seconds before a stuck game fails the test; never a measure of speed
POLYGO = [sys.executable, "-m", "polygo.client"]


async def create_room(url: str, **settings) -> str:
    async with Client(url, name="host") as host:
        return (await host.create(RoomSettings(**settings))).room


def polygo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*POLYGO, *args], capture_output=True, text=True, timeout=120)


class Abuser(Bot):
    """Passes, then marks the other seat's living C3 dead twice, each time after that seat accepted the
    marks (so the test does not depend on which of two simultaneous moves the server takes first),
    then accepts whatever is marked."""

    name = "abuser"

    def __init__(self, eager: bool = False) -> None:
        self.marks = 2
        self.eager = eager
        """Mark at once, racing the other seat's `done` (which the server then refuses as stale)."""

    def choose_move(self, turn: Turn) -> str:
        return "pass"

    async def mark_dead(self, turn: Turn) -> str | None:
        if "C3" not in turn.game.dead and self.marks:
            if 0 not in turn.game.accepted and not self.eager:
                return None
            self.marks -= 1
            return "dead C3"
        return "done"


@pytest.mark.parametrize("eager", [False, True])
async def test_a_living_chain_marked_dead_is_contested_and_played_out(server, fake_engine, eager):
    """GNU Go's living chain marked dead used to be accepted by the bridge. Now the bridge unmarks it
    (alive C3) and, when it is marked again, resumes play; the play-out ends with C3 alive. An eager
    abuser marks while the bridge's `done` is on its way: the server refuses that `done` as stale."""
    room = await create_room(server.url, rules="chinese", board="9x9", players=2)
    engine = " ".join(fake_engine("--moves", "C3,pass"))
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(engine), server.url, room=room, seat=0, name="engine"),
        run_bot(Abuser(eager), server.url, room=room, seat=1, name="abuser")), GUARD)
    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
    moves = [(seat, move) for seat, move, *_ in record["history"]]
    assert results[0]["ranking"] == [1, 2] and results[0]["score"] == [81, 7.5], moves
    assert (0, "alive C3") in moves and (0, "resume") in moves
    assert moves.index((0, "alive C3")) < moves.index((0, "resume"))


async def test_the_sdk_default_contests_marks_on_its_own_stones(server):
    class Stubborn(Bot):
        name = "stubborn"

        def __init__(self, moves):
            self.moves = list(moves)

        def choose_move(self, turn):
            return self.moves.pop(0) if self.moves else "pass"

    room = await create_room(server.url, rules="chinese", board="9x9", players=2)
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(Stubborn(["C3"]), server.url, room=room, seat=0, name="stubborn"),
        run_bot(Abuser(), server.url, room=room, seat=1, name="abuser")), GUARD)
    assert results[0]["ranking"] == [1, 2]


async def test_a_room_the_engine_cannot_play_is_refused_before_sitting(server, fake_engine):
    """A 21x21 room and an engine that refuses `boardsize 21`: the bridge used to sit there and let the
    built-in bot play under the engine's name."""
    room = await create_room(server.url, rules="chinese", board="21x21", players=2)
    engine = " ".join(fake_engine("--max-size", "19"))
    bot = GtpBot(engine)
    assert await bot.check_room({"rules": "chinese", "board": "21x21", "players": 2}) == \
        "the engine refuses a 21x21 board: unacceptable size"
    assert await bot.check_room({"rules": "chinese", "board": "19x19", "players": 2}) is None
    refused = await asyncio.to_thread(polygo, "bot", "--gtp", engine, "--room", room, "--server", server.url)
    assert refused.returncode == 2, refused.stderr
    assert "refuses a 21x21 board" in refused.stderr and "[bad-usage]" in refused.stderr
    async with Client(server.url, name="reader") as reader:
        view = await reader.watch(room)
    assert [seat.get("name") for seat in view.seats] == [None, None]


def test_an_engine_that_cannot_start_is_an_error_at_start(tmp_path):
    """No server needed: the engine is started before anything connects (it used to be replaced by the
    built-in bot, silently, under the engine's name)."""
    done = polygo("bot", "--gtp", f"{tmp_path}/gnugo --mode gtp", "--server", "ws://127.0.0.1:9/")
    assert done.returncode == 1
    assert "cannot start the engine" in done.stderr and "[engine-died]" in done.stderr
    assert "no-server" not in done.stderr


def test_an_engine_that_dies_at_once_is_an_error_at_start(fake_engine):
    engine = " ".join(fake_engine("--die-on", "name"))
    done = polygo("bot", "--gtp", engine, "--server", "ws://127.0.0.1:9/")
    assert done.returncode == 1
    assert "exited with status 3" in done.stderr and "dying as asked" in done.stderr
    assert "[engine-died]" in done.stderr


async def test_a_mid_game_substitution_is_told_in_the_chat_and_the_seats_name(server, fake_engine):
    room = await create_room(server.url, rules="tromp-taylor", board="5x5", players=2)
    engine = " ".join(fake_engine("--moves", "C3", "--die-on", "genmove"))

    class Passer(Bot):
        name = "passer"

        def choose_move(self, turn):
            return "pass"

    async with Client(server.url, name="watcher") as watcher:
        view = await watcher.watch(room)
        results = await asyncio.wait_for(asyncio.gather(
            run_bot(GtpBot(engine), server.url, room=room, seat=0, name="engine"),
            run_bot(Passer(), server.url, room=room, seat=1, name="passer")), GUARD)
        while view.status != "ended":
            await asyncio.wait_for(watcher.changes.get(), GUARD)
    assert results[0]["reason"] == "passes"
    said = [text for name, text in view.chat if name == "engine"]
    assert len(said) == 1 and "stopped" in said[0] and "built-in bot plays the rest" in said[0]
    program = sys.executable.rsplit("/", 1)[-1][:32]   # the fake engine runs on this interpreter
    assert view.seats[0]["name"] == f"{program} (built-in bot)"


class BigChainAbuser(Abuser):
    """Marks the largest chain of seat 0 dead, twice (after seat 0 accepted), then accepts anything."""

    async def mark_dead(self, turn: Turn) -> str | None:
        from polygo.client.marking import chains_of

        black = [p for p, s in turn.game.stones().items() if s == 0]
        chains = sorted(chains_of(turn.game, black), key=len)
        if not chains or chains[-1] & set(turn.game.dead) or not self.marks:
            return "done"
        if 0 not in turn.game.accepted:
            return None
        self.marks -= 1
        self.target = len(chains[-1])
        return f"dead {min(chains[-1])}"


@pytest.mark.gnugo
async def test_gnugo_contests_its_living_chain_marked_dead_and_plays_it_out(server, gnugo):
    room = await create_room(server.url, rules="chinese", board="7x7", players=2)
    abuser = BigChainAbuser()
    results = await asyncio.wait_for(asyncio.gather(
        run_bot(GtpBot(f"{gnugo} --mode gtp --level 0"), server.url, room=room, seat=0, name="gnugo"),
        run_bot(abuser, server.url, room=room, seat=1, name="abuser")), GUARD)
    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
    moves = [(seat, move) for seat, move, *_ in record["history"]]
    assert abuser.target >= 1 and sum(1 for s, m in moves if s == 1 and m.startswith("dead")) == 2
    assert [m for s, m in moves if s == 0 and m.split()[0] in ("alive", "resume")][-1] == "resume"
    assert results[0]["ranking"] == [1, 2]  # GNU Go's stones counted alive: the board is all its own


async def test_a_done_sent_before_a_new_mark_does_not_accept_it(server):
    """The race that let a bot be robbed: its `done`, decided before the opponent's new mark, reached
    the server after it and counted as accepting it. A `done` names the version it was decided at."""
    async with Client(server.url, name="ann") as ann, Client(server.url, name="bob") as bob:
        room = (await ann.create(RoomSettings(rules="chinese", board="9x9"))).room
        view = await ann.sit(room, 0)
        await bob.sit(room, 1)
        await ann.move(room, "C3")
        await bob.move(room, "pass")
        decided_at = (await ann.move(room, "pass")).version  # ann looks at the marks: none; all well
        await bob.move(room, "dead C3")  # ... and meanwhile bob marks her stone dead
        with pytest.raises(ServerRefused) as info:
            await ann.move(room, "done", after=decided_at)
        assert info.value.code == "stale-marks"
        while view.game.dead != ["C3"]:
            await asyncio.wait_for(ann.changes.get(), GUARD)
        alive = await ann.move(room, "alive C3")
        ack = await bob.move(room, "done", after=alive.version)  # one who has seen the marks may accept
        assert ack.version == alive.version + 1
