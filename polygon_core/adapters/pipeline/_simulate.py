"""Simulating one conversation and storing it."""

from __future__ import annotations

import asyncio

from ...callers import OfflineCaller
from ...checks import run_checks
from ...conversation import Limits, conversation_key, run_conversation
from ..agents import agent_factory
from ._common import Stores, _scenario, _suite, agent_identity, transcript_key


def simulate(stores: Stores, run_id: str, suite_path: str, agent_path: str, scenario_id: str,
             seed: int) -> str:
    """Run one conversation and store it; an already stored one is not run again (resume)."""
    suite = _suite(suite_path)
    scenario = _scenario(suite, scenario_id)
    cid = conversation_key(scenario, seed)
    if stores.repo.has_conversation(run_id, cid):
        return cid
    config, prompt, version = agent_identity(agent_path, suite_path)
    make_agent = agent_factory(config)
    caller = OfflineCaller(scenario.persona, conversation_id=cid, seed=seed)
    models = {"agent": f"callable:{config.callable}" if config.callable else config.model,
              "caller": "offline"}
    conv = asyncio.run(run_conversation(
        scenario, make_agent(), caller, suite.tools, seed=seed, agent_name=config.name,
        agent_version=version, prompt=prompt,
        limits=Limits(max_tool_steps=config.max_tool_steps), models=models))
    checks = run_checks(conv, scenario, forbidden_phrases=config.forbidden_phrases, tools=suite.tools)
    uri = stores.artifacts.put_text(transcript_key(run_id, cid), conv.model_dump_json(indent=2))
    stores.repo.save_conversation(run_id, conv, artifact_uri=uri, assertions=checks.assertions,
                                  metrics=checks.metrics.model_dump(mode="json"))
    return cid
