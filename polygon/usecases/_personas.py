"""Generated personas: generate an agent's, store them, and keep the library (list, export, import, pin).

The offline generator is the default; any other model name goes through `make_chat_model` (one
structured request per persona, see `polygon_core.personas.generate_with_model`). The library lives
in the artifact store only (`PersonaStore`): opening it opens no database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from polygon_core.adapters.persona_store import PersonaSelection, PersonaStore, records_from_result, use_personas
from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.files import load_agent
from polygon_core.personas import GenerationResult, PersonaRecord, generate_offline, generate_with_model

from ._common import Stores

__all__ = ["GenerationReport", "export_personas", "generate_for_agent", "generate_personas", "import_personas",
           "list_personas", "mark_stale_personas", "persona_prompt", "persona_records", "persona_run_suite",
           "pin_persona", "store_generation"]


@dataclass(frozen=True)
class GenerationReport:
    """What one generation stored for one agent."""

    agent: str
    prompt_hash: str
    stored: list[str]
    failed: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    marked_stale: list[str] = field(default_factory=list)
    generator: str = "offline"
    warnings: list[str] = field(default_factory=list)  # facts the prompt asks for that no persona has


def _library(settings: PolygonSettings | None = None) -> PersonaStore:
    # Settings are read here, at the edge, in whichever process (or worker) runs the call.
    settings = settings or load_settings()
    from polygon_core.adapters.artifacts import artifact_store_from_url

    return PersonaStore(artifact_store_from_url(settings.resolved_artifacts_url(),
                                                endpoint_url=settings.s3_endpoint_url))


def persona_prompt(agent_path: str | Path) -> tuple[str, str, str]:
    """(agent name, prompt text, prompt hash) of an agent file."""
    loaded = load_agent(Path(agent_path))
    if not loaded.prompt_text.strip():
        raise ValueError(f"{agent_path}: the agent has no prompt to generate personas from")
    return loaded.config.name, loaded.prompt_text, loaded.prompt_hash


def generate_for_agent(agent_path: str | Path, *, count: int = 12, seed: int = 0,
                       model: str = "offline", settings: PolygonSettings | None = None,
                       attempts: int = 2) -> GenerationResult:
    """Generate personas from an agent file's prompt (offline, or with the named model)."""
    _name, prompt, _hash = persona_prompt(agent_path)
    if model == "offline":
        return generate_offline(prompt, count=count, seed=seed)
    from polygon_core.adapters.providers import aclose_all, make_chat_model

    chat = make_chat_model(model, settings or load_settings())

    async def go() -> GenerationResult:
        try:
            return await generate_with_model(chat, prompt, count=count, seed=seed, attempts=attempts)
        finally:
            await aclose_all(chat)

    return asyncio.run(go())


def store_generation(agent_path: str | Path, result: GenerationResult, *,
                     settings: PolygonSettings | None = None) -> GenerationReport:
    """Mark the agent's personas of older prompts stale, then store this generation under its
    current prompt hash (failures as `failed`)."""
    agent, _prompt, prompt_hash = persona_prompt(agent_path)
    store = _library(settings)
    stale = [r.id for r in store.mark_stale(agent, prompt_hash)]
    records = records_from_result(result, agent=agent, prompt_hash=prompt_hash)
    stored = store.replace_generation(agent, prompt_hash, records)
    return GenerationReport(agent=agent, prompt_hash=prompt_hash,
                            stored=[i for i in stored if not i.startswith("failed-")],
                            failed=[f"{f.cell.label}: {f.error}" for f in result.failures],
                            dropped=list(result.dropped), marked_stale=stale,
                            generator=result.generator, warnings=list(result.warnings))


def generate_personas(agent_path: str | Path, *, count: int = 12, seed: int = 0,
                      model: str = "offline") -> GenerationReport:
    """Generate the agent's personas and store them (`polygon personas generate`)."""
    return store_generation(agent_path, generate_for_agent(agent_path, count=count, seed=seed, model=model))


def mark_stale_personas(agent_path: str | Path, *, settings: PolygonSettings | None = None) -> list[PersonaRecord]:
    """Mark the agent's personas made from an older prompt stale; returns them."""
    name, _prompt, current = persona_prompt(agent_path)
    return _library(settings).mark_stale(name, current)


def list_personas(agent: str | None = None, *, stale_only: bool = False) -> list[PersonaRecord]:
    """Stored personas (of one agent name when given; only stale ones with `stale_only`)."""
    return _library().list(agent, statuses=["stale"] if stale_only else None)


def persona_records(stores: Stores, agent: str | None = None) -> list[PersonaRecord]:
    """Stored personas in `stores`' artifact store (of one agent name when given)."""
    return PersonaStore(stores.artifacts).list(agent)


def export_personas(folder: Path, agent: str | None = None, *, include_stale: bool = False) -> list[Path]:
    """Write personas as YAML files for review and editing; returns the files written."""
    return _library().export(folder, agent, include_stale=include_stale)


def import_personas(paths: Iterable[Path], *, pin: bool = False) -> list[PersonaRecord]:
    """Store edited persona files (all are validated before any is stored), pinned when `pin`."""
    store = _library()
    records = store.import_files(paths)
    return [store.set_status(r, "pinned") for r in records] if pin else records


def pin_persona(persona: str, agent: str | None = None) -> PersonaRecord:
    """Pin a persona: it is kept as reviewed, never marked stale or replaced."""
    return _library().pin(persona, agent)


def persona_run_suite(suite: Path, agent: Path, *, allow_stale: bool = False) -> tuple[Path, PersonaSelection]:
    """The suite folder (under the Polygon home) that runs the agent's generated personas, and which
    personas it uses; StalePersonasError naming them when they are stale and not `allow_stale`."""
    settings = load_settings()
    return use_personas(_library(settings), suite, agent, settings.home.expanduser().absolute(),
                        allow_stale=allow_stale)
