"""The house bot: seats the server itself plays, through a whole game and across a restart."""

from __future__ import annotations

import asyncio
import random
import re

from polygo.rules import Board, Game

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.app import Server
from polygo.server.house.life import Question, dead_stones
from polygo.server.house.marking import MAX_RESUMES, house_marking
from polygo.server.house.play import choose

WAIT = 20.0
QUICK = 0.01
"""The bots' pause between moves in the games played out here."""


async def _until(client, predicate) -> dict:
    """Events until one satisfies `predicate` (generous timeout: a shared machine is slow)."""
    while True:
        event = await asyncio.wait_for(client.events.get(), WAIT)
        if predicate(event):
            return event


class Table:
    """One player's side of a game against house bots: a mirror of the game from the room's move
    events, and the player's moves with their sequence numbers."""

    def __init__(self, client, room: str, game: Game, script: tuple[str, ...] = ()) -> None:
        self.client, self.room, self.game = client, room, game
        self.script, self.seq = list(script), 0

    async def send(self, move: str) -> None:
        self.seq += 1
        assert (await self.client.move(self.room, move, self.seq))["type"] == "ack", move

    async def next_move(self) -> dict:
        event = await _until(self.client, lambda e: e["kind"] == "move")
        self.game.play(event["move"], seat=event["seat"])
        return event

    async def play_until(self, done) -> None:
        """Play the script's points (then passes) on the player's turns until `done(game)`."""
        while not done(self.game):
            if self.game.phase == "play" and self.game.to_move == 0:
                while self.script and self.game.why_illegal(self.script[0]) is not None:
                    self.script.pop(0)
                await self.send(self.script.pop(0) if self.script else "pass")
            await self.next_move()


def _bot_chain(game: Game, seats: set[int]) -> str:
    """A point of the biggest chain of these seats that nobody has marked dead."""
    stones = game.stones()
    sizes = {}
    for point, seat in stones.items():
        if seat in seats and point not in game.dead:
            sizes[point] = len(house_marking_chain(game, point))
    return max(sizes, key=lambda p: (sizes[p], p))


def house_marking_chain(game: Game, point: str) -> set[str]:
    stones, chain, todo = game.stones(), {point}, [point]
    while todo:
        for n in game.board.neighbours(todo.pop()):
            if n not in chain and stones.get(n) == stones[point]:
                chain.add(n)
                todo.append(n)
    return chain


async def _bot_room(server, client, settings: dict) -> str:
    server.hub.house_bots.pause = QUICK
    room = (await client.ok("create", settings=settings))["room"]
    await client.ok("sit", room=room, seat=0)
    return room


async def test_the_house_bot_contests_its_living_chain_marked_dead_and_plays_it_out(server, players):
    (ann,) = await players(1)
    room = await _bot_room(server, ann, {"rules": "chinese", "board": "5x5", "bots": 1})
    table = Table(ann, room, Game(Board.grid(5), rules="chinese", komi=7.5),
                  ("B2", "C2", "D2", "B3", "D3", "B4", "C4", "D4"))
    await table.play_until(lambda g: g.phase == "scoring" and 1 in g.accepted)
    chain = _bot_chain(table.game, {1})
    await table.send(f"dead {chain}")
    await table.next_move()
    answer = await table.next_move()
    assert answer["seat"] == 1 and answer["move"].startswith("alive ")
    assert answer["move"].split()[1] in house_marking_chain(table.game, chain) and not table.game.dead
    await table.send(f"dead {chain}")
    await table.next_move()
    resumed = await table.next_move()
    assert (resumed["seat"], resumed["move"]) == (1, "resume") and table.game.phase == "play"
    await table.play_until(lambda g: g.phase == "scoring" and 1 in g.accepted)
    await table.send("done")
    end = await table.next_move()
    assert end["phase"] == "ended" and end["result"]["ranking"] == [2, 1]
    assert end["result"]["score"][1] == 25 + 7.5                # every point White's, nothing lost


async def test_after_two_play_outs_the_house_bot_accepts_under_protest_and_says_so(server, players):
    (ann,) = await players(1)
    room = await _bot_room(server, ann, {"rules": "chinese", "board": "5x5", "bots": 1})
    table = Table(ann, room, Game(Board.grid(5), rules="chinese", komi=7.5), ("C3",))
    for resumes in range(MAX_RESUMES + 1):
        await table.play_until(lambda g: g.phase == "scoring" and 1 in g.accepted)
        chain = _bot_chain(table.game, {1})
        await table.send(f"dead {chain}")
        await table.next_move()
        assert (await table.next_move())["move"].startswith("alive ")
        await table.send(f"dead {chain}")
        await table.next_move()
        if resumes < MAX_RESUMES:
            assert (await table.next_move())["move"] == "resume"
    said = await _until(ann, lambda e: e["kind"] == "chat")
    named = re.search(r"under protest: the chain at (\S+) is alive", said["text"])
    assert said["name"] == "bot1" and named and named.group(1) in house_marking_chain(table.game, chain)
    assert (await table.next_move())["move"] == "done"


