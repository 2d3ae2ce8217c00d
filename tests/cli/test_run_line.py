"""A run's line: `--channel`, `--conditions NAME[@INTENSITY]` and `--stt-model`, their precedence per
scenario (command line > scenario > suite > default), what the manifest records, and where `show`
and `run` say it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.files import load_suite
from polygon_core.models import AgentConfig, CascadeSettings, LineConditions
from tests.cli._line_suite import AGENT, write_suite

runner = CliRunner()

PRESETS = "clean, phone, street, office, car"
FORM = "(NAME or NAME@INTENSITY with INTENSITY from 0 to 1, e.g. street@0.8)"


# --- --conditions NAME@INTENSITY ----------------------------------------------------------------

@pytest.mark.parametrize(("text", "preset", "intensity"), [
    ("street", "street", 0.5), ("street@0.8", "street", 0.8), ("car@0", "car", 0.0), ("office@1", "office", 1.0),
    ("phone@.25", "phone", 0.25), ("clean", "clean", 0.5),
])
def test_conditions_parse_as_a_preset_and_an_intensity(text: str, preset: str, intensity: float) -> None:
    assert usecases.parse_conditions(text) == LineConditions(preset=preset, intensity=intensity)


@pytest.mark.parametrize(("text", "message"), [
    ("stret", f"--conditions 'stret': unknown preset 'stret'; expected one of {PRESETS} {FORM}"),
    ("Street@0.5", f"--conditions 'Street@0.5': unknown preset 'Street'; expected one of {PRESETS} {FORM}"),
    ("street@loud", f"--conditions 'street@loud': intensity 'loud' is not a number from 0 to 1 {FORM}"),
    ("street@1.5", f"--conditions 'street@1.5': intensity '1.5' is not a number from 0 to 1 {FORM}"),
    ("street@-0.1", f"--conditions 'street@-0.1': intensity '-0.1' is not a number from 0 to 1 {FORM}"),
    ("street@", f"--conditions 'street@': intensity '' is not a number from 0 to 1 {FORM}"),
    ("street@nan", f"--conditions 'street@nan': intensity 'nan' is not a number from 0 to 1 {FORM}"),
])
def test_bad_conditions_name_the_value_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        usecases.parse_conditions(text)
    assert str(caught.value) == message


# --- precedence: command line > scenario > suite > default ----------------------------------------

def _plans(suite_dir: Path, request: usecases.LineRequest, agent: AgentConfig | None = None) -> dict[str, object]:
    suite = load_suite(suite_dir)
    manifest = {"agent_path": None, **request.manifest_fields()}
    found: dict[str, object] = {}
    for scenario in suite.scenarios:
        plan = usecases.call_plan(suite, scenario, manifest, agent=agent)
        found[scenario.id] = None if plan is None else (plan.conditions.preset, plan.conditions.intensity,
                                                         plan.noise_paths, plan.stt_model)
    return found


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """suite.yaml: office@0.2 for its calls; scenarios: none of their own, a call, a call with its
    own conditions (and a noise file), a text one."""
    return write_suite(tmp_path / "mixed", "conditions: {preset: office, intensity: 0.2}\n", {
        "plain": "",
        "call": "channel: voice\n",
        "street": "channel: voice\nconditions: {preset: street, intensity: 0.3, noise_files: [noise/rain.wav]}\n",
        "chat": "channel: text\n",
    })


def test_without_the_command_line_each_scenario_then_the_suite_decides(mixed: Path) -> None:
    rain = (mixed / "noise" / "rain.wav").resolve()
    assert _plans(mixed, usecases.LineRequest()) == {
        "plain": None,  # the suite's channel: text by default
        "call": ("office", 0.2, [], None),  # its own channel, the suite's conditions
        "street": ("street", 0.3, [rain], None),  # its own conditions, the noise file made absolute
        "chat": None,
    }


def test_the_command_line_channel_and_conditions_win_over_every_file(mixed: Path) -> None:
    rain = (mixed / "noise" / "rain.wav").resolve()
    assert _plans(mixed, usecases.LineRequest(channel="voice")) == {
        "plain": ("office", 0.2, [], None), "call": ("office", 0.2, [], None),
        "street": ("street", 0.3, [rain], None), "chat": ("office", 0.2, [], None)}
    car = usecases.LineRequest(channel="voice", conditions=usecases.parse_conditions("car@0.9"))
    # The command line's conditions replace a scenario's whole, noise files included.
    assert _plans(mixed, car) == dict.fromkeys(("plain", "call", "street", "chat"), ("car", 0.9, [], None))
    assert _plans(mixed, usecases.LineRequest(channel="text")) == dict.fromkeys(("plain", "call", "street", "chat"))


def test_a_call_with_no_conditions_anywhere_is_on_the_phone_preset(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s", "channel: voice\n", {"call": "", "chat": "channel: text\n"})
    assert _plans(suite, usecases.LineRequest()) == {"call": ("phone", 0.5, [], None), "chat": None}


def test_the_recogniser_model_is_the_command_lines_else_the_agent_configs(mixed: Path) -> None:
    agent = AgentConfig(name="a", voice=CascadeSettings(stt_model="base"))
    assert _plans(mixed, usecases.LineRequest(), agent)["call"] == ("office", 0.2, [], "base")
    asked = usecases.LineRequest(stt_model="/models/whisper-small")
    assert _plans(mixed, asked, agent)["call"] == ("office", 0.2, [], "/models/whisper-small")
    assert _plans(mixed, usecases.LineRequest(), AgentConfig(name="a"))["call"] == ("office", 0.2, [], None)
    # Without an agent given, the manifest's agent file is read (the demo agent has no `voice:`).
    suite = load_suite(mixed)
    manifest = {"agent_path": str(AGENT), **usecases.LineRequest().manifest_fields()}
    plan = usecases.call_plan(suite, suite.scenario("call"), manifest)
    assert plan == usecases.CallPlan(conditions=LineConditions(preset="office", intensity=0.2), noise_paths=[],
                                     stt_model=None)


# --- the manifest, show and the run's summary ----------------------------------------------------

def _created(mixed: Path, run_id: str, request: usecases.LineRequest | None,
             scenarios: list[str] | None = None) -> dict[str, object]:
    stores = usecases.open_stores()
    run = usecases.new_run(str(AGENT), str(mixed), seeds=[0], run_id=run_id, roles={}, caches=stores.caches)
    usecases.create_run(stores, run, suite_path=str(mixed), agent_path=str(AGENT), line=request, scenarios=scenarios)
    usecases.finish_run(stores, run_id)
    return usecases.run_manifest(stores, run_id)


def test_the_manifest_records_what_was_asked_and_the_line_resolved(polygon_home: Path, mixed: Path) -> None:
    asked = usecases.LineRequest(channel="voice", conditions=usecases.parse_conditions("street@0.8"),
                                 stt_model="/models/w")
    manifest = _created(mixed, "asked", asked)
    assert manifest["channel"] == "voice" and manifest["stt_model"] == "/models/w"
    assert manifest["conditions"] == {"preset": "street", "intensity": 0.8, "noise_files": []}
    assert manifest["line"] == {"channels": {"voice": 4}, "conditions": {"street@0.8": 4}, "stt_model": "/models/w"}
    assert usecases.LineRequest.from_manifest(manifest) == asked
    # Nothing asked: null keys, and the files' line over the chosen scenarios.
    plain = _created(mixed, "files", None, scenarios=["plain", "call", "street"])
    assert (plain["channel"], plain["conditions"], plain["stt_model"]) == (None, None, None)
    assert plain["line"] == {"channels": {"text": 1, "voice": 2},
                             "conditions": {"office@0.2": 1, "street@0.3 + noise/rain.wav": 1}, "stt_model": None}


def test_show_says_the_channel_and_conditions(polygon_home: Path, mixed: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 400)
    _created(mixed, "calls", usecases.LineRequest(channel="voice", conditions=usecases.parse_conditions("street")))
    _created(mixed, "some", None)
    _created(mixed, "chats", usecases.LineRequest(channel="text"))
    shown = json.loads(runner.invoke(app, ["show", "calls", "--json"]).stdout)
    assert (shown["channel"], shown["conditions"], shown["stt_model"]) == ("voice", "street@0.5", None)
    assert "channel voice · conditions street@0.5\n" in runner.invoke(app, ["show", "calls"]).output
    some = json.loads(runner.invoke(app, ["show", "some", "--json"]).stdout)
    assert (some["channel"], some["conditions"]) == ("voice in 2 of 4 scenarios",
                                                     "office@0.2 (1), street@0.3 + noise/rain.wav (1)")
    assert ("channel voice in 2 of 4 scenarios · conditions office@0.2 (1), street@0.3 + noise/rain.wav (1)\n"
            in runner.invoke(app, ["show", "some"]).output)
    chats = json.loads(runner.invoke(app, ["show", "chats", "--json"]).stdout)
    assert (chats["channel"], chats["conditions"]) == ("text", None)
    assert "channel text\n" in runner.invoke(app, ["show", "chats"]).output


def test_a_run_made_before_the_line_was_recorded_says_nothing() -> None:
    assert usecases.line_text(None) == {"channel": None, "conditions": None, "stt_model": None, "text": None}


def test_line_text_names_the_recogniser_model() -> None:
    line = {"channels": {"voice": 2}, "conditions": {"car@0.9": 2}, "stt_model": "/models/w"}
    assert usecases.line_text(line)["text"] == "channel voice · conditions car@0.9 · stt model /models/w"


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_polygon_run_records_and_reports_its_line(polygon_home: Path, mixed: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 400)
    args = ["run", str(mixed), "--agent", str(AGENT), "--scenario", "call", "--channel", "voice",
            "--conditions", "street@0.8"]
    result = runner.invoke(app, [*args, "--run-id", "asked", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["runs"][0]
    assert (summary["channel"], summary["conditions"], summary["stt_model"]) == ("voice", "street@0.8", None)
    manifest = usecases.run_manifest(usecases.open_stores(), "asked")
    assert (manifest["channel"], manifest["conditions"]) == ("voice", {"preset": "street", "intensity": 0.8,
                                                                         "noise_files": []})
    assert manifest["line"] == {"channels": {"voice": 1}, "conditions": {"street@0.8": 1}, "stt_model": None}
    # The same run resumed without the options keeps its line (nothing left to run).
    again = runner.invoke(app, ["run", str(mixed), "--agent", str(AGENT), "--scenario", "call", "--run-id", "asked"])
    assert again.exit_code == 0, again.output
    assert "asked: channel voice · conditions street@0.8\n" in again.stdout
    assert usecases.run_manifest(usecases.open_stores(), "asked") == manifest
