"""The GTP engine client against a scripted fake engine and against the real GNU Go."""

import asyncio
import sys

import pytest

from polygo.client.errors import (
    EngineCommandFailed,
    EngineProtocolError,
    EngineTerminated,
    EngineTimeout,
)
from polygo.client.gtp import GtpEngine, LateReply, parse_response_line


def test_parse_response_line():
    assert parse_response_line("= D4") == (True, None, "D4")
    assert parse_response_line("=12 pass") == (True, 12, "pass")
    assert parse_response_line("?7 illegal move") == (False, 7, "illegal move")
    assert parse_response_line("=") == (True, None, "")
    with pytest.raises(EngineProtocolError, match="hello"):
        parse_response_line("hello")


async def test_commands_in_order(fake_engine, tmp_path):
    log = tmp_path / "log"
    async with await GtpEngine.popen(fake_engine("--moves", "d4,pass,resign", "--log", str(log))) as engine:
        await engine.boardsize(9)
        await engine.komi(6.5)
        await engine.clear_board()
        await engine.play("b", "C3")
        assert await engine.genmove("w") == "D4"
        assert await engine.genmove("b") == "pass"
        assert await engine.genmove("w") == "resign"
        await engine.undo()
        assert await engine.final_score() == "B+3.5"
        assert await engine.command("list_commands") == "play\ngenmove\nquit"
    assert log.read_text().splitlines() == [
        "boardsize 9", "komi 6.5", "clear_board", "play b C3", "genmove w", "genmove b", "genmove w",
        "undo", "final_score", "list_commands", "quit",
    ]
    assert engine.process.returncode == 0


async def test_time_commands(fake_engine, tmp_path):
    log = tmp_path / "log"
    argv = fake_engine("--commands", "kgs-time_settings", "--unknown", "time_left", "--log", str(log))
    async with await GtpEngine.popen(argv) as engine:
        assert await engine.list_commands() == ["play", "genmove", "quit", "kgs-time_settings"]
        await engine.time_settings(600, 300, 25)
        await engine.kgs_time_settings("byoyomi", 600, 30, 5)
        with pytest.raises(EngineCommandFailed) as info:
            await engine.time_left("b", 590, 0)
        assert info.value.reply == "unknown command"
        assert engine.alive
    assert log.read_text().splitlines() == [
        "list_commands", "time_settings 600 300 25", "kgs-time_settings byoyomi 600 30 5", "time_left b 590 0",
        "quit",
    ]


async def test_responses_without_ids(fake_engine):
    async with await GtpEngine.popen(fake_engine("--no-ids", "--moves", "E5")) as engine:
        assert await engine.genmove("b") == "E5"


async def test_refusal_is_an_error_and_the_engine_lives_on(fake_engine):
    async with await GtpEngine.popen(fake_engine("--refuse", "play", "--moves", "A1")) as engine:
        with pytest.raises(EngineCommandFailed) as info:
            await engine.play("b", "D4")
        assert info.value.code == "engine-refused"
        assert info.value.reply == "illegal move"
        assert "play b D4" in str(info.value)
        assert await engine.genmove("b") == "A1"


async def test_engine_death_fails_the_pending_command_and_later_ones(fake_engine):
    engine = await GtpEngine.popen(fake_engine("--die-on", "genmove"))
    await engine.boardsize(9)
    with pytest.raises(EngineTerminated) as info:
        await engine.genmove("b")
    assert "status 3" in str(info.value)
    assert "dying as asked" in str(info.value)
    assert not engine.alive
    with pytest.raises(EngineTerminated):
        await engine.clear_board()
    await engine.quit()


async def test_timeout_stops_the_engine(fake_engine):
    engine = await GtpEngine.popen(fake_engine("--hang-on", "genmove"))
    with pytest.raises(EngineTimeout, match="genmove b"):
        await engine.genmove("b", timeout=0.5)
    assert engine.process.returncode is not None
    with pytest.raises(EngineTimeout):
        await engine.clear_board()
    await engine.quit()


async def test_garbage_output_is_a_protocol_error(fake_engine):
    engine = await GtpEngine.popen(fake_engine("--garble"))
    with pytest.raises(EngineProtocolError, match="hello there"):
        await engine.boardsize(9)
    await engine.quit()


async def test_missing_program_is_a_clear_error(tmp_path):
    with pytest.raises(EngineTerminated, match="cannot start"):
        await GtpEngine.popen(str(tmp_path / "no-such-engine"))