async def test_house_bots_contest_a_false_mark_in_a_three_player_game(server, players):
    (ann,) = await players(1)
    room = await _bot_room(server, ann, {"rules": "kee", "board": "5x5", "players": 3, "bots": 2})
    table = Table(ann, room, Game(Board.grid(5), rules="kee", players=3), ("C3",))
    await table.play_until(lambda g: g.phase == "scoring" and {1, 2} <= set(g.accepted))
    chain = _bot_chain(table.game, {1, 2})
    owner = table.game.stone_at(chain)
    await table.send(f"dead {chain}")
    await table.next_move()
    answer = await table.next_move()
    assert answer["move"].startswith("alive ") and not set(table.game.dead) & house_marking_chain(table.game, chain)
    await table.send(f"dead {chain}")
    await table.next_move()
    resumed = await table.next_move()
    assert resumed["move"] == "resume" and table.game.phase == "play", (owner, resumed)


async def test_the_house_bot_wins_kee_example_i(server, players):
    """Black's appealing pass against White's capture is answered with an appealing pass (White
    wins by 2), not with a plain pass, which would rescind the capture (Black would win by 2)."""
    (ann,) = await players(1)
    room = await _bot_room(server, ann, {"rules": "kee", "board": "2x1", "bots": 1})
    table = Table(ann, room, Game(Board.grid(2, 1), rules="kee"))
    await table.send("A1")
    await table.next_move()
    assert (await table.next_move())["move"] == "B1"
    await table.send("appeal A1")
    await table.next_move()
    answer = await table.next_move()
    assert (answer["seat"], answer["move"], answer["phase"]) == (1, "appeal A1", "scoring")
    await table.play_until(lambda g: 1 in g.accepted)
    assert table.game.dead == []
    await table.send("done")
    end = await table.next_move()
    assert end["result"]["ranking"] == [2, 1] and end["result"]["score"] == [0.0, 2.0]
    record = (await ann.ok("game", room=room))["record"]
    assert record["seats"] == ["p0", "bot1"]
    sgf = (await ann.ok("game", room=room, format="sgf"))["record"]
    assert "PB[p0]" in sgf and "PW[bot1]" in sgf
    listed = (await ann.ok("games"))["games"]
    assert [g["seats"] for g in listed if g["room"] == room] == [["p0", "bot1"]]


async def test_a_room_with_bots_starts_when_the_player_sits_and_the_bot_answers(server, players):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "kee", "board": "5x5", "players": 3, "bots": 2}))["room"]
    snapshot = await ann.ok("sit", room=room, seat=0)
    assert [s["name"] for s in snapshot["seats"]] == ["p0", "bot1", "bot2"]
    assert snapshot["status"] == "playing"
    assert (await ann.move(room, "C3", 1))["type"] == "ack"
    white = await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
    red = await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 2)
    assert red["to_move"] == 0 and white["version"] < red["version"]


async def test_bots_leave_a_seat_for_a_player(server, players):
    (ann,) = await players(1)
    reply = await ann.request("create", settings={"rules": "chinese", "board": "5x5", "players": 2, "bots": 2})
    assert reply["type"] == "error" and reply["code"] == "bad-settings"
    assert "leave none for a player" in reply["message"]


async def test_a_player_takes_back_a_move_the_bot_has_answered(server, players):
    """Issue 11 item 8: the bot's answer came at once, so the player's move was never the last one."""
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "5x5", "bots": 1}))["room"]
    await ann.ok("sit", room=room, seat=0)
    await ann.move(room, "C3", 1)
    await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
    await ann.ok("undo", room=room)
    reply = await _until(ann, lambda e: e["kind"] == "undo-reply")
    assert reply["seat"] == 1 and reply["accept"] is True          # the bot's policy: yes
    first = await _until(ann, lambda e: e["kind"] == "undo")
    second = await _until(ann, lambda e: e["kind"] == "undo")
    assert (first["seat"], first["index"], second["seat"], second["index"]) == (1, 1, 0, 0)
    snapshot = await ann.ok("watch", room=room)
    assert snapshot["game"]["history"] == [] and snapshot["game"]["to_move"] == 0
    assert (await ann.move(room, "B2", 2))["type"] == "ack"


