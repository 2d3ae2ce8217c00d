"""The example bot's own parsing (examples/pipecat_bot.py, imported from its file): the tool-stub
URL's document and the `start` message. No call is made."""

from __future__ import annotations

import importlib.util
import json
import sys
from functools import cache
from types import ModuleType
from typing import Any

import pytest

from tests.voice.bots.conftest import BOT
from tests.voice.bots.tool_stub import LOOKUP_ORDER


@cache
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pipecat_bot", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PARAMETERS: dict[str, Any] = LOOKUP_ORDER["function"]["parameters"]


def test_tools_come_from_a_list_of_function_definitions_bare_or_wrapped() -> None:
    bare = {"name": "lookup_order", "description": "Find the order.", "parameters": PARAMETERS}
    assert example().tools_from_document([LOOKUP_ORDER, bare]) == [
        {"name": "lookup_order", "description": "Find the caller's order by account number.", "parameters": PARAMETERS},
        bare]


def test_tools_come_from_an_openapi_document_one_post_per_tool() -> None:
    document = {"openapi": "3.1.0", "paths": {
        "/tools/lookup_order": {"post": {"summary": "Find the order.", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/lookup_order"}}}}}},
        "/health": {"get": {}}},
        "components": {"schemas": {"lookup_order": PARAMETERS}}}
    assert example().tools_from_document(document) == [
        {"name": "lookup_order", "description": "Find the order.", "parameters": PARAMETERS}]


@pytest.mark.parametrize(("document", "message"), [
    ({"tools": []}, "tools document: expected a JSON list of function definitions or an OpenAPI document"),
    ([{"description": "no name"}], "tools document: a function definition without a name: "
                                   "{'description': 'no name'}"),
])
def test_a_tools_document_of_another_shape_is_refused_in_one_line(document: Any, message: str) -> None:
    with pytest.raises(ValueError) as error:
        example().tools_from_document(document)
    assert str(error.value) == message


def test_a_start_message_without_a_stream_sid_or_with_another_codec_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^start message: expected start\.streamSid \(a string\)$"):
        example().parse_start({"event": "start", "start": {}})
    with pytest.raises(ValueError, match=r"^start\.mediaFormat: expected audio/x-mulaw at 8000 Hz"):
        example().parse_start({"event": "start", "start": {
            "streamSid": "MZ1", "mediaFormat": {"encoding": "audio/l16", "sampleRate": 16000}}})
    call = example().parse_start({"event": "start", "start": {
        "streamSid": "MZ1", "callSid": "CA1", "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000},
        "customParameters": {"tools_url": "http://127.0.0.1:1/tools"}}})
    assert (call.stream_sid, call.call_sid, call.custom_parameters) == ("MZ1", "CA1", {"tools_url": "http://127.0.0.1:1/tools"})



def test_what_the_bot_heard_goes_out_as_polygons_user_transcript_message() -> None:
    from polygon_core.voice import BotTranscript
    from polygon_core.voice._twilio import parse_bot_message

    message = example().user_transcript("MZ1", "I want to cancel my order.")
    assert parse_bot_message(json.dumps(message), stream_sid="MZ1") == BotTranscript("user", "I want to cancel my order.")
