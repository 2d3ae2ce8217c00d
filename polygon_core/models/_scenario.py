"""Scenario and agent configuration: the two files a team writes."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from ._base import FileModel
from ._persona import Persona
from ._voice import CascadeSettings, Channel, LineConditions

Language = Literal["en", "ru"]


def endpoint_problem(url: str) -> str | None:
    """Why `url` cannot be an HTTP agent's endpoint (None when it is an http(s) URL with a host)."""
    expected = f"expected an http:// or https:// URL with a host (e.g. 'http://127.0.0.1:8000/act'), got {url!r}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return expected
    if any(c.isspace() for c in url) or parts.scheme not in ("http", "https") or not parts.hostname:
        return expected
    return None


class Scenario(FileModel):
    """A declarative test case: who calls, what the world looks like, what must hold."""

    id: str = Field(..., min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    description: str = ""
    seed: int = 0
    max_turns: int = Field(20, ge=1, le=500)
    language: Language = "en"
    persona: Persona
    context: dict[str, Any] = Field(default_factory=dict, description="initial environment state")
    tools: list[str] = Field(default_factory=list, description="tool names from the tool library")
    assertions: dict[str, str] = Field(
        default_factory=dict,
        description="name → expression, or name → {expr, gate} (gate: true fails the call under rubric v3)",
        json_schema_extra={"additionalProperties": {"anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"expr": {"type": "string"}, "gate": {"type": "boolean"}},
             "required": ["expr"], "additionalProperties": False},
        ]}},
    )
    gating_assertions: list[str] = Field(
        default_factory=list, description="names of the assertions marked `gate: true` (set from them)"
    )
    forbidden_phrases: list[str] = Field(default_factory=list)
    probes: list[str] | None = Field(None, description="probe ids; default: the whole library")
    noise: float = Field(0.0, ge=0.0, le=1.0, description="recognition-noise intensity")
    channel: Channel | None = Field(None, description="text or voice; default: the suite's, then text")
    conditions: LineConditions | None = Field(None, description="on a call: the line's conditions "
                                              "(a preset name or {preset, intensity, noise_files}); "
                                              "default: the suite's, then phone")
    knowledge_base: list[str] = Field(
        default_factory=list, description="statements the agent may cite as policy"
    )
    tags: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _gated_assertions(cls, data: Any) -> Any:
        # `goal_met: {expr: "...", gate: true}` is an assertion that gates (rubric v3); it is kept
        # as its expression in `assertions`, and its name in `gating_assertions`.
        if not isinstance(data, dict) or not isinstance(data.get("assertions"), dict):
            return data
        plain: dict[Any, Any] = {}
        gating = list(data.get("gating_assertions") or [])
        for name, value in data["assertions"].items():
            if isinstance(value, dict):
                extra = sorted(set(value) - {"expr", "gate"})
                if extra or not isinstance(value.get("expr"), str):
                    raise ValueError(f"assertion {name!r}: expected an expression or {{expr: <expression>, "
                                     f"gate: true|false}}" + (f"; unknown keys: {', '.join(extra)}" if extra else ""))
                if not isinstance(value.get("gate", False), bool):
                    raise ValueError(f"assertion {name!r}: `gate` must be true or false")
                plain[name] = value["expr"]
                if value.get("gate") and name not in gating:
                    gating.append(name)
            else:
                plain[name] = value
        return {**data, "assertions": plain, "gating_assertions": gating}

    @model_validator(mode="after")
    def _gates_named(self) -> Scenario:
        unknown = [n for n in self.gating_assertions if n not in self.assertions]
        if unknown:
            raise ValueError(f"gating_assertions name no assertion: {', '.join(unknown)}")
        return self

    @field_validator("tools", mode="before")
    @classmethod
    def _tool_names(cls, value: object) -> object:
        # `- issue_refund   # guarded` in YAML is a plain string; a mapping form `{name: ...}` is
        # accepted too so a scenario can later carry per-scenario overrides.
        if isinstance(value, list):
            return [v["name"] if isinstance(v, dict) and "name" in v else v for v in value]
        return value


class SamplingParams(FileModel):
    """Sampling parameters of the agent's model; part of the profile version."""

    temperature: float | None = Field(None, ge=0.0, le=2.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None


class AgentConfig(FileModel):
    """What is under test: a prompt + model + sampling profile + tools, or an external agent."""

    name: str = Field(..., min_length=1)
    description: str = ""
    prompt: str | None = Field(None, description="inline system prompt")
    prompt_file: str | None = Field(None, description="path to the prompt, relative to this file")
    model: str = Field("offline", description="offline, or <provider>:<model> [@base_url] of a registered "
                       "provider (`polygon run --help` lists them)")
    sampling: SamplingParams = Field(default_factory=SamplingParams)
    tools: list[str] | None = Field(None, description="tools exposed; default: the scenario's")
    forbidden_phrases: list[str] = Field(default_factory=list)
    language: Language = "en"
    callable: str | None = Field(None, description="`module:attr` of a Python agent")
    endpoint: str | None = Field(None, description="URL of an HTTP agent (http:// or https://, with a host)",
                                 json_schema_extra={"pattern": "^https?://[^/?#\\s]+"})
    max_tool_steps: int = Field(4, ge=1, le=20)
    voice: CascadeSettings | None = Field(None, description="on a call: how Polygon's cascade voices this "
                                          "agent (default: CascadeSettings' defaults)")
    tool_calls: Literal["api", "text"] = Field(
        "api", description="how a model agent calls tools: `api` (the provider's tools API) or `text` "
        "(JSON written in the reply, for local models that do not use the tools API)")

    @field_validator("endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        # A typo here would otherwise surface mid-run as the agent failing every conversation.
        problem = None if value is None else endpoint_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> AgentConfig:
        if self.prompt is not None and self.prompt_file is not None:
            raise ValueError("give `prompt` or `prompt_file`, not both")
        if self.callable is not None and self.endpoint is not None:
            raise ValueError("give `callable` or `endpoint`, not both")
        if self.callable is not None and ":" not in self.callable:
            raise ValueError("`callable` must look like `package.module:attribute`")
        return self

    @property
    def kind(self) -> Literal["model", "callable", "http"]:
        """Which adapter runs this agent."""
        if self.callable:
            return "callable"
        if self.endpoint:
            return "http"
        return "model"