async def test_a_move_a_player_answered_is_not_taken_back_by_the_one_before(server, players):
    ann, bob = await players(2)
    room = (await ann.ok("create", settings={"rules": "kee", "board": "5x5", "players": 3, "bots": 1}))["room"]
    await ann.ok("sit", room=room, seat=0)
    await bob.ok("sit", room=room, seat=1)
    await ann.move(room, "C3", 1)
    await bob.move(room, "B2", 1)
    await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 2)
    refused = await ann.request("undo", room=room)
    assert refused["type"] == "error" and refused["code"] == "no-undo"   # bob, a person, answered C3


async def test_a_bot_game_survives_a_server_restart(config, players, connect_client):
    first = await Server(config).start()
    try:
        (ann,) = await players(1, port=first.port)
        room = (await ann.ok("create", settings={"rules": "tromp-taylor", "board": "5x5", "bots": 1}))["room"]
        await ann.ok("sit", room=room, seat=0)
        await ann.move(room, "C3", 1)
        await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
        await ann.move(room, "B2", 2)   # acknowledged, so committed; the bot has not answered yet
    finally:
        await first.close()
    second = await Server(config).start()
    try:
        again = await connect_client(port=second.port)
        await again.ok("hello", protocol=PROTOCOL_VERSION, token=ann.token)
        snapshot = await again.ok("watch", room=room)
        assert snapshot["seats"][1]["name"] == "bot1"
        stones = snapshot["game"]["stones"]
        if snapshot["game"]["to_move"] == 1:     # the bot's answer to B2 came after the restart
            event = await _until(again, lambda e: e["kind"] == "move" and e["seat"] == 1)
            stones.update(event["changes"]["set"])
        free = next(p for p in ("D4", "D2", "B4", "E5", "A5") if p not in stones)
        assert (await again.move(room, free, 3))["type"] == "ack"
        await _until(again, lambda e: e["kind"] == "move" and e["seat"] == 1)
    finally:
        await second.close()


def test_the_house_bot_captures_and_never_fills_its_own_eye():
    eye = Game(Board.grid(3, 3), rules="chinese")
    for move in ["A2", "pass", "B2", "pass", "B3", "pass", "B1", "pass", "C1", "pass", "C2", "pass", "C3", "pass"]:
        eye.play(move)
    # Black owns the board with eyes at A1 and A3: filling either is useless, so the bot passes.
    assert choose(eye, 0, random.Random(1)) == "pass"
    atari = Game(Board.grid(5, 5), rules="chinese")
    for move in ["C3", "C2", "pass", "B3", "pass", "D3", "pass"]:
        atari.play(move)
    # White's C4 captures the black stone at C3 (its last liberty).
    assert choose(atari, 1, random.Random(1)) == "C4"


def _walls() -> Game:
    """5x5: Black's wall on C, White's on D; a black stone at E3 in White's area, a white one at A3
    in Black's; both pass."""
    game = Game(Board.grid(5), rules="chinese")
    for row in range(1, 6):
        game.play(f"C{row}")
        game.play(f"D{row}")
    for move in ("E3", "A3", "pass", "pass"):
        game.play(move)
    return game


def test_the_house_bot_marks_the_dead_stones_it_sees_its_own_among_them():
    game = _walls()
    dead = dead_stones(Question.of(game), random.Random(1))
    assert dead == {"A3", "E3"}
    marks = []
    while (marking := house_marking(game, 1, dead)).move != "done":
        marks.append(marking.move)
        game.play(marking.move, seat=1)
    assert sorted(marks) == ["dead A3", "dead E3"]
    game.play("done", seat=0)
    game.play("done", seat=1)
    assert game.score() == [15.0, 10.0 + 7.5]


def test_a_mark_its_owner_concedes_stands_and_a_dispute_ends_under_protest():
    game = _walls()
    game.play("dead C1", seat=0)                      # Black gives up his living wall: his call
    assert house_marking(game, 1, {"A3", "E3"}).move == "dead A3"
    game = _walls()
    for _ in range(MAX_RESUMES):
        game.play("dead D1", seat=0)
        assert house_marking(game, 1, set()).move == "alive D1"
        game.play("alive D1", seat=1)
        game.play("dead D1", seat=0)
        assert house_marking(game, 1, set()).move == "resume"
        game.play("resume", seat=1)
        game.play("pass", seat=0)
        game.play("pass", seat=1)
    game.play("dead D1", seat=0)
    game.play("alive D1", seat=1)
    game.play("dead D1", seat=0)
    marking = house_marking(game, 1, set())
    assert marking.move == "done" and "under protest" in marking.protest and "D1" in marking.protest
