"""The Pipecat test bot (examples/pipecat_bot.py, in a subprocess) answers a Twilio Media Streams call: it greets, hears
the caller through Silero VAD and Whisper tiny.en, asks the fake model server, calls the tool stub
the `start` message names, and speaks through eSpeak NG; and each variant does what its flag says.

Every wait is counted in the call's own 20 ms frames (tests/voice/bots/twilio_caller.py), never in
wall-clock seconds.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.speech import make_synthesizer
from polygon_core.voice import VoiceProfile
from tests.fakes.llm_modes import refused_url
from tests.fakes.llm_server import FakeLLMServer
from tests.voice.bots.conftest import Bot
from tests.voice.bots.tool_stub import LOOKUP_ORDER, RESULT, ToolStub
from tests.voice.bots.twilio_caller import PhoneLine, dial, speech_frames

pytestmark = pytest.mark.bot

SAID = "I want to cancel my order."  # what tiny.en hears word for word through a phone line
GREETING = "Northwind customer service, how can I help you today?"
QUIET = 25        # frames without bot audio that end its turn (0.5 s)
# The greeting's end: a longer quiet, since on a loaded machine the bot's synthesis paused over half
# a second inside the greeting, the caller spoke into it, and the greeting left the bot's context.
GREETED = 75
PATIENCE = 3_000  # frames (60 s of the call) before a wait gives up: a hang guard, not a measure
SHORT_GREETING = ("--greeting", "Hello.")  # the variants' tests need no long greeting


@pytest.fixture(scope="module")
def words() -> list[bytes]:
    """The caller's sentence as phone frames, made before any call (synthesis would stall the line)."""
    audio = make_synthesizer("espeak", PolygonSettings(), "en").synthesize(SAID, VoiceProfile(), "en")
    return speech_frames(audio)


def unpunctuated(text: str) -> str:
    """A transcript without its closing punctuation: Whisper ends the same words with a full stop or
    not, depending on where the bot's VAD cut the segment."""
    return text.strip().rstrip(".!?")


def user_texts(llm: FakeLLMServer) -> list[list[str]]:
    """The user messages of each request the model server got, in order (as `unpunctuated`)."""
    return [[unpunctuated(str(m["content"])) for m in body["messages"] if m["role"] == "user"]
            for body in llm.behaviour.seen]


def heard(llm: FakeLLMServer) -> Callable[[], bool]:
    return lambda: any(unpunctuated(SAID) in texts for texts in user_texts(llm))


async def greeted(line: PhoneLine) -> None:
    assert await line.wait_quiet(GREETED, frames=PATIENCE), "the bot never finished its greeting"


async def test_the_bot_greets_hears_the_caller_calls_the_tool_stub_and_answers(
        start_bot: Callable[..., Bot], llm: FakeLLMServer, words: list[bytes]) -> None:
    bot = start_bot()
    with ToolStub() as stub:
        async with dial(bot.url, {"tools_url": stub.url, "conversation_id": "c-1"}) as line:
            await greeted(line)
            greeting = line.media()
            llm.behaviour.tool_call = True  # the model answers the caller's turn with a tool call
            end = line.say(words)
            assert await line.wait(lambda: bool(line.media(end)), frames=PATIENCE), bot.log_tail()
            assert await line.wait_quiet(QUIET, frames=PATIENCE)
    # The greeting is the fixed line (no model request); the caller's words reach the model as heard.
    assert greeting and all(len(r.audio) > 0 for r in greeting)
    assert [(m["role"], unpunctuated(str(m["content"]))) for m in llm.behaviour.seen[0]["messages"][1:]] == [
        ("assistant", unpunctuated(GREETING)), ("user", unpunctuated(SAID))]
    assert [t["function"]["name"] for t in llm.behaviour.seen[0]["tools"]] == ["lookup_order"]
    assert llm.behaviour.seen[0]["tools"][0]["function"]["parameters"] == LOOKUP_ORDER["function"]["parameters"]
    # The model's tool call went to the stub, and its result back to the model.
    assert stub.calls == [("lookup_order", {"account_id": "4417"})]
    assert len(llm.behaviour.seen) == 2
    tool_message = llm.behaviour.seen[1]["messages"][-1]
    assert (tool_message["role"], json.loads(tool_message["content"])) == ("tool", RESULT)
    # The answer after the tool result is spoken: non-empty media after the caller's turn, and only
    # the events Pipecat's Twilio serializer sends (media, and clear when a caller turn starts) and
    # the bot's `polygon` side message saying what it heard of the caller.
    assert all(len(r.audio) > 0 for r in line.media(end))
    assert {r.event for r in line.received} <= {"media", "clear", "polygon"}
    told = [r.message["polygon"] for r in line.events("polygon")]
    assert {(m["type"], m["role"]) for m in told} == {("transcript", "user")}
    assert unpunctuated(" ".join(m["text"] for m in told)) == unpunctuated(SAID)
    assert line.closed_code is None


