"""Simulating one conversation and storing it."""

from __future__ import annotations

import asyncio
from typing import Any

from polygon_core.adapters.agents import agent_factory
from polygon_core.adapters.callers import ModelCaller
from polygon_core.adapters.providers import UsageMeter, ledger_key, make_chat_model
from polygon_core.callers import OfflineCaller
from polygon_core.checks import run_checks
from polygon_core.conversation import Limits, conversation_key, run_conversation
from polygon_core.personas import apply_simulator_check

from ._common import Stores, _scenario, _suite, agent_identity, transcript_key


def simulate(stores: Stores, run_id: str, suite_path: str, agent_path: str, scenario_id: str,
             seed: int) -> str:
    """Run one conversation and store it; an already stored one is not run again (resume).

    The agent's and caller's models are the run's (`Run.models`, chosen on the command line, in the
    suite or agent config, or in settings); model usage and retries go to a ledger artifact.
    """
    suite = _suite(suite_path)
    scenario = _scenario(suite, scenario_id)
    cid = conversation_key(scenario, seed)
    if stores.repo.has_conversation(run_id, cid):
        return cid
    config, prompt, version = agent_identity(agent_path, suite_path)
    key = transcript_key(run_id, cid)
    if stores.artifacts.exists(key):
        # Simulated before, but its row was never written (a failed write, a killed worker): write
        # it now. A retry must never pay for the conversation twice.
        from polygon_core.models import Conversation

        conv = Conversation.model_validate_json(stores.artifacts.get_text(key))
        _store(stores, run_id, conv, stores.artifacts.uri(key), scenario, config, suite)
        return cid
    run = stores.repo.get_run(run_id)
    run_models = dict(run.models) if run is not None else {}
    meter = UsageMeter()
    agent_model = run_models.get("agent") if config.kind == "model" else None
    make_agent = agent_factory(config, model_name=agent_model, settings=stores.settings, meter=meter)
    caller_model = run_models.get("caller", "offline")
    caller: Any
    if caller_model == "offline":
        caller = OfflineCaller(scenario.persona, conversation_id=cid, seed=seed)
    else:
        caller = ModelCaller(scenario.persona, make_chat_model(caller_model, stores.settings, meter=meter),
                             conversation_id=cid, seed=seed, language=scenario.language)
    models = {"agent": f"callable:{config.callable}" if config.callable else (agent_model or config.model),
              "caller": caller_model}
    agent = make_agent()

    async def go() -> Any:
        try:
            return await run_conversation(
                scenario, agent, caller, suite.tools, seed=seed, agent_name=config.name,
                agent_version=run.agent_version if run is not None else version, prompt=prompt,
                limits=Limits(max_tool_steps=config.max_tool_steps), models=models,
                homophones=suite.homophones)
        finally:
            for part in (agent, caller):
                close = getattr(part, "aclose", None)
                if close is not None:
                    await close()

    conv = asyncio.run(go())
    # A conversation the simulated caller spoiled is flagged simulator_error: kept out of the rates.
    conv = apply_simulator_check(conv, scenario.persona)
    if meter.roles:
        stores.artifacts.put_text(ledger_key(run_id, "simulate", cid), meter.to_json())
    uri = stores.artifacts.put_text(key, conv.model_dump_json(indent=2))
    _store(stores, run_id, conv, uri, scenario, config, suite)
    return cid


def _store(stores: Stores, run_id: str, conv: Any, uri: str, scenario: Any, config: Any, suite: Any) -> None:
    """The conversation's row, with its deterministic checks (the transcript is already stored)."""
    checks = run_checks(conv, scenario, forbidden_phrases=config.forbidden_phrases, tools=suite.tools)
    stores.repo.save_conversation(run_id, conv, artifact_uri=uri, assertions=checks.assertions,
                                  metrics=checks.metrics.model_dump(mode="json"))
