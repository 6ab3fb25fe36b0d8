"""A bot that answers challenges by its filters (polygo/client/finding.py) against a real server:
it accepts a challenge its filters allow and plays the game, and declines one they refuse."""

from __future__ import annotations

import asyncio

from polygo.protocol import ChallengeState, Matched

from polygo.client.bot_config import Accept
from polygo.client.bots import BuiltinBot
from polygo.client.finding import Finding, find_games
from polygo.client.sdk import BotRunner
from polygo.client.session import Client

GUARD = 60.0


async def notice(client: Client, kind: type) -> object:
    while True:
        found = await asyncio.wait_for(client.notices.get(), GUARD)
        if isinstance(found, kind):
            return found


async def test_a_bot_accepts_the_challenges_its_filters_allow_and_declines_the_others(server):
    async with Client(server.url, name="bot", user="challenged", password="pw-bot") as bot_client, \
            Client(server.url, name="ann", user="ann", password="pw-ann") as ann:
        runner = BotRunner(BuiltinBot(seed=3), bot_client)
        service = asyncio.create_task(find_games(runner, Finding(challenges=True),
                                                 accept=Accept(pools=("chinese-9x9",), rated="rated"), total=1))
        refused = await ann.challenge(["challenged"], pool="japanese-13x13")
        while True:
            state = await notice(ann, ChallengeState)
            if state.challenge["id"] == refused["id"] and state.challenge["status"] != "open":
                break
        assert state.challenge["status"] == "declined"
        accepted = await ann.challenge(["challenged"], pool="chinese-9x9")
        matched = await notice(ann, Matched)
        assert matched.challenge == accepted["id"] and matched.via == "challenge"
        await ann.sit(matched.room, matched.seat)
        if matched.seat == 1:
            view = ann.rooms[matched.room]
            for _ in range(200):
                if len(view.game.history) >= 1:
                    break
                await asyncio.sleep(0.05)
        await ann.move(matched.room, "E5" if matched.seat == 0 else "C3")
        await ann.move(matched.room, "resign")
        assert await asyncio.wait_for(service, GUARD) == 1
