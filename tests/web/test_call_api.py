"""A call's audio and timeline on the JSON API, and the conversation view's call fields."""

from __future__ import annotations

import io
import wave
from typing import Any

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon.web._api_calls import RangeNotSatisfiable, byte_range
from polygon_core.adapters.settings import load_settings

from ._call_helpers import DURATION_MS, METRICS, RATE, TURNS, seed_call_run, timeline, wav_bytes
from .conftest import LOOPBACK

RUN = "run-call"
BASE = f"/api/runs/{RUN}/conversations"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    home = tmp_path_factory.mktemp("calls") / ".polygon"
    assert seed_call_run(home, RUN) == ("call-1", "text-1")
    return TestClient(create_app(load_settings(home=home)), client=LOOPBACK)


def test_the_audio_is_the_stored_wav(client: TestClient) -> None:
    got = client.get(f"{BASE}/call-1/audio")
    assert got.status_code == 200
    assert got.headers["content-type"] == "audio/wav"
    assert got.headers["accept-ranges"] == "bytes"
    assert got.content == wav_bytes()
    with wave.open(io.BytesIO(got.content)) as wav:
        assert (wav.getnchannels(), wav.getframerate()) == (2, RATE)
        assert wav.getnframes() * 1000 // RATE == DURATION_MS


@pytest.mark.parametrize(("header", "first", "last"), [
    ("bytes=0-99", 0, 99), ("bytes=1000-", 1000, None), ("bytes=-44", None, None), ("bytes=50-10000000", 50, None),
])
def test_a_range_answers_that_part(client: TestClient, header: str, first: int | None, last: int | None) -> None:
    data = wav_bytes()
    size = len(data)
    start = size - 44 if first is None else first
    end = size - 1 if last is None else last
    got = client.get(f"{BASE}/call-1/audio", headers={"Range": header})
    assert got.status_code == 206
    assert got.headers["content-range"] == f"bytes {start}-{end}/{size}"
    assert got.content == data[start:end + 1]


def test_a_range_past_the_end_is_416_and_a_malformed_one_is_ignored(client: TestClient) -> None:
    size = len(wav_bytes())
    past = client.get(f"{BASE}/call-1/audio", headers={"Range": f"bytes={size}-"})
    assert past.status_code == 416
    assert past.headers["content-range"] == f"bytes */{size}"
    assert past.json() == {"detail": f"the audio is {size} bytes; the range asked for starts past its end"}
    for ignored in ("bytes=abc", "items=0-1", "bytes=0-1,5-9", "bytes=9-2"):
        got = client.get(f"{BASE}/call-1/audio", headers={"Range": ignored})
        assert (got.status_code, len(got.content)) == (200, size)


def test_byte_range_parses_one_range() -> None:
    assert byte_range(None, 10) is None
    assert byte_range("bytes=2-4", 10) == (2, 4)
    assert byte_range("bytes = 2-", 10) == (2, 9)
    assert byte_range("bytes=-3", 10) == (7, 9)
    assert byte_range("bytes=-30", 10) == (0, 9)
    assert byte_range("bytes=+1-2", 10) is None
    for bad in ("bytes=10-", "bytes=-0"):
        with pytest.raises(RangeNotSatisfiable):
            byte_range(bad, 10)


def test_the_timeline_is_the_stored_one(client: TestClient) -> None:
    got = client.get(f"{BASE}/call-1/timeline")
    assert got.status_code == 200
    assert got.json() == timeline("call-1").model_dump(mode="json")


def test_a_text_conversation_has_no_audio_or_timeline(client: TestClient) -> None:
    message = (f"conversation 'text-1' of run '{RUN}' is a text conversation, not a call: "
               "it has no audio or timeline")
    for what in ("audio", "timeline"):
        got = client.get(f"{BASE}/text-1/{what}")
        assert (got.status_code, got.json()) == (404, {"detail": message})
        missing = client.get(f"{BASE}/nope/{what}")
        assert (missing.status_code, missing.json()) == (404, {"detail": f"run {RUN} has no conversation 'nope'"})
        no_run = client.get(f"/api/runs/no-such-run/conversations/call-1/{what}")
        assert (no_run.status_code, no_run.json()) == (404, {"detail": "no run 'no-such-run' is stored"})


def test_the_conversation_view_carries_the_call(client: TestClient) -> None:
    view: dict[str, Any] = client.get(f"{BASE}/call-1").json()
    assert view["conversation"]["channel"] == "voice"
    voice = view["conversation"]["voice"]
    assert voice["metrics"] == {name: m.model_dump(mode="json") for name, m in METRICS.items()}
    assert (voice["duration_ms"], voice["audio_key"]) == (DURATION_MS, f"runs/{RUN}/calls/call-1.wav")
    assert [(t["start_ms"], t["end_ms"], t["interrupted"], t["kind"]) for t in view["turns"]] == [
        (start, end, cut, "speech") for _speaker, _text, _heard, start, end, cut in TURNS]
    text = client.get(f"{BASE}/text-1").json()
    assert (text["conversation"]["channel"], text["conversation"]["voice"]) == ("text", None)
    assert {t["start_ms"] for t in text["turns"]} == {None}


def test_the_routes_are_documented(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    audio = paths["/api/runs/{run_id}/conversations/{conversation_id}/audio"]["get"]["responses"]
    assert set(audio["200"]["content"]) == set(audio["206"]["content"]) == {"audio/wav"}
    assert {"404", "416"} <= set(audio)
    timeline_doc = paths["/api/runs/{run_id}/conversations/{conversation_id}/timeline"]["get"]["responses"]
    assert timeline_doc["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Timeline"}
