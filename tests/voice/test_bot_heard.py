"""What a bot heard of the caller (issue 30, item 4): its own `user` transcript of a caller line when it
sends one (the `polygon` side message), else Polygon's transcription of the line as sent.

The scripted bot hears each caller line as speech then 600 ms of silence and, when told what it
heard (`BotOptions.heard`), sends that as its `user` transcript before it answers. The caller speaks
in tone words that Polygon's lookup ears hear exactly (`_fakes`), so Polygon's transcription is the
line itself and a bot transcript that differs from it shows which one was kept.
"""

from __future__ import annotations

import asyncio

from polygon_core.adapters.transports import make_transport
from polygon_core.adapters.voice_bot import BotCall
from polygon_core.conversation import run_conversation
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.models import Conversation, LineConditions
from polygon_core.voice import CallerHabits

from ._fakes import fake_parts
from ._scripted_bot import BotOptions, ScriptedBot
from .test_bot_turn_taking import LINE, LinesCaller

SUITE = load_suite(demo_dir() / "suite")
SCENARIO = "billing-dispute-v3"
CALM = CallerHabits(barge_in_p=0.0, backchannel_p=0.0, reaction_ms=(200, 200), hello_after_ms=8000,
                    hangup_after_ms=15000)
MISHEARD = "I was charged two eyes."  # the bot's own recogniser, wrong on the last word


def _call(options: BotOptions) -> tuple[Conversation, BotCall]:
    options.transcripts, options.use_tools, options.min_line_ms = True, False, 400
    scenario = SUITE.scenario(SCENARIO).model_copy(update={"max_turns": 6})
    with ScriptedBot(options) as bot:
        async def go() -> tuple[Conversation, BotCall]:
            call = BotCall(transport=make_transport("twilio"), url=bot.url, route=None, parts=fake_parts(),
                           conversation_id="bot-heard", scenario_id=SCENARIO, seed=0, caller_type="cooperative",
                           language="en", conditions=LineConditions(preset="clean"), habits=CALM)
            async with call:
                conv = await run_conversation(scenario, call, LinesCaller([LINE]), SUITE.tools, seed=0,
                                              agent_name="bot", agent_version="v", line=call)
            return conv, call

        return asyncio.run(go())


def test_what_the_bot_heard_is_its_own_user_transcript_when_it_sends_one() -> None:
    conv, call = _call(BotOptions(turns=1, lines=["Hi. How can I help?", "I see."], heard=[MISHEARD]))
    (caller,) = call.timeline().side("caller")
    assert (caller.text, caller.heard, caller.heard_from, caller.turn) == (LINE, MISHEARD, "agent", 1)
    assert [(t.speaker, t.text, t.heard) for t in conv.turns[:2]][1] == ("caller", LINE, MISHEARD)
    # The word error rate is the bot's: "twice" heard as "two eyes", 2 edits over 4 words said.
    assert (call.metrics()["word_error_rate"].value, call.metrics()["word_error_rate"].count) == (0.5, 4)


def test_without_the_bots_transcript_what_it_heard_is_polygons_transcription() -> None:
    conv, call = _call(BotOptions(turns=1, lines=["Hi. How can I help?", "I see."]))
    (caller,) = call.timeline().side("caller")
    assert (caller.text, caller.heard, caller.heard_from, caller.turn) == (LINE, LINE, "polygon", 1)
    assert conv.turns[1].heard == LINE
    assert (call.metrics()["word_error_rate"].value, call.metrics()["word_error_rate"].count) == (0.0, 4)


def test_a_transcript_that_comes_after_the_bot_has_answered_is_not_the_lines() -> None:
    conv, call = _call(BotOptions(turns=1, lines=["Hi. How can I help?", "I see."], heard=[MISHEARD],
                                  heard_late=True))
    (caller,) = call.timeline().side("caller")
    assert (caller.heard, caller.heard_from) == (LINE, "polygon")  # the window closed when the bot answered
    assert conv.turns[1].heard == LINE and conv.turns[2].text == "I see."
