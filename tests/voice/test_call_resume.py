"""Resume and retry of calls: a stored call is not run again, a call whose transcript was written
but whose row was not is recovered from its artifacts, and a call lost before its transcript is run
again to the same bytes. Tone voices stand in for the engines (`_fakes.py`), on the clean line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon.usecases import _call_line
from polygon_core.conversation import conversation_key
from polygon_core.demo import demo_dir
from polygon_core.models import LineConditions, Run

from ._fakes import fake_parts

SUITE = str(demo_dir() / "suite")
AGENT = str(demo_dir() / "agents" / "agent_v1.yaml")
SCENARIO = "billing-dispute-v3"
CLEAN_CALL = usecases.LineRequest(channel="voice", conditions=LineConditions(preset="clean"))


@pytest.fixture
def engines(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every CallParts built for a call (its tone voice counts what was synthesised)."""
    built: list[Any] = []

    def parts(*_args: Any, **_kwargs: Any) -> Any:
        built.append(fake_parts())
        return built[-1]

    monkeypatch.setattr(_call_line, "call_parts", parts)
    return built


def _run(stores: usecases.Stores, run_id: str) -> Run:
    _c, _p, version = usecases.agent_identity(AGENT, SUITE)
    run = Run(id=run_id, suite="demo", agent_name="northwind-billing", agent_version=version, rubric_version="v1",
              seeds=[0])
    return usecases.create_run(stores, run, suite_path=SUITE, agent_path=AGENT, line=CLEAN_CALL)


def _synthesised(engines: list[Any]) -> int:
    return sum(len(parts.caller_voice.calls) for parts in engines)


def test_a_stored_call_is_not_run_again(polygon_home: Path, engines: list[Any]) -> None:
    stores = usecases.open_stores()
    _run(stores, "calls")
    cid = usecases.simulate(stores, "calls", SUITE, AGENT, SCENARIO, 0)
    wav = usecases.call_audio(stores, "calls", cid)
    said = _synthesised(engines)
    assert said > 0 and wav[:4] == b"RIFF"
    assert usecases.simulate(stores, "calls", SUITE, AGENT, SCENARIO, 0) == cid
    assert _synthesised(engines) == said  # nothing was said again
    assert usecases.call_audio(stores, "calls", cid) == wav


def test_a_call_whose_row_was_lost_is_recovered_from_its_artifacts(polygon_home: Path, engines: list[Any],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    stores = usecases.open_stores()
    _run(stores, "crash")
    save = stores.repo.save_conversation

    def crash(*_args: Any, **_kwargs: Any) -> None:
        raise ConnectionError("database went away")

    monkeypatch.setattr(stores.repo, "save_conversation", crash)
    with pytest.raises(ConnectionError):
        usecases.simulate(stores, "crash", SUITE, AGENT, SCENARIO, 0)
    monkeypatch.setattr(stores.repo, "save_conversation", save)
    said = _synthesised(engines)
    cid = usecases.simulate(stores, "crash", SUITE, AGENT, SCENARIO, 0)
    assert _synthesised(engines) == said  # recovered, not run again
    conv = usecases.load_conversation(stores, "crash", cid)
    assert conv.channel == "voice" and conv.voice is not None and conv.voice.metrics["response_rate"].count > 0
    assert stores.repo.has_conversation("crash", cid)
    assert usecases.call_timeline(stores, "crash", cid).duration_ms == conv.voice.duration_ms


def test_a_call_lost_before_its_transcript_is_run_again_to_the_same_bytes(
        polygon_home: Path, engines: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    stores = usecases.open_stores()
    _run(stores, "lost")
    put_text = stores.artifacts.put_text

    def no_transcript(key: str, text: str) -> str:
        if "/conversations/" in key:
            raise OSError("disk full")
        return put_text(key, text)

    monkeypatch.setattr(stores.artifacts, "put_text", no_transcript)
    with pytest.raises(OSError):
        usecases.simulate(stores, "lost", SUITE, AGENT, SCENARIO, 0)
    cid = conversation_key(stores.caches.suite(SUITE).scenario(SCENARIO), 0)
    first = stores.artifacts.get_bytes(usecases.call_audio_key("lost", cid))  # the WAV went in first
    monkeypatch.setattr(stores.artifacts, "put_text", put_text)
    assert usecases.simulate(stores, "lost", SUITE, AGENT, SCENARIO, 0) == cid
    assert usecases.call_audio(stores, "lost", cid) == first