async def test_multiline_command_is_refused(fake_engine):
    async with await GtpEngine.popen(fake_engine()) as engine:
        with pytest.raises(EngineProtocolError):
            await engine.command("play b D4\ngenmove w")


@pytest.mark.gnugo
async def test_gnugo_plays(gnugo):
    async with await GtpEngine.popen([gnugo, "--mode", "gtp", "--level", "0", "--chinese-rules"]) as engine:
        assert await engine.protocol_version() == "2"
        assert await engine.engine_name() == "GNU Go"
        await engine.boardsize(9)
        await engine.komi(7)
        await engine.clear_board()
        await engine.play("b", "E5")
        reply = await engine.genmove("w")
        assert reply == "pass" or reply[0] in "ABCDEFGHJ"
        await engine.undo()
        with pytest.raises(EngineCommandFailed, match="illegal move"):
            await engine.play("w", "E5")
        with pytest.raises(EngineCommandFailed):
            await engine.play("w", "Z99")
        assert (await engine.final_score()).startswith(("B+", "W+", "0"))
        assert await engine.known_command("final_status_list")
        assert await engine.final_status_list("dead") == []


@pytest.mark.gnugo
async def test_gnugo_takes_the_standard_time_commands_only(gnugo):
    async with await GtpEngine.popen([gnugo, "--mode", "gtp", "--level", "0"]) as engine:
        assert "kgs-time_settings" not in await engine.list_commands()
        await engine.time_settings(60, 30, 1)
        await engine.time_left("b", 42, 0)
        await engine.time_left("w", 25, 1)
        with pytest.raises(EngineCommandFailed, match="unknown command"):
            await engine.kgs_time_settings("byoyomi", 60, 30, 5)
        await engine.boardsize(9)
        await engine.clear_board()
        reply = await engine.genmove("b")
        assert reply == "pass" or reply[0] in "ABCDEFGHJ"


@pytest.mark.parametrize("ids", [True, False])
async def test_a_cancelled_genmove_is_consumed_before_the_next_command(fake_engine, tmp_path, ids):
    """The caller gives up on a slow genmove: the next command must get its own reply, and the move the
    engine made meanwhile is reported by settle() (it used to be taken for the next command's reply,
    or to make the engine "answer command 1 while 2 was pending" and be killed)."""
    log = tmp_path / "log"
    flags = ["--moves", "E5,D4", "--slow", "1.5", "--slow-first", "1", "--log", str(log)]
    async with await GtpEngine.popen(fake_engine(*flags, *([] if ids else ["--no-ids"]))) as engine:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(engine.genmove("b"), 0.3)
        assert await engine.final_score() == "B+3.5"
        assert await engine.settle() == [LateReply("genmove b", True, "E5")]
        assert await engine.settle() == []
        assert await engine.genmove("w") == "D4"
        assert engine.alive
    assert log.read_text().splitlines() == ["genmove b", "final_score", "genmove w", "quit"]


async def test_settle_waits_for_the_late_reply(fake_engine):
    async with await GtpEngine.popen(fake_engine("--moves", "E5", "--slow", "1", "--slow-first", "1")) as engine:
        task = asyncio.create_task(engine.genmove("b"))
        await asyncio.sleep(0.2)
        task.cancel()
        assert await engine.settle() == [LateReply("genmove b", True, "E5")]


async def test_a_cancelled_command_that_never_answers_stops_the_engine(fake_engine):
    engine = await GtpEngine.popen(fake_engine("--hang-on", "genmove"), timeout=0.5)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(engine.genmove("b", timeout=60), 0.2)
    with pytest.raises(EngineTimeout, match="given up"):
        await engine.clear_board()
    assert engine.process.returncode is not None
    await engine.quit()


async def test_every_gtp_line_is_logged_at_debug(fake_engine, caplog):
    caplog.set_level("DEBUG", logger="polygo.gtp.engine")
    async with await GtpEngine.popen(fake_engine("--moves", "D4")) as engine:
        await engine.boardsize(9)
        assert await engine.genmove("b") == "D4"
    lines = [r.getMessage() for r in caplog.records if r.name == "polygo.gtp.engine"]
    program = sys.executable.rsplit("/", 1)[-1]   # the fake engine runs on this interpreter
    assert f"{program} <- 1 boardsize 9" in lines and f"{program} -> =1" in lines
    assert f"{program} <- 2 genmove b" in lines and f"{program} -> =2 D4" in lines
