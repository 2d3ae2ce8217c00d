"""Creating runs, and the manifest that lets any step (replay, rescore, resume) find their inputs."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from polygon_core._hashing import content_hash
from polygon_core.models import Run

from ._common import Stores, _suite, agent_identity


def manifest_key(run_id: str) -> str:
    """Where a run's manifest lives in the artifact store."""
    return f"runs/{run_id}/manifest.json"


def create_run(stores: Stores, run: Run, *, suite_path: str | None = None,
               agent_path: str | None = None) -> Run:
    """Record a run before any conversation starts (kept as-is when resuming).

    A local artifact store is first cleared of temporary files that killed writes left behind.

    The manifest records the suite and agent files the run was made from, so one conversation can
    be replayed, re-judged or resumed later without the caller repeating them.
    """
    sweep = getattr(stores.artifacts, "sweep_temporaries", None)
    if sweep is not None:  # a local store: clear what a killed process left half-written
        sweep()
    existing = stores.repo.get_run(run.id, exact=True)
    if existing is not None:
        return existing
    manifest = {"run_id": run.id, "suite_path": suite_path, "agent_path": agent_path,
                "seeds": run.seeds, "rubric_version": run.rubric_version, "models": run.models}
    stores.artifacts.put_text(manifest_key(run.id), json.dumps(manifest, indent=2, sort_keys=True))
    stores.repo.save_run(run)
    return run


def run_manifest(stores: Stores, run_id: str) -> dict[str, Any]:
    """The manifest of a stored run ({} for runs made without one, e.g. imported calls)."""
    key = manifest_key(run_id)
    if not stores.artifacts.exists(key):
        return {}
    return json.loads(stores.artifacts.get_text(key))


ROLES = ("agent", "caller", "judge", "probe")


def role_models(settings: Any, suite_config: Any, agent_config: Any,
                flags: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """Each role's model: command line, then suite config (agent config for the agent), then settings.

    Every name is checked (and every provider's key) before anything runs; an error names the role and
    where its model came from.
    """
    from polygon_core.adapters.providers import make_chat_model, parse_model_name

    from ._dispatch import FITTED_PREFIX

    flags = flags or {}
    roles: dict[str, str] = {}
    for role in ROLES:
        if role == "agent":
            configured = agent_config.model if agent_config.model != "offline" else None
        else:
            configured = getattr(suite_config, f"{role}_model", None)
        name = flags.get(role) or configured or getattr(settings, f"{role}_model")
        source = (f"--{role}-model" if flags.get(role) else
                  ("agent config `model`" if role == "agent" else f"suite.yaml `{role}_model`") if configured
                  else f"POLYGON_{role.upper()}_MODEL={name!r}")
        try:
            if name.startswith(FITTED_PREFIX):
                roles[role] = _fitted_role(role, name, settings)
                continue
            spec = parse_model_name(name)
            if spec.provider != "offline":
                make_chat_model(name, settings)
        except ValueError as exc:
            raise ValueError(f"{role} model ({source}): {exc}") from None
        roles[role] = spec.name
    return roles


def _fitted_role(role: str, name: str, settings: Any) -> str:
    """A fitted judge (`fitted:<name>@<hash>`) may judge; it must be stored; it answers no probes."""
    if role != "judge":
        raise ValueError(f"{name!r} is a fitted judge: it can judge, not play the {role}")
    from polygon_core.adapters.stores import open_stores

    from ._dispatch import load_fitted_judge

    load_fitted_judge(open_stores(settings), name)
    return name


def new_run(agent_path: str, suite_path: str, *, seeds: Sequence[int] | None = None,
            rubric: str | None = None, run_id: str | None = None, roles: Mapping[str, str] | None = None,
            settings: Any = None) -> Run:
    """The Run record of one agent on one suite (not stored: `create_run` stores it).

    `roles` are the resolved role models (`role_models`); without them they are resolved here from
    the suite config, the agent config and `settings`. Another agent model is another agent version,
    since the model is part of what is under test. The clock is read here, at the edge.
    """
    from polygon_core.adapters.settings import load_settings
    from polygon_core.files import load_agent

    config, _prompt, version = agent_identity(agent_path, suite_path)
    suite = _suite(suite_path)
    if roles is None:
        roles = role_models(settings or load_settings(), suite.config, load_agent(agent_path).config)
    agent_model = roles.get("agent") or config.model
    if config.kind == "model" and agent_model != config.model:
        version = content_hash([version, agent_model], len(version))
    now = datetime.now(UTC)
    rid = run_id or f"run-{now:%Y%m%d-%H%M%S}-{content_hash([agent_path, version, now.isoformat()], 6)}"
    judge, probe = roles.get("judge", "offline"), roles.get("probe", "offline")
    models = {"agent": f"callable:{config.callable}" if config.callable else agent_model,
              "caller": roles.get("caller", "offline"),
              "judge": "offline-heuristic" if judge == "offline" else judge,
              "probe": "offline-heuristic" if probe == "offline" else probe}
    return Run(id=rid, suite=suite.name, agent_name=config.name, agent_version=version,
               rubric_version=rubric or suite.config.rubric,
               seeds=list(seeds) if seeds is not None else list(suite.config.seeds),
               models=models, created_at=now.isoformat())
