"""Polygon's runtime settings, read from the environment (prefix ``POLYGON_``).

This is the only place Polygon reads its ``POLYGON_*`` variables (and the providers' key and base
URL variables); the domain receives plain values. `PolygonSettings` holds what a run uses; the
task runner's variables and the Prefect start-up deadline are read apart (`runner_variables`,
`prefect_startup_variable`) because they are read where a flow runs or before any store is open,
and a bad one must fail only the command that uses it. Outside this module only variables named
at run time are read: a production source's webhook secret (its `secret_env`) and Prefect's own.
`tests/test_layers.py` checks that no other module reads a ``POLYGON_`` variable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, PrivateAttr, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from polygon_core.scoring import DEFAULT_RUBRIC_VERSION

__all__ = ["PolygonSettings", "RunnerVariables", "load_settings", "prefect_startup_variable", "runner_variables"]


def _provider_environ() -> dict[str, str]:
    """The set environment variables that registered providers declare for their keys and base URLs."""
    from polygon_core._registry import PluginLoadError

    from .providers import PROVIDERS  # here, not at the top: the providers import these settings

    try:
        adapters = list(PROVIDERS.loaded().values())
    except PluginLoadError:  # a broken plugin: the built-ins' variables still count; a lookup names it
        adapters = list(PROVIDERS.entries.values())
    declared = {name for adapter in adapters for name in (*adapter.api_key_env, *adapter.base_url_env)}
    return {name: os.environ[name] for name in sorted(declared) if name in os.environ}


class PolygonSettings(BaseSettings):
    """Where Polygon keeps its data, which models it uses, and the secrets it needs.

    Every field is read from ``POLYGON_<FIELD>`` (case-insensitive), except the provider keys,
    which are also read from the providers' usual ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``.
    Any other provider's key and base URL come from the variables the provider declares, read
    with `provider_value` from the environment as it was when the settings were loaded (only the
    variables of the providers registered then are kept; a blank one counts as unset).
    Secrets are ``SecretStr``: they never show in ``repr``/``str`` or in logs of the settings.
    """

    # No .env file on purpose: a stray file in the working directory must never change what a
    # run talks to. Put values in the environment (or pass overrides) instead.
    model_config = SettingsConfigDict(
        env_prefix="POLYGON_",
        case_sensitive=False,
        extra="ignore",
        populate_by_name=True,
        validate_default=True,
    )

    home: Path = Field(
        Path(".polygon"), description="folder for the default database and artifacts"
    )
    database_url: str | None = Field(
        None, description="SQLAlchemy URL; default sqlite:///{home}/polygon.db"
    )
    artifacts_url: str | None = Field(
        None,
        description="local folder, file:// URL or s3://bucket/prefix; default {home}/artifacts",
    )
    s3_endpoint_url: str | None = Field(
        None, description="endpoint of an S3-compatible service (MinIO, Ceph, moto, ...)"
    )
    agent_model: str = Field("offline", description="model of the agent under test by default")
    caller_model: str = Field("offline", description="model of the simulated caller")
    judge_model: str = Field("offline", description="model of the judge")
    probe_model: str = Field("offline", description="model that answers behaviour probes")
    concurrency: int = Field(8, ge=1, description="conversations simulated at once")
    rubric: str = Field(DEFAULT_RUBRIC_VERSION, min_length=1, description="rubric version runs are judged under")
    webhook_secret: SecretStr | None = Field(None, description="HMAC secret of signed webhooks")
    api_tokens: SecretStr | None = Field(
        None, description="web app/API tokens: name:token:scope,... (scope read or admin); unset = loopback only"
    )
    webhook_max_body_bytes: int = Field(1_048_576, ge=1, description="largest webhook body accepted")
    webhook_prompts: dict[str, str | dict[str, str]] = Field(
        default_factory=dict,
        description='JSON: prompt-file glob → agent YAML (or {"agent": …, "suite": …}), for GitHub pushes',
    )
    # NoDecode: read as raw text, so a plain `/srv/a:/srv/b` works as well as a JSON list.
    webhook_roots: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="folders every path in a webhook must resolve inside (JSON list or os.pathsep-"
        "separated); empty = the server's working directory",
    )
    http_agent_timeout: float = Field(30.0, gt=0, description="seconds an HTTP agent has for one whole "
                                      "reply (request sent to last byte read)")
    http_agent_max_body_bytes: int = Field(1_048_576, ge=1, description="largest HTTP agent reply body read; "
                                           "a longer one ends the conversation agent_error")
    serve_header_timeout: float = Field(10.0, gt=0, description="`polygon serve`: seconds a client has to send "
                                        "a request's headers (from connecting, or its first byte on a kept-alive "
                                        "connection); later, the connection is closed")
    serve_body_timeout: float = Field(30.0, gt=0, description="`polygon serve`: seconds a client has to send a "
                                      "request's body once its headers are in")
    webhook_replay_days: float = Field(7.0, gt=0, description="days a webhook delivery id is remembered")
    sources: Path | None = Field(
        None, description="the sources file: each production source's platform, webhook secret's "
        "variable, agent, suite, grade-on-arrival, redaction region, S3 prefix (`polygon sources validate`)")
    # The variables the registered providers declare, as loaded (`provider_value`): a provider
    # needs no field here. Only those, not the whole environment: settings are pickled to workers
    # and compared, and must carry no other secret. Private, so it never shows in dumps or repr.
    _environ: dict[str, str] = PrivateAttr(default_factory=_provider_environ)
    openai_api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("openai_api_key", "POLYGON_OPENAI_API_KEY", "OPENAI_API_KEY"),
    )
    anthropic_api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices(
            "anthropic_api_key", "POLYGON_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"
        ),
    )
    openai_base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp server)"
    )
    redact_patterns: dict[str, str] = Field(
        default_factory=dict,
        description='extra redaction: JSON {"LABEL": "regex"}; matches become [LABEL]',
    )
    redact_phone_region: str = Field("US", description="region of phone numbers without +code")
    redact_keep_originals: bool = Field(
        False, description="also store unredacted imported transcripts (explicit opt-in)"
    )
    redact_id_key: SecretStr | None = Field(
        None, description="HMAC key (16+ bytes) for external ids holding personal data; default: a "
        "random key kept in the artifact store (keys/identifier.key), made on first use")
    # Provider layer (polygon_core.adapters.providers): one retry layer, limits, record/replay.
    anthropic_base_url: str | None = Field(None, description="Anthropic-compatible endpoint")
    model_timeout: float = Field(60.0, gt=0, description="seconds per model request")
    model_max_attempts: int = Field(6, ge=1, description="attempts per model request (1 = no retry)")
    model_retry_seconds: float = Field(120.0, gt=0, description="total time budget of one request's retries")
    model_retry_base_delay: float = Field(0.5, ge=0, description="first backoff delay, doubled per retry")
    # Per role (agent, caller, judge, probe, persona): an output cap on every request, and timeout
    # and attempts that override the model_* defaults above (None = inherit). Prompt analysis and
    # the comparison summary ask as the judge. See docs/local-models.md.
    agent_max_tokens: int = Field(512, ge=1, description="output cap of the agent under test when its "
                                  "sampling sets no max_tokens")
    caller_max_tokens: int = Field(256, ge=1, description="output cap of a simulated caller's line")
    judge_max_tokens: int = Field(1024, ge=1, description="output cap of a judge reply (and prompt analysis)")
    probe_max_tokens: int = Field(512, ge=1, description="output cap of a probe reply")
    persona_max_tokens: int = Field(1024, ge=1, description="output cap of one generated persona")
    agent_timeout: float | None = Field(None, gt=0, description="seconds per agent request (default model_timeout)")
    caller_timeout: float | None = Field(None, gt=0, description="seconds per caller request")
    judge_timeout: float | None = Field(None, gt=0, description="seconds per judge request")
    probe_timeout: float | None = Field(None, gt=0, description="seconds per probe request")
    persona_timeout: float | None = Field(None, gt=0, description="seconds per persona request")
    agent_max_attempts: int | None = Field(None, ge=1, description="attempts per agent request (default model_max_attempts)")
    caller_max_attempts: int | None = Field(None, ge=1, description="attempts per caller request")
    judge_max_attempts: int | None = Field(None, ge=1, description="attempts per judge request")
    probe_max_attempts: int | None = Field(None, ge=1, description="attempts per probe request")
    persona_max_attempts: int | None = Field(None, ge=1, description="attempts per persona request")
    model_concurrency: int | None = Field(
        None, ge=1, description="requests in flight per provider+model (unset: no limit of its own, so the "
        "conversations in flight, POLYGON_CONCURRENCY / --concurrency, bound it; a lower limit is reported)")
    model_rpm: int | None = Field(None, ge=1, description="requests per minute per provider+model")
    model_tpm: int | None = Field(None, ge=1, description="tokens per minute per provider+model")
    model_limits: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description='per provider:model overrides, JSON: {"openai:gpt-4o": {"concurrency": 2, "rpm": 60, "tpm": 30000}}',
    )
    model_prefect_limits: bool = Field(
        False, description="under Prefect, also hold the model's global concurrency and rate limits "
        "(`polygon-<provider>-<model>` and `…-rate`), which bound all workers together")
    model_cache: Literal["off", "record", "replay"] = Field("off", description="record/replay of model replies")
    model_cache_dir: Path | None = Field(None, description="default {home}/model-cache")
    # Voice calls (polygon_core.adapters.speech): models built from the `voice` extra's wheels.
    speech_models_dir: Path | None = Field(
        None, description="where speech models built from installed wheels are kept (the multilingual "
        "Whisper base joined from its two parts, once); default {home}/speech-models")
    # Batch judging (OpenAI Batch API, Anthropic Message Batches): `--batch` / `batch_judging: true`.
    batch_poll_seconds: float = Field(30.0, gt=0, description="seconds between polls of a submitted batch")
    batch_max_wait_hours: float = Field(24.0, gt=0, description="give up waiting on a batch after this long")
    batch_max_requests: int = Field(10_000, ge=1, description="requests per submitted batch (larger passes split)")

    @field_validator(
        "database_url",
        "artifacts_url",
        "s3_endpoint_url",
        "openai_base_url",
        "anthropic_base_url",
        "webhook_secret",
        "sources",
        "api_tokens",
        "openai_api_key",
        "anthropic_api_key",
        *(f"{role}_{what}" for role in ("agent", "caller", "judge", "probe", "persona")
          for what in ("timeout", "max_attempts")),
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # `export POLYGON_DATABASE_URL=` (or an empty CI secret) means "not set", not "empty URL".
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("webhook_roots", mode="before")
    @classmethod
    def _split_roots(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part for part in text.split(os.pathsep) if part.strip()]

    @field_validator("rubric")
    @classmethod
    def _known_rubric(cls, value: str) -> str:
        # Checked once, when settings are read: a run's rubric is --rubric, else the suite's, else
        # this, else v1 (polygon.usecases.resolve_rubric), and a typo here must not wait for a judge.
        from polygon_core.scoring import KNOWN_VERSIONS

        if value not in KNOWN_VERSIONS:
            raise ValueError(f"POLYGON_RUBRIC={value!r} is not a rubric version; known versions: "
                             f"{', '.join(KNOWN_VERSIONS)}")
        return value

    def provider_value(self, provider: str, what: Literal["api_key", "base_url"],
                       variables: Sequence[str]) -> str | None:
        """A provider's key or base URL: the field ``<provider>_<what>`` where Polygon has one (so
        ``openai_api_key`` and its overrides keep working), else the first of the provider's own
        ``variables`` set (non-blank) in the environment; None when neither is."""
        field = f"{provider}_{what}"
        value = getattr(self, field, None) if field in type(self).model_fields else None
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if value is not None:
            return str(value)
        return next((self._environ[v] for v in variables if self._environ.get(v, "").strip()), None)

    def resolved_database_url(self) -> str:
        """The database URL to use: ``database_url``, or a SQLite file under ``home``."""
        if self.database_url:
            return self.database_url
        # Absolute, so a worker that changes directory still opens the same file.
        return f"sqlite:///{self._home_dir() / 'polygon.db'}"

    def resolved_artifacts_url(self) -> str:
        """Where artifacts go: ``artifacts_url``, or the local folder ``{home}/artifacts``."""
        if self.artifacts_url:
            return self.artifacts_url
        return str(self._home_dir() / "artifacts")

    def _home_dir(self) -> Path:
        return self.home.expanduser().absolute()


def load_settings(**overrides: Any) -> PolygonSettings:
    """Read settings from the environment; keyword ``overrides`` win over the environment.

    Overrides use field names (``load_settings(home=tmp, concurrency=2)``); ``None`` values are
    dropped so callers can pass optional CLI flags straight through.
    """
    given = {name: value for name, value in overrides.items() if value is not None}
    unknown = sorted(set(given) - set(PolygonSettings.model_fields))
    if unknown:
        raise TypeError(f"unknown setting(s): {', '.join(unknown)}")
    return PolygonSettings(**given)


@dataclass(frozen=True)
class RunnerVariables:
    """The task runner's variables as set (stripped; '' when unset), checked by `polygon.flows`."""

    task_runner: str  # POLYGON_TASK_RUNNER: thread (default) or dask
    dask_address: str  # POLYGON_DASK_ADDRESS: a running Dask scheduler
    dask_workers: str  # POLYGON_DASK_WORKERS: worker processes of a local cluster


def runner_variables() -> RunnerVariables:
    """`POLYGON_TASK_RUNNER`, `POLYGON_DASK_ADDRESS` and `POLYGON_DASK_WORKERS`, read now.

    Read at each call, not with `PolygonSettings`: a deployment's flow reads them on the worker
    that runs it, and a bad value is an error of the run that asks for a runner only.
    """
    return RunnerVariables(*(os.environ.get(f"POLYGON_{name}", "").strip()
                             for name in ("TASK_RUNNER", "DASK_ADDRESS", "DASK_WORKERS")))


def prefect_startup_variable() -> str:
    """`POLYGON_PREFECT_STARTUP_SECONDS` as set ('' when unset): read before settings are loaded,
    when a command starts Prefect's temporary server."""
    return os.environ.get("POLYGON_PREFECT_STARTUP_SECONDS", "").strip()
