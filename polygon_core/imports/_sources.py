"""Where production calls come from: one file naming every source and how its calls are handled.

    # sources.yaml (validate with `polygon sources validate sources.yaml`)
    sources:
      support-line:                       # the source name imports are keyed by (with the call id)
        platform: vapi                    # a registered import format (vapi, retell: webhooks too)
        secret_env: VAPI_SERVER_SECRET    # environment variable holding the webhook secret
        agent: agents/support.yaml        # the agent that answered (its rules grade the calls)
        suite: suites/support             # scenario tags and tool schemas (optional)
        grade_on_arrival: true            # judge each arrival at once (default false)
        redaction_region: GB              # region of phone numbers without +code (default: settings)
        s3_prefix: s3://acme-calls/vapi/  # objects the scheduled pull imports (optional)

Paths are relative to the sources file's folder. Loading checks the file only (names, formats,
regions, that the agent and suite exist); whether a secret is set is the receiver's concern.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import phonenumbers
from pydantic import Field, ValidationError, field_validator

from ..documents import FileErrors, PolygonFileError, YamlDocument, read_yaml, require_mapping, validate_document
from ..files import load_agent, load_suite
from ..models import FileModel
from ._format import REGISTRY

__all__ = ["Source", "SourcesFile", "load_sources"]

_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")


class Source(FileModel):
    """One production source (see the module docstring for each field)."""

    platform: str = Field(..., description="a registered import format: how its calls are read "
                          "(`polygon import --help` lists them)")
    secret_env: str | None = Field(None, description="environment variable holding the webhook secret")
    agent: str | None = Field(None, description="agent YAML, relative to the sources file")
    suite: str | None = Field(None, description="suite folder, relative to the sources file")
    grade_on_arrival: bool = False
    redaction_region: str | None = Field(None, description="ISO 3166 region, e.g. US, GB, DE")
    s3_prefix: str | None = Field(None, description="s3://bucket/prefix the scheduled pull lists")
    judge_model: str | None = Field(None, description="judge of arrivals (default: POLYGON_JUDGE_MODEL)")

    @field_validator("platform")
    @classmethod
    def _known_platform(cls, value: str) -> str:
        if REGISTRY.get(value) is None:
            raise ValueError(f"unknown platform {value!r}; expected one of: {', '.join(REGISTRY)}")
        return value

    @field_validator("secret_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(f"{value!r} is not an environment variable name (A-Z, 0-9, _)")
        return value

    @field_validator("redaction_region")
    @classmethod
    def _region(cls, value: str | None) -> str | None:
        if value is not None and value.upper() not in phonenumbers.SUPPORTED_REGIONS:
            raise ValueError(f"{value!r} is not a phone-number region (ISO 3166 code such as US, GB)")
        return value.upper() if value is not None else None

    @field_validator("s3_prefix")
    @classmethod
    def _s3(cls, value: str | None) -> str | None:
        if value is not None and (not value.startswith("s3://") or len(value) <= 5):
            raise ValueError(f"{value!r} is not an s3://bucket/prefix")
        return value

    @property
    def receives_webhooks(self) -> bool:
        """Whether its platform's call-ended webhook can be received."""
        return REGISTRY.loaded()[self.platform].webhook is not None


class SourcesFile(FileModel):
    """A sources file: source name → source."""

    sources: dict[str, Source] = Field(default_factory=dict)

    @field_validator("sources")
    @classmethod
    def _names(cls, value: dict[str, Source]) -> dict[str, Source]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", name):
                raise ValueError(f"source name {name!r}: letters, digits, '.', '_', '-' (at most 64)")
        return value


def load_sources(path: Path | str) -> SourcesFile:
    """Read and check a sources file; agent and suite paths come back resolved. Raises FileErrors
    naming the file, line and field of every problem."""
    path = Path(path)
    doc = read_yaml(path)
    require_mapping(doc, "a sources file")
    try:
        loaded: SourcesFile | None = validate_document(doc, SourcesFile)
        sources, problems = loaded.sources if loaded else {}, []
    except FileErrors as exc:
        # One source's field errors must not hide another's cross-field problems: each source
        # whose fields are valid on its own is still checked below.
        loaded, problems, sources = None, list(exc.errors), _valid_sources(doc.data)
    for name, source in sources.items():
        problems.extend(_source_problems(doc, path, name, source))
    if problems:
        raise FileErrors(problems)
    assert loaded is not None
    return loaded


def _valid_sources(data: Any) -> dict[str, Source]:
    raw = data.get("sources") if isinstance(data, dict) else None
    valid: dict[str, Source] = {}
    for name, body in (raw.items() if isinstance(raw, dict) else ()):
        try:
            valid[str(name)] = Source.model_validate(body)
        except ValidationError:
            continue  # its field errors are already reported
    return valid


def _source_problems(doc: YamlDocument, path: Path, name: str, source: Source) -> list[PolygonFileError]:
    """A valid source's cross-field problems; its agent and suite paths are resolved in place."""
    problems: list[PolygonFileError] = []
    if source.receives_webhooks and source.secret_env is None:
        problems.append(doc.error(("sources", name, "platform"),
                                  f"{source.platform} webhooks are signed: set secret_env"))
    for field, kind in (("agent", "file"), ("suite", "folder")):
        value = getattr(source, field)
        if value is None:
            continue
        where = (path.parent / value).resolve()
        if not (where.is_file() if kind == "file" else where.is_dir()):
            problems.append(doc.error(("sources", name, field), f"{kind} not found: {where}"))
            continue
        try:
            load_agent(where) if kind == "file" else load_suite(where)
        except FileErrors as exc:  # the agent's or suite's own problems, in their own files
            problems.extend(exc.errors)
        setattr(source, field, str(where))
    if source.grade_on_arrival and source.agent is None:
        problems.append(doc.error(("sources", name, "grade_on_arrival"),
                                  "grading on arrival needs the source's agent"))
    return problems
