"""A call's engines are built once per process for one set of settings (a Whisper model is heavy),
and never shared between settings that differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import polygon_core.adapters.speech as speech
from polygon.usecases import _call_line
from polygon_core.adapters.settings import PolygonSettings
from polygon_core.models import CascadeSettings


def test_engines_are_kept_per_settings_content(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    built: list[tuple[str, Any]] = []

    def engine(kind: str) -> Any:
        def make(name: str, settings: PolygonSettings, *args: Any, **kwargs: Any) -> Any:
            built.append((kind, settings.speech_models_dir))
            return object()
        return make

    monkeypatch.setattr(speech, "make_synthesizer", engine("synth"))
    monkeypatch.setattr(speech, "make_recognizer", engine("ears"))
    monkeypatch.setattr(speech, "make_vad", lambda *a, **k: object())
    monkeypatch.setattr(_call_line, "_ENGINES", {})
    cascade = CascadeSettings()
    first = _call_line.call_parts(PolygonSettings(speech_models_dir=tmp_path / "a"), cascade, language="en",
                                  stt_model=None)
    same = _call_line.call_parts(PolygonSettings(speech_models_dir=tmp_path / "a"), cascade, language="en",
                                 stt_model=None)  # another object, the same content
    other = _call_line.call_parts(PolygonSettings(speech_models_dir=tmp_path / "b"), cascade, language="en",
                                  stt_model=None)
    assert same.agent_ears is first.agent_ears and same.caller_voice is first.caller_voice
    assert other.agent_ears is not first.agent_ears
    # The caller's and the agent's voices are both eSpeak here: one synthesiser per settings.
    assert built == [("synth", tmp_path / "a"), ("ears", tmp_path / "a"), ("synth", tmp_path / "b"),
                     ("ears", tmp_path / "b")]
