"""What the webhook receiver reads: its configuration, the payloads it accepts, prompt-file globs.

Split from `_webhooks` (the router) so each stays small; everything here is plain data and pure
functions over it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

__all__ = [
    "GitHubCommit",
    "GitHubPush",
    "GitHubRepository",
    "PromptCommitPayload",
    "PromptTarget",
    "SweepPayload",
    "WebhookConfig",
    "changed_prompts",
    "glob_match",
]

_DAY_SECONDS = 24 * 3600


# -- configuration -----------------------------------------------------------------------------


class PromptTarget(BaseModel):
    """What a changed prompt file means: which agent config to re-evaluate, on which suite."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(min_length=1, description="agent YAML, relative to the repository root")
    suite: str | None = Field(None, description="suite folder; default: the deployment's")


class WebhookConfig(BaseModel):
    """The receiver's settings (built from PolygonSettings by `create_app`)."""

    model_config = ConfigDict(extra="forbid")

    secret: SecretStr | None = None
    max_body_bytes: int = Field(1_048_576, ge=1)
    # glob (repository-relative, `**` spans folders) → the agent that uses the matching prompt files
    prompts: dict[str, PromptTarget] = Field(default_factory=dict)
    delivery_ttl_seconds: float = Field(7 * _DAY_SECONDS, gt=0)
    delivery_capacity: int = Field(100_000, ge=1)
    # Every path a payload names must resolve inside one of these (empty: the working directory).
    roots: list[Path] = Field(default_factory=list)

    @classmethod
    def from_settings(cls, settings: Any) -> WebhookConfig:
        """Read the webhook fields of a PolygonSettings (missing fields keep their defaults)."""
        prompts = {glob: PromptTarget(agent=t) if isinstance(t, str) else PromptTarget.model_validate(t)
                   for glob, t in (getattr(settings, "webhook_prompts", None) or {}).items()}
        values: dict[str, Any] = {"secret": getattr(settings, "webhook_secret", None), "prompts": prompts,
                                  "roots": list(getattr(settings, "webhook_roots", None) or [])}
        limit = getattr(settings, "webhook_max_body_bytes", None)
        if limit:
            values["max_body_bytes"] = limit
        days = getattr(settings, "webhook_replay_days", None)
        if days:
            values["delivery_ttl_seconds"] = days * _DAY_SECONDS
        return cls(**values)

    def resolved_roots(self) -> list[Path]:
        """The roots with symlinks resolved; the working directory when none is configured."""
        return [Path(root).expanduser().resolve() for root in (self.roots or [Path.cwd()])]


# -- payloads ----------------------------------------------------------------------------------


class PromptCommitPayload(BaseModel):
    """Polygon's own prompt-commit payload (sent by CI systems other than GitHub, and by tests)."""

    model_config = ConfigDict(extra="forbid")

    agent_path: str = Field(min_length=1)
    prompt_hash: str = Field(min_length=1, max_length=128)
    suite_path: str | None = None
    prompt_path: str | None = None
    commit: str | None = Field(None, max_length=64)
    previous_run_id: str | None = None


class GitHubCommit(BaseModel):
    """The part of a push payload's commit Polygon reads."""

    model_config = ConfigDict(extra="ignore")  # GitHub sends much more; none of it matters here

    id: str
    added: list[str] = Field(default_factory=list)
    modified: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class GitHubRepository(BaseModel):
    """The pushed repository."""

    model_config = ConfigDict(extra="ignore")

    full_name: str


class GitHubPush(BaseModel):
    """A GitHub `push` event payload (only what Polygon reads is validated)."""

    model_config = ConfigDict(extra="ignore")

    ref: str
    after: str = Field(min_length=7)
    repository: GitHubRepository
    commits: list[GitHubCommit] = Field(default_factory=list)


class SweepPayload(BaseModel):
    """A sweep request: the path of the sweep spec, relative to the workers' checkout."""

    model_config = ConfigDict(extra="forbid")

    spec_path: str = Field(min_length=1, max_length=1000)


# -- prompt files in a push --------------------------------------------------------------------


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")  # zero or more folders
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    """Repository-path glob: `*` and `?` stay within a folder, `**/` spans zero or more folders."""
    return _glob_regex(pattern.lstrip("/")).match(path.lstrip("/")) is not None


def changed_prompts(push: GitHubPush, prompts: dict[str, PromptTarget]) -> dict[str, PromptTarget]:
    """Prompt files added or modified by a push (removed ones have nothing to evaluate) → target.

    Paths come in commit order; the first glob that matches a path wins.
    """
    found: dict[str, PromptTarget] = {}
    for commit in push.commits:
        for path in [*commit.added, *commit.modified]:
            if path in found:
                continue
            target = next((t for glob, t in prompts.items() if glob_match(path, glob)), None)
            if target is not None:
                found[path] = target
    return found
