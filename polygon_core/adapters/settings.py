"""Polygon's runtime settings, read from the environment (prefix ``POLYGON_``).

This is the only place Polygon reads environment variables; the domain receives plain values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["PolygonSettings", "load_settings"]


class PolygonSettings(BaseSettings):
    """Where Polygon keeps its data, which models it uses, and the secrets it needs.

    Every field is read from ``POLYGON_<FIELD>`` (case-insensitive), except the provider keys,
    which are also read from the providers' usual ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``.
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
    rubric: str = Field("v1", min_length=1, description="rubric version runs are judged under")
    webhook_secret: SecretStr | None = Field(None, description="HMAC secret of signed webhooks")
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

    @field_validator(
        "database_url",
        "artifacts_url",
        "s3_endpoint_url",
        "openai_base_url",
        "webhook_secret",
        "openai_api_key",
        "anthropic_api_key",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # `export POLYGON_DATABASE_URL=` (or an empty CI secret) means "not set", not "empty URL".
        if isinstance(value, str) and not value.strip():
            return None
        return value

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
