"""Creating runs, and the manifest that lets any step (replay, rescore, resume) find their inputs."""

from __future__ import annotations

import json
from typing import Any

from ...models import Run
from ._common import Stores


def manifest_key(run_id: str) -> str:
    """Where a run's manifest lives in the artifact store."""
    return f"runs/{run_id}/manifest.json"


def create_run(stores: Stores, run: Run, *, suite_path: str | None = None,
               agent_path: str | None = None) -> Run:
    """Record a run before any conversation starts (kept as-is when resuming).

    The manifest records the suite and agent files the run was made from, so one conversation can
    be replayed, re-judged or resumed later without the caller repeating them.
    """
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
