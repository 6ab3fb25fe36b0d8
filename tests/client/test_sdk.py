"""The bot SDK against a real server subprocess: full games under every ruleset, reconnects."""

import asyncio
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from polygo.rules import PRESETS
from polygo.protocol import RoomSettings

from polygo.client.bots import BuiltinBot
from polygo.client.example_bot import RandomBot
from polygo.client.sdk import Bot, BotRunner, Turn, run_bot
from polygo.client.session import Client, TokenStore

EXAMPLE = Path(__file__).resolve().parents[2] / "polygo" / "client" / "example_bot.py"
GUARD = 120.0  # seconds before a stuck game fails the test; never a measure of speed


def players_for(rules: str) -> int:
    return 2 if PRESETS[rules].max_players == 2 else 3


async def create_room(url: str, **settings) -> str:
    async with Client(url, name="host") as host:
        return (await host.create(RoomSettings(**settings))).room


async def play_bots(url: str, room: str, bots: list[Bot]) -> list[dict]:
    async def one(seat: int, bot: Bot) -> dict:
        return await run_bot(bot, url, room=room, seat=seat, name=f"{bot.name}-{seat}")  # not "bot1": reserved
    return await asyncio.wait_for(asyncio.gather(*(one(s, b) for s, b in enumerate(bots))), GUARD)


def check_result(results: list[dict], players: int) -> None:
    assert results[0] is not None
    assert all(r == results[0] for r in results)
    assert len(results[0]["ranking"]) == players
    assert min(results[0]["ranking"]) == 1


def test_example_bot_is_under_30_lines_and_in_the_docs():
    source = EXAMPLE.read_text()
    assert len(source.splitlines()) < 30
    docs = (EXAMPLE.parents[2] / "docs" / "bots.md").read_text()
    assert source.split('"""', 2)[2].strip() in docs


class PatientRandomBot(RandomBot):
    """The example bot, resigning past 300 moves: random play can cycle for ever under simple ko."""

    def choose_move(self, turn: Turn) -> str:
        return "resign" if len(turn.game.history) > 300 else super().choose_move(turn)


@pytest.mark.parametrize("rules", sorted(PRESETS))
async def test_example_bot_plays_full_games(server, rules):
    players = players_for(rules)
    room = await create_room(server.url, rules=rules, board="5x5", players=players)
    check_result(await play_bots(server.url, room, [PatientRandomBot() for _ in range(players)]), players)


@pytest.mark.parametrize("rules", sorted(PRESETS))
async def test_builtin_bot_plays_full_games(server, rules):
    players = players_for(rules)
    room = await create_room(server.url, rules=rules, board="7x7", players=players)
    bots = [BuiltinBot(seed=s) for s in range(players)]
    check_result(await play_bots(server.url, room, bots), players)


@pytest.mark.parametrize("board,players", [("hex5", 4), ("torus:6x6", 2), ("petersen", 3)])
async def test_builtin_bot_on_graph_boards(server, board, players):
    room = await create_room(server.url, rules="kee", board=board, players=players)
    bots = [BuiltinBot(seed=s) for s in range(players)]
    check_result(await play_bots(server.url, room, bots), players)


async def test_example_bot_runs_as_a_script(server):
    room = await create_room(server.url, rules="tromp-taylor", board="5x5", players=2)
    script = await asyncio.create_subprocess_exec(
        sys.executable, str(EXAMPLE), server.url, room, stdout=subprocess.PIPE)
    other = asyncio.create_task(run_bot(BuiltinBot(seed=1), server.url, room=room, name="builtin"))
    out, _ = await asyncio.wait_for(script.communicate(), GUARD)
    assert script.returncode == 0
    assert "'reason': 'passes'" in out.decode()
    assert (await other)["reason"] == "passes"


class DroppingBot(BuiltinBot):
    """Closes its own connection under itself every few turns, like a flaky network."""

    def __init__(self, client_box: list, seed: int) -> None:
        super().__init__(seed=seed)
        self.client_box = client_box
        self.turns = 0

    async def choose_move(self, turn: Turn) -> str:
        self.turns += 1
        if self.turns % 4 == 0:
            await self.client_box[0]._links[self.client_box[0].home].conn.ws.close()
        return super().choose_move(turn)


async def test_a_bot_survives_dropped_connections(server):
    room = await create_room(server.url, rules="kee", board="5x5", players=2)
    box: list = []

    async def dropping() -> dict:
        async with Client(server.url, name="flaky") as client:
            box.append(client)
            runner = BotRunner(DroppingBot(box, seed=3), client)
            await runner.join(room, 0)
            return (await runner.run())[room]

    results = await asyncio.wait_for(asyncio.gather(
        dropping(), run_bot(BuiltinBot(seed=4), server.url, room=room, seat=1)), GUARD)
    check_result(list(results), 2)


