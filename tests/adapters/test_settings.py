"""PolygonSettings: environment names, defaults, resolved URLs and secret hygiene."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from polygon_core.adapters.settings import PolygonSettings, load_settings

_PROVIDER_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No POLYGON_*/provider variables from the caller's shell; cwd is a fresh folder."""
    for name in list(os.environ):
        if name.upper().startswith("POLYGON_") or name.upper() in _PROVIDER_VARS:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults(clean_env: Path) -> None:
    settings = load_settings()
    assert settings.home == Path(".polygon")
    assert settings.database_url is None and settings.artifacts_url is None
    assert settings.s3_endpoint_url is None
    assert (settings.agent_model, settings.caller_model) == ("offline", "offline")
    assert (settings.judge_model, settings.probe_model) == ("offline", "offline")
    assert settings.concurrency == 8
    assert settings.rubric == "v1"
    assert settings.webhook_secret is None
    assert settings.openai_api_key is None and settings.anthropic_api_key is None
    assert settings.openai_base_url is None
    home = clean_env / ".polygon"
    assert settings.resolved_database_url() == f"sqlite:///{home / 'polygon.db'}"
    assert settings.resolved_artifacts_url() == str(home / "artifacts")


def test_environment_uses_the_polygon_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_HOME", "/srv/polygon")
    monkeypatch.setenv("POLYGON_DATABASE_URL", "postgresql+psycopg://u@db/polygon")
    monkeypatch.setenv("POLYGON_ARTIFACTS_URL", "s3://bucket/runs")
    monkeypatch.setenv("POLYGON_S3_ENDPOINT_URL", "http://minio:9000")
    monkeypatch.setenv("POLYGON_JUDGE_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setenv("polygon_concurrency", "3")  # case-insensitive
    monkeypatch.setenv("POLYGON_RUBRIC", "v2")
    monkeypatch.setenv("POLYGON_OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("CONCURRENCY", "99")  # unprefixed names are not ours
    settings = load_settings()
    assert settings.home == Path("/srv/polygon")
    assert settings.resolved_database_url() == "postgresql+psycopg://u@db/polygon"
    assert settings.resolved_artifacts_url() == "s3://bucket/runs"
    assert settings.s3_endpoint_url == "http://minio:9000"
    assert settings.judge_model == "openai:gpt-4o-mini"
    assert settings.agent_model == "offline"
    assert settings.concurrency == 3
    assert settings.rubric == "v2"
    assert settings.openai_base_url == "http://127.0.0.1:8000/v1"


def test_home_drives_the_default_locations(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "h")
    assert settings.resolved_database_url() == f"sqlite:///{tmp_path / 'h' / 'polygon.db'}"
    assert settings.resolved_artifacts_url() == str(tmp_path / "h" / "artifacts")


def test_provider_keys_read_without_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    settings = load_settings()
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-openai-secret"
    assert settings.anthropic_api_key is not None
    assert settings.anthropic_api_key.get_secret_value() == "sk-ant-secret"


def test_prefixed_provider_key_is_accepted_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_OPENAI_API_KEY", "sk-prefixed")
    settings = load_settings()
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-prefixed"


def test_secrets_never_show(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("POLYGON_WEBHOOK_SECRET", "hook-secret")
    settings = load_settings()
    shown = " ".join([repr(settings), str(settings), settings.model_dump_json()])
    for secret in ("sk-openai-secret", "sk-ant-secret", "hook-secret"):
        assert secret not in shown
    assert settings.webhook_secret is not None
    assert settings.webhook_secret.get_secret_value() == "hook-secret"


def test_overrides_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_CONCURRENCY", "3")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    settings = load_settings(concurrency=5, openai_api_key="from-override", rubric=None)
    assert settings.concurrency == 5
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "from-override"
    assert settings.rubric == "v1"  # None overrides are ignored


def test_unknown_override_is_an_error() -> None:
    with pytest.raises(TypeError, match="concurency"):
        load_settings(concurency=2)


def test_blank_values_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_DATABASE_URL", "")
    monkeypatch.setenv("OPENAI_API_KEY", "  ")
    settings = load_settings()
    assert settings.database_url is None
    assert settings.resolved_database_url().startswith("sqlite:///")
    assert settings.openai_api_key is None


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_concurrency_is_validated(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("POLYGON_CONCURRENCY", value)
    with pytest.raises(ValidationError):
        load_settings()


def test_file_url_and_local_folder_artifacts(tmp_path: Path) -> None:
    settings = PolygonSettings(artifacts_url=f"file://{tmp_path}/art")
    assert settings.resolved_artifacts_url() == f"file://{tmp_path}/art"


def test_settings_keep_only_the_variables_providers_declare(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
    monkeypatch.setenv("POLYGON_ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("STRIPE_API_KEY", "sk-stripe-not-polygons")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-not-polygons")
    settings = load_settings()
    pickled = pickle.dumps(settings)
    assert b"sk-stripe-not-polygons" not in pickled and b"aws-not-polygons" not in pickled
    assert settings.provider_value("openai", "api_key", ("POLYGON_OPENAI_API_KEY", "OPENAI_API_KEY")) == (
        "sk-openai-test")
    assert settings.provider_value("anthropic", "base_url", ("POLYGON_ANTHROPIC_BASE_URL",)) == "http://127.0.0.1:9"
    # A variable no registered provider declares is not read, even if asked for.
    assert settings.provider_value("stripe", "api_key", ("STRIPE_API_KEY",)) is None
    assert pickle.loads(pickled) == settings


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_polygon_key_override_is_unset_so_the_usual_variable_counts(
        monkeypatch: pytest.MonkeyPatch, blank: str) -> None:
    # `export POLYGON_OPENAI_API_KEY=` (an empty CI secret) means "not set", as for every setting:
    # the provider's usual variable is used, not a missing-key error.
    monkeypatch.setenv("POLYGON_OPENAI_API_KEY", blank)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-usual")
    settings = load_settings()
    assert settings.provider_value("openai", "api_key", ("POLYGON_OPENAI_API_KEY", "OPENAI_API_KEY")) == "sk-usual"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert load_settings().provider_value("openai", "api_key", ("POLYGON_OPENAI_API_KEY", "OPENAI_API_KEY")) is None
