"""A call's audio and timeline as the use cases read them (`usecases.call_audio`, `call_timeline`)."""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon.usecases import NotACallError, call_audio, call_audio_key, call_timeline, call_timeline_key
from polygon_core.adapters.artifacts import ArtifactNotFoundError, LocalArtifactStore

from ._call_helpers import DURATION_MS, RATE, store_call, timeline, voice_conversation, wav_bytes

RUN = "run-call"


@dataclass
class FakeStores:
    """The one part of `Stores` the call reads use."""

    artifacts: LocalArtifactStore


@pytest.fixture
def stores(tmp_path: Path) -> Any:
    return FakeStores(LocalArtifactStore(tmp_path / "artifacts"))


def test_call_keys_sit_beside_the_transcript() -> None:
    assert call_audio_key("r1", "c1") == "runs/r1/calls/c1.wav"
    assert call_timeline_key("r1", "c1") == "runs/r1/calls/c1.timeline.json"
    assert {"NotACallError", "call_audio", "call_timeline", "call_audio_key", "call_timeline_key"} \
        <= set(usecases.__all__)


def test_a_stored_call_reads_back_its_wav_and_timeline(stores: Any) -> None:
    conv = voice_conversation(run_id=RUN)
    store_call(stores, RUN, conv)
    audio = call_audio(stores, RUN, conv.id)
    assert audio == wav_bytes()
    with wave.open(io.BytesIO(audio)) as wav:
        assert (wav.getnchannels(), wav.getframerate(), wav.getnframes()) == (2, RATE, RATE * DURATION_MS // 1000)
    assert call_timeline(stores, RUN, conv.id) == timeline(conv.id)


def test_the_keys_the_conversation_names_are_the_ones_read(stores: Any) -> None:
    conv = voice_conversation(run_id=RUN)
    assert conv.voice is not None
    moved = conv.model_copy(update={"voice": conv.voice.model_copy(
        update={"audio_key": "elsewhere/a.wav", "timeline_key": "elsewhere/t.json"})})
    store_call(stores, RUN, moved)
    stores.artifacts.put_bytes("elsewhere/a.wav", b"RIFF-moved")
    stores.artifacts.put_text("elsewhere/t.json", timeline("moved").model_dump_json())
    assert call_audio(stores, RUN, conv.id) == b"RIFF-moved"
    assert call_timeline(stores, RUN, conv.id).conversation_id == "moved"


def test_a_text_conversation_is_not_a_call(stores: Any) -> None:
    conv = voice_conversation(run_id=RUN).model_copy(update={"channel": "text", "voice": None})
    stores.artifacts.put_text(usecases.transcript_key(RUN, conv.id), conv.model_dump_json())
    for read in (call_audio, call_timeline):
        with pytest.raises(NotACallError) as caught:
            read(stores, RUN, conv.id)
        assert str(caught.value) == ("conversation 'call-1' of run 'run-call' is a text conversation, "
                                     "not a call: it has no audio or timeline")
        assert isinstance(caught.value, FileNotFoundError)  # the CLI's bad-input errors include it


def test_missing_conversation_audio_and_timeline_are_named(stores: Any) -> None:
    with pytest.raises(ArtifactNotFoundError, match=r"^run 'run-call' has no stored conversation 'nope'$"):
        call_audio(stores, RUN, "nope")
    conv = voice_conversation(run_id=RUN)
    stores.artifacts.put_text(usecases.transcript_key(RUN, conv.id), conv.model_dump_json())
    with pytest.raises(ArtifactNotFoundError) as caught:
        call_audio(stores, RUN, conv.id)
    assert str(caught.value) == ("call 'call-1' of run 'run-call' has no audio in the artifact store "
                                 "(runs/run-call/calls/call-1.wav)")
    assert not isinstance(caught.value, NotACallError)
    with pytest.raises(ArtifactNotFoundError, match=r"^call 'call-1' of run 'run-call' has no timeline in the "
                       r"artifact store \(runs/run-call/calls/call-1\.timeline\.json\)$"):
        call_timeline(stores, RUN, conv.id)