async def test_bots_ride_out_a_server_restart(server, caplog):
    caplog.set_level(logging.INFO, logger="polygo.session")
    room = await create_room(server.url, rules="chinese", board="7x7", players=2)
    port = server.port
    moved = asyncio.Event()

    class Watching(BuiltinBot):
        def choose_move(self, turn: Turn) -> str:
            if len(turn.game.history) >= 10:
                moved.set()
            return super().choose_move(turn)

    games = asyncio.gather(*(run_bot(Watching(seed=s), server.url, room=room, seat=s, name=f"b{s}")
                             for s in range(2)))
    await asyncio.wait_for(moved.wait(), GUARD)
    server.process.kill()
    server.process.wait()
    server.start(port=port)
    check_result(list(await asyncio.wait_for(games, GUARD)), 2)
    said = [r.getMessage() for r in caplog.records if r.name == "polygo.session" and r.levelname == "INFO"]
    assert any(line.startswith("lost the server") and room in line for line in said)
    assert any(line.startswith("reconnected to") and room in line for line in said)


async def test_the_token_brings_the_seat_back(server, tmp_path):
    tokens = TokenStore(tmp_path / "sessions.json")
    room = await create_room(server.url, rules="kee", board="5x5", players=2)
    async with Client(server.url, name="ann", tokens=tokens) as first:
        await first.sit(room, 1)
        token = first.token
    assert tokens.get(f"{server.url}#ann") == token
    async with Client(server.url, name="ann", tokens=tokens) as again:
        assert again.token == token
        assert again.seats_in(room) == [1]


class ScriptBot(Bot):
    """Plays the moves it is given, in order, then passes; remembers what the server refused."""

    def __init__(self, moves: list[str]) -> None:
        self.moves = list(moves)
        self.refused: list[tuple[str, str]] = []

    def choose_move(self, turn: Turn) -> str:
        return self.moves.pop(0) if self.moves else "pass"

    async def move_refused(self, turn: Turn, move: str, error) -> None:
        self.refused.append((move, error.reason))


async def test_appeal_and_rescission_over_the_wire(server):
    """The three-player Kee exchange of docs/protocol.md, played by SDK bots."""
    room = await create_room(server.url, rules="kee", board="2x1", players=3)
    ann = ScriptBot(["A1", "B1", "appeal A1"])
    bob = ScriptBot(["B1", "A1", "pass"])
    cy = ScriptBot(["A1", "B1", "pass", "B1"])
    results = await play_bots(server.url, room, [ann, bob, cy])
    assert results[0]["ranking"] == [2, 1, 2]
    assert cy.refused == [("B1", "rescinded")]
    async with Client(server.url, name="reader") as reader:
        view = await reader.watch(room)
    assert [p.rescinded for p in view.game.history][5:9] == [True] * 4


class GatedBot(BuiltinBot):
    """Thinks until the test opens the gate, so that an undo request arrives while it thinks."""

    def __init__(self, gate: asyncio.Event) -> None:
        super().__init__(seed=5)
        self.gate = gate

    async def choose_move(self, turn: Turn) -> str:
        await self.gate.wait()
        return super().choose_move(turn)


async def test_a_thinking_bot_grants_an_undo_and_drops_its_stale_move(server):
    room = await create_room(server.url, rules="kee", board="5x5", players=2)
    gate = asyncio.Event()
    bot = asyncio.create_task(run_bot(GatedBot(gate), server.url, room=room, seat=1))
    async with Client(server.url, name="ann") as ann:
        view = await ann.sit(room, 0)
        while view.status != "playing":
            await ann.changes.get()
        await ann.move(room, "C3")
        await ann.undo(room)
        while view.game.history or view.undo is not None:
            await ann.changes.get()
        gate.set()
        assert view.game.to_move == 0
        await ann.move(room, "D4")
        while len(view.game.history) < 2:
            await ann.changes.get()
        assert [p.move for p in view.game.history][0] == "D4"
        await ann.move(room, "resign")
    assert (await asyncio.wait_for(bot, GUARD))["reason"] == "resignation"


async def test_a_bot_about_to_overrun_its_clock_passes():
    class Slow(Bot):
        async def choose_move(self, turn: Turn) -> str:
            await asyncio.Event().wait()
            return "C3"

    from polygo.rules import Board, Game

    runner = BotRunner(Slow(), client=None)  # type: ignore[arg-type]
    turn = Turn("R", 0, Game(Board.grid(5, 5)), None, time_left=0.5, settings={})
    assert await runner._think(turn) == "pass"


class Scripted(Bot):
    """Plays `moves` in turn (then passes), each after `think` seconds of thought."""

    def __init__(self, moves: list[str], think: float = 0.0) -> None:
        self.moves = list(moves)
        self.think = think
        self.name = "scripted"

    async def choose_move(self, turn: Turn) -> str:
        await asyncio.sleep(self.think)
        return self.moves.pop(0) if self.moves else "pass"


