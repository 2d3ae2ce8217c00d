"""The checks `polygon run` makes before it creates a run row: `polygon validate`'s, then imports.

Whatever `validate` rejects, `run` refuses the same way (one line per problem, exit 2) before
anything is stored, so a run row is never left `running` with no conversations because a file
was broken. A `callable` agent is then imported for real (validation only locates it, without
running its code): an error raised while importing it is also reported as bad input. A run with
calls (`check_call_inputs`) is checked for what its calls need: the `voice` extra, usable noise
files and a recogniser model folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.files import PolygonFileError
from polygon_core.models import AgentConfig, CascadeSettings

from ._call_plan import LineRequest
from ._common import Stores

__all__ = ["check_artifact_store", "check_call_inputs", "check_run_inputs", "upgrade_database", "validate_files"]


def check_run_inputs(suite: Path, agents: Sequence[Path]) -> None:
    """Raise FileErrors (or AgentConfigError) when the suite or an agent would fail the run."""
    from polygon_core.adapters.agents import AgentConfigError, agent_factory
    from polygon_core.files import FileErrors, agent_folders, load_agent

    errors = validate_files([suite, *agents])
    if errors:
        raise FileErrors(errors)
    for agent in agents:
        config = load_agent(agent, suite=suite).config
        if config.kind != "callable" or not config.callable:
            continue
        try:  # imported and checked (a class needs `act` and an `__init__` without arguments), nothing made
            agent_factory(config, folders=agent_folders(agent, suite))
        except AgentConfigError as exc:
            raise AgentConfigError(f"{agent}: {exc}") from None
        except Exception as exc:  # the module's own code failed while importing
            raise AgentConfigError(
                f"{agent}: callable {config.callable!r}: importing it failed: "
                f"{type(exc).__name__}: {exc}"
            ) from None


def check_call_inputs(suite_path: Path, agents: Sequence[Path], request: LineRequest | None = None,
                      scenarios: Sequence[str] | None = None) -> None:
    """Raise a one-line ValueError when the run's calls could not run (before any run row exists).

    `request` is what the command line asked for (`--channel`, `--conditions`, `--stt-model`);
    `scenarios` the chosen scenario ids (None: the whole suite). A run with no call refuses
    `--conditions` and `--stt-model` (they would be ignored). A run with calls needs the `voice`
    extra (`VoiceExtraMissing`), noise files that are WAVs the line can use (read whole, as the
    call will), and a recogniser model folder that exists with its files.
    """
    from polygon_core.files import load_agent, load_suite

    from ._call_plan import scenario_channel, scenario_conditions

    request = request or LineRequest()
    suite = load_suite(suite_path)
    keep = None if scenarios is None else set(scenarios)
    calls = [s for s in suite.scenarios if (keep is None or s.id in keep)
             and scenario_channel(suite, s, request) == "voice"]
    if not calls:
        for flag, given in (("--conditions", request.conditions), ("--stt-model", request.stt_model)):
            if given is not None:
                raise ValueError(f"{flag} applies to calls, and no scenario of this run is one: add "
                                 "--channel voice (or `channel: voice` in suite.yaml or a scenario)")
        return
    from polygon_core.adapters.speech import check_voice_extra

    check_voice_extra()  # VoiceExtraMissing: one line naming the extra
    checked: set[Path] = set()
    for scenario in calls:
        conditions, source = scenario_conditions(suite, scenario, request)
        for name in conditions.noise_files:
            path = (suite.path / name).expanduser().resolve()
            if path not in checked:
                _check_noise_file(path, name, source)
                checked.add(path)
    for agent in agents:
        config = load_agent(agent).config
        _check_engines(agent, config)
        _check_stt_model(agent, config, request)


def _check_engines(agent_path: Path, config: AgentConfig) -> None:
    """The cascade's engines are registered names (a typo fails here, not inside the first call)."""
    from polygon_core.adapters.speech import recognizer_names, synthesizer_names

    cascade = config.voice or CascadeSettings()
    for field, name, known in (("synthesis", cascade.synthesis.partition(":")[0], synthesizer_names()),
                               ("recognition", cascade.recognition, recognizer_names())):
        if name not in known:
            raise ValueError(f"{agent_path}: voice.{field}: unknown engine {name!r}; expected one of "
                             f"{', '.join(known)}")


def _check_noise_file(path: Path, name: str, source: str) -> None:
    """A noise file the line can use (a WAV it can read), else a ValueError naming the file that
    names it (`source`), the field and the noise file."""
    if not path.is_file():
        raise ValueError(f"{source}: conditions.noise_files: {name}: no such file ({path}; a relative path "
                         "is read from the suite folder)")
    from polygon_core.voice import AudioFormatError, read_wav

    try:
        read_wav(path.read_bytes(), name)  # read whole, as the call will: a damaged file fails here
    except AudioFormatError as exc:
        raise ValueError(f"{source}: conditions.noise_files: {exc}") from None


def _check_stt_model(agent_path: Path, config: AgentConfig, request: LineRequest) -> None:
    """The recogniser model a call of this agent would load: a bundled name, or a CTranslate2
    Whisper folder with its files (checked without loading it); another engine's model name is
    that engine's to check."""
    from polygon_core.adapters.speech import BUNDLED_WHISPER, SpeechConfigError, resolve_whisper_model

    cascade = config.voice or CascadeSettings()
    model = request.stt_model or cascade.stt_model
    source = "--stt-model" if request.stt_model else f"{agent_path}: voice.stt_model"
    if cascade.recognition != "whisper" or model is None:
        return
    if model == "tiny.en" and config.language != "en":  # what the recogniser would refuse when loaded
        raise ValueError(f"{source}: tiny.en is English-only and agent {config.name!r} speaks "
                         f"{config.language!r}; use base (multilingual) or a multilingual model folder")
    if model in BUNDLED_WHISPER:
        return
    try:
        resolve_whisper_model(load_settings(), config.language, model)
    except SpeechConfigError as exc:
        raise ValueError(f"{source}: {exc}") from None


def validate_files(paths: Sequence[Path]) -> list[PolygonFileError]:
    """`polygon validate`'s errors for these files and folders (none when valid); an
    agent's model name is read as a run reads it (provider and URL; no key needed here)."""
    from polygon_core.adapters.providers import parse_model_name
    from polygon_core.files import validate_paths

    return validate_paths(list(paths), check_model=parse_model_name)


def check_artifact_store(stores: Stores) -> None:
    """Raise when the artifact store does not answer (a missing bucket: ArtifactStoreError), so a run
    fails before anything is recorded rather than leaving a row `running` and a traceback per task."""
    stores.artifacts.exists("runs/.preflight")


def upgrade_database(settings: PolygonSettings | None = None) -> str:
    """Apply the database migrations (Alembic) to the configured database; returns its URL."""
    from polygon_core.adapters.storage import Repository

    url = (settings or load_settings()).resolved_database_url()
    Repository(url).upgrade()
    return url