async def test_the_slow_bot_waits_two_and_a_half_seconds_before_answering(
        start_bot: Callable[..., Bot], llm: FakeLLMServer, words: list[bytes]) -> None:
    bot = start_bot("--delay-ms", "2500", *SHORT_GREETING)
    async with dial(bot.url) as line:
        await greeted(line)
        end = line.say(words)
        assert await line.wait(lambda: bool(line.media(end)), frames=PATIENCE), bot.log_tail()
    assert user_texts(llm) == [[unpunctuated(SAID)]]
    # 125 frames of 20 ms: the bot's first answer audio came at least 2.5 s of call audio after the
    # caller stopped talking.
    assert line.media(end)[0].frame - end >= 125


async def _barge_in(bot: Bot, llm: FakeLLMServer, words: list[bytes]) -> tuple[PhoneLine, int, int]:
    """A call where the caller talks over a long answer: (the line, the frame the barge-in started,
    the frame it ended)."""
    llm.behaviour.runaway_tokens = 80  # a long answer (about half a minute of speech)
    async with dial(bot.url) as line:
        await greeted(line)
        end = line.say(words)
        assert await line.wait(lambda: bool(line.media(end)), frames=PATIENCE), bot.log_tail()
        assert await line.wait(lambda: line.sent >= line.media(end)[0].frame + 10, frames=PATIENCE)
        barge_start = line.sent
        barge_end = line.say(words)
        await line.wait(lambda: line.sent >= barge_end + QUIET, frames=PATIENCE)
    return line, barge_start, barge_end


async def test_the_bot_yields_when_the_caller_talks_over_it(
        start_bot: Callable[..., Bot], llm: FakeLLMServer, words: list[bytes]) -> None:
    line, barge_start, barge_end = await _barge_in(start_bot(*SHORT_GREETING), llm, words)
    clears = [i for i, r in enumerate(line.received) if r.event == "clear" and r.frame >= barge_start]
    assert len(clears) == 1
    # After the clear, nothing more of the interrupted answer: the next audio answers the barge-in,
    # after the caller's words.
    after = [r for r in line.received[clears[0]:] if r.event == "media"]
    assert after == [] or after[0].frame > barge_end


async def test_the_never_yielding_bot_keeps_talking_over_the_caller(
        start_bot: Callable[..., Bot], llm: FakeLLMServer, words: list[bytes]) -> None:
    line, barge_start, barge_end = await _barge_in(start_bot("--never-yield", *SHORT_GREETING), llm, words)
    assert line.events("clear") == []
    # Its audio kept coming all through the caller's words (VAD hears them within a few frames).
    assert [r for r in line.media(barge_start + QUIET) if r.frame <= barge_end]


async def test_the_dropping_bot_closes_the_socket_mid_call(start_bot: Callable[..., Bot]) -> None:
    bot = start_bot("--drop-after-s", "1")
    async with dial(bot.url) as line:
        assert await line.wait(lambda: line.closed_code is not None, frames=PATIENCE), bot.log_tail()
    assert line.closed_code == 1011


async def test_the_silent_bot_hears_the_caller_and_never_speaks(
        start_bot: Callable[..., Bot], llm: FakeLLMServer, words: list[bytes]) -> None:
    bot = start_bot("--silent")
    async with dial(bot.url) as line:
        end = line.say(words)
        assert await line.wait(heard(llm), frames=PATIENCE), bot.log_tail()
        await line.wait(lambda: line.sent >= end + 4 * QUIET, frames=PATIENCE)
    assert user_texts(llm) == [[unpunctuated(SAID)]]
    assert line.media() == []


async def test_the_bot_refuses_a_call_whose_start_or_tools_url_it_cannot_use(start_bot: Callable[..., Bot]) -> None:
    bot = start_bot()
    async with dial(bot.url, media_format={"encoding": "audio/l16", "sampleRate": 16000, "channels": 1}) as line:
        assert await line.wait(lambda: line.closed_code is not None, frames=PATIENCE), bot.log_tail()
    assert line.closed_code == 1008  # policy: not the protocol's codec
    async with dial(bot.url, {"tools_url": refused_url()}) as line:
        assert await line.wait(lambda: line.closed_code is not None, frames=PATIENCE), bot.log_tail()
    assert line.closed_code == 1011  # the tool stubs did not answer
    assert line.media() == []