class Passer(Bot):
    name = "passer"

    def choose_move(self, turn: Turn) -> str:
        return "pass"


@pytest.mark.parametrize("clock", ["byoyomi:2+3x10", "canadian:2+30/3"])
async def test_a_bot_in_overtime_budgets_from_the_whole_clock(server, clock):
    """Main time nearly gone, overtime untouched: the 1.5 s thinker must still play its moves
    (it used to be passed for, main time being counted as all it had)."""
    room = await create_room(server.url, rules="tromp-taylor", board="9x9", players=2, clock=clock)
    results = await play_bots(server.url, room, [Scripted(["C3", "G7", "C7"], think=1.5), Passer()])
    async with Client(server.url, name="reader") as reader:
        record = await reader.game_record(room, "json")
    moves = [move for seat, move, *_ in record["history"] if seat == 0]
    assert results[0]["reason"] == "passes"
    assert moves == ["C3", "G7", "C7", "pass"]


class Listener(Bot):
    """Records the hooks' calls and sends an analysis with each of its moves."""

    name = "listener"

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []
        self.seen: list[tuple[int, str]] = []

    async def on_chat(self, room, name, text):
        self.heard.append((name, text))

    async def opponent_moved(self, room, seat, move, view):
        assert view.game.history[-1].move == move or move in [p.move for p in view.game.history]
        self.seen.append((seat, move))

    async def choose_move(self, turn: Turn) -> str:
        await self.send_analysis(turn.room, score=-1.5, winrate=0.25, pv=["pass", "C3"])
        return "pass"


async def test_hooks_see_the_opponents_moves_and_chat_and_analysis_reaches_the_room(server):
    room = await create_room(server.url, rules="tromp-taylor", board="5x5", players=2)
    listener = Listener()
    task = asyncio.create_task(run_bot(listener, server.url, room=room, seat=1, name="listener"))
    async with Client(server.url, name="ann") as ann:
        view = await ann.sit(room, 0)
        while view.status != "playing":
            await ann.changes.get()
        await ann.chat(room, "good luck")
        await ann.move(room, "C3")
        while 1 not in view.analysis:
            await asyncio.wait_for(ann.changes.get(), GUARD)
        assert view.analysis[1]["pv"] == ["pass", "C3"] and view.analysis[1]["winrate"] == 0.25
        while view.game.to_move != 0:
            await asyncio.wait_for(ann.changes.get(), GUARD)
        await ann.move(room, "pass")
    assert (await asyncio.wait_for(task, GUARD))["reason"] == "passes"
    assert listener.seen == [(0, "C3"), (0, "pass")]
    assert listener.heard == [("ann", "good luck")]


class LateMarker(Bot):
    """Calls the stone at C3 dead; its `dead C3` reaches the server only after the test's `resume`."""

    name = "late"

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.on_the_way = asyncio.Event()
        self.release = asyncio.Event()

    async def game_started(self, room: str, view) -> None:
        send = self.client.move

        async def late(room: str, move: str, **kw):
            self.sent.append(move)
            if move.startswith("dead"):
                self.on_the_way.set()
                await self.release.wait()
            return await send(room, move, **kw)

        self.client.move = late

    def choose_move(self, turn: Turn) -> str:
        return "pass"

    def dead_stones(self, turn: Turn) -> list[str]:
        return ["C3"]


async def test_a_mark_overtaken_by_a_resume_is_not_a_warning_and_gets_no_fallback(server, caplog):
    caplog.set_level(logging.INFO, logger="polygo.bot")
    room = await create_room(server.url, rules="chinese", board="5x5", players=2)
    bot = LateMarker()
    task = asyncio.create_task(run_bot(bot, server.url, room=room, seat=1, name="late-1"))
    async with Client(server.url, name="ann") as ann:
        view = await ann.sit(room, 0)
        while view.status != "playing":
            await ann.changes.get()
        await ann.move(room, "C3")
        while view.game.to_move != 0:
            await ann.changes.get()
        await ann.move(room, "pass")
        await asyncio.wait_for(bot.on_the_way.wait(), GUARD)
        await ann.move(room, "resume")
        bot.release.set()
        while len(bot.sent) < 3:        # the mark, then the bot's pass in the resumed play
            await asyncio.wait_for(ann.changes.get(), GUARD)
        await ann.move(room, "resign")
    await asyncio.wait_for(task, GUARD)
    assert bot.sent[:2] == ["pass", "dead C3"] and "done" not in bot.sent and bot.sent[2] == "pass"
    assert not [r for r in caplog.records if r.name == "polygo.bot" and r.levelname == "WARNING"]
    assert any("came too late" in r.getMessage() for r in caplog.records)
