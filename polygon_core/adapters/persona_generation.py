"""Generating an agent's personas at the edge: load the agent, pick the generator, store the result.

The offline generator is the default; any other model name goes through `make_chat_model` (one
structured request per persona, see `polygon_core.personas.generate_with_model`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from ..files import load_agent
from ..personas import GenerationResult, generate_offline, generate_with_model
from .persona_store import PersonaStore, records_from_result
from .settings import PolygonSettings

__all__ = ["GenerationReport", "agent_prompt", "generate_for_agent", "store_generation"]


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


def agent_prompt(agent_path: str | Path) -> tuple[str, str, str]:
    """(agent name, prompt text, prompt hash) of an agent file."""
    loaded = load_agent(Path(agent_path))
    if not loaded.prompt_text.strip():
        raise ValueError(f"{agent_path}: the agent has no prompt to generate personas from")
    return loaded.config.name, loaded.prompt_text, loaded.prompt_hash


def generate_for_agent(agent_path: str | Path, *, count: int = 12, seed: int = 0,
                       model: str = "offline", settings: PolygonSettings | None = None,
                       attempts: int = 2) -> GenerationResult:
    """Generate personas from an agent file's prompt (offline, or with the named model)."""
    _name, prompt, _hash = agent_prompt(agent_path)
    if model == "offline":
        return generate_offline(prompt, count=count, seed=seed)
    from .providers import aclose_all, make_chat_model
    from .settings import load_settings

    chat = make_chat_model(model, settings or load_settings())

    async def go() -> GenerationResult:
        try:
            return await generate_with_model(chat, prompt, count=count, seed=seed, attempts=attempts)
        finally:
            await aclose_all(chat)

    return asyncio.run(go())


def store_generation(store: PersonaStore, agent: str, prompt_hash: str,
                     result: GenerationResult) -> GenerationReport:
    """Mark older prompts' personas stale, then store this generation (failures as `failed`)."""
    stale = [r.id for r in store.mark_stale(agent, prompt_hash)]
    records = records_from_result(result, agent=agent, prompt_hash=prompt_hash)
    stored = store.replace_generation(agent, prompt_hash, records)
    return GenerationReport(agent=agent, prompt_hash=prompt_hash,
                            stored=[i for i in stored if not i.startswith("failed-")],
                            failed=[f"{f.cell.label}: {f.error}" for f in result.failures],
                            dropped=list(result.dropped), marked_stale=stale,
                            generator=result.generator)
