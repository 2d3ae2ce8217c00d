"""A run's agent version and its parts: recorded when the run is made, checked before a replay or a
re-score (docs/design.md, "Agent versions")."""

from __future__ import annotations

from typing import Any

from polygon_core import content_hash
from polygon_core.files import VersionPart, changed_parts
from polygon_core.models import AgentConfig, Run

from ._common import FileCaches, Stores, agent_parts

MANIFEST_KEY = "agent_version_parts"  # the manifest's list of the parts the run's version hashes


def run_agent_version(config: AgentConfig, version: str, agent_model: str | None) -> str:
    """The version a run of this agent records: another model for a model agent (`--agent-model`,
    `POLYGON_AGENT_MODEL`) is another version, since the model is part of what is under test."""
    if config.kind == "model" and agent_model and agent_model != config.model:
        return content_hash([version, agent_model], len(version))
    return version


def run_parts(agent_path: str, suite_path: str, run: Run, *,
              caches: FileCaches | None = None) -> list[VersionPart] | None:
    """The parts of `run.agent_version` as the agent's files are now, for its manifest: None when
    they no longer make that version (the files changed since the version was read)."""
    caches = caches or FileCaches()
    config, _prompt = caches.agent(agent_path)
    version, parts = agent_parts(agent_path, suite_path, caches=caches)
    model = run.models.get("agent")
    if run_agent_version(config, version, model) != run.agent_version:
        return None
    if run.agent_version != version and model:
        parts.append(VersionPart(kind="model", name=model))
    return parts


def stored_parts(manifest: dict[str, Any]) -> list[VersionPart] | None:
    """The parts a run's manifest recorded (None for runs made before parts were recorded)."""
    found = manifest.get(MANIFEST_KEY)
    if not isinstance(found, list):
        return None
    return [VersionPart.model_validate(part) for part in found]


def run_version_parts(stores: Stores, run_id: str) -> list[VersionPart] | None:
    """The parts the run's agent version hashes, as recorded when the run was made (None when the
    run has no record of them: made before they were recorded, or imported)."""
    from ._runs import run_manifest

    return stored_parts(run_manifest(stores, run_id))


def check_run_agent(stores: Stores, run_id: str, stored_version: str, agent_path: str, suite_path: str,
                    *, would: str, fix: str) -> tuple[AgentConfig, str, str]:
    """The agent's config, prompt and version, after checking it is still the version the run was
    made by; otherwise a one-line ValueError naming both versions and the part that changed.

    `would` says what going on would do (`a replay would run a different agent`), `fix` what to do.
    """
    from ._common import agent_identity
    from ._runs import run_manifest

    config, prompt, version = agent_identity(agent_path, suite_path, caches=stores.caches)
    run = stores.repo.get_run(run_id, exact=True)
    model = run.models.get("agent") if run is not None else None
    now = run_agent_version(config, version, model)
    if now == stored_version:
        return config, prompt, version
    before = stored_parts(run_manifest(stores, run_id))
    what = ""
    if before is not None and run is not None:
        after = run_parts(agent_path, suite_path, run.model_copy(update={"agent_version": now}),
                          caches=stores.caches)
        changes = changed_parts(before, after or [])
        if changes:
            more = f"; {len(changes) - 3} more" if len(changes) > 3 else ""
            what = f" (changed: {'; '.join(changes[:3])}{more})"
    raise ValueError(f"run {run_id!r} was made by agent version {stored_version[:12]}, but {agent_path} is "
                     f"now version {now[:12]}{what}; {would} ({fix})")
