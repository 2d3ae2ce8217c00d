"""Simulating one conversation and storing it.

Three parts, so one event loop can hold hundreds of conversations: `_prepare` (reads, off the loop),
the turn loop itself (`_Pending.converse`, on the loop: it only waits on the agent and the caller)
and `_finish` (the simulator check, the transcript and the row, off the loop). `simulate` runs
them one after another; `simulate_async` is the same inside a running loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from polygon_core.adapters.agents import agent_factory
from polygon_core.adapters.callers import ModelCaller
from polygon_core.adapters.providers import UsageMeter, aclose_all, ledger_key, make_chat_model
from polygon_core.callers import OfflineCaller
from polygon_core.checks import run_checks
from polygon_core.conversation import Limits, conversation_key, run_conversation
from polygon_core.files import agent_folders
from polygon_core.models import STORED, Conversation, LineConditions, Run
from polygon_core.personas import apply_simulator_check

from ._call_line import CallPlan, call_bot, close_line, line_for, open_line
from ._common import Stores, _scenario, agent_identity, agent_label, transcript_key


@dataclass
class _Pending:
    """Everything one conversation needs to run, built before the turn loop starts."""

    run_id: str
    cid: str
    key: str
    scenario: Any
    suite: Any
    config: Any
    agent: Any
    caller: Any
    meter: UsageMeter
    kwargs: dict[str, Any]
    line: Any = None  # a call's `CallLine` (None: a text conversation)
    bot: CallPlan | None = None  # the line of a call to a voice bot (`voice.url`), dialled in `converse`
    stores: Any = None

    async def converse(self) -> Conversation:
        """The turn loop; agent and caller are closed whatever happens (on a loop that runs many
        conversations, the SDK clients they share stay open: `providers.shared_loop_clients`)."""
        if self.bot is not None:  # a voice bot: dialled, on a real-time line
            conv, self.line = await call_bot(self.stores, self.bot, self.scenario, self.config, self.suite.tools,
                                             conversation_id=self.cid, caller=self.caller, **self.kwargs)
            return conv
        try:
            return await run_conversation(self.scenario, self.agent, self.caller, self.suite.tools,
                                          line=self.line, **self.kwargs)
        finally:
            await aclose_all(self.agent, self.caller)


@dataclass(frozen=True)
class Simulated:
    """One simulated conversation: `conversation` when it was run (or recovered) now, else None."""

    conversation_id: str
    conversation: Conversation | None
    fresh: bool  # False: its row was already stored (a resumed run, a retried task)


def simulate(stores: Stores, run_id: str, suite_path: str, agent_path: str, scenario_id: str,
             seed: int) -> str:
    """Run one conversation and store it; an already stored one is not run again (resume).

    The agent's and caller's models are the run's (`Run.models`, chosen on the command line, in the
    suite or agent config, or in settings); model usage and retries go to a ledger artifact.
    """
    ready = _prepare(stores, run_id, suite_path, agent_path, scenario_id, seed)
    if not isinstance(ready, _Pending):
        return ready.conversation_id
    return _finish(stores, ready, asyncio.run(ready.converse())).id


async def simulate_async(stores: Stores, run_id: str, suite_path: str, agent_path: str, scenario_id: str,
                         seed: int, *, run: Run | None = None) -> Simulated:
    """`simulate` inside a running event loop: only the turn loop runs on it; reads, checks and
    writes go to the loop's default executor."""
    ready = await asyncio.to_thread(_prepare, stores, run_id, suite_path, agent_path, scenario_id, seed, run)
    if not isinstance(ready, _Pending):
        return ready
    conv = await ready.converse()
    return Simulated(ready.cid, await asyncio.to_thread(_finish, stores, ready, conv), fresh=True)


def _prepare(stores: Stores, run_id: str, suite_path: str, agent_path: str, scenario_id: str, seed: int,
             run: Run | None = None) -> _Pending | Simulated:
    suite = stores.caches.suite(suite_path)
    scenario = _scenario(suite, scenario_id)
    cid = conversation_key(scenario, seed)
    if stores.repo.has_conversation(run_id, cid):
        return Simulated(cid, None, fresh=False)
    config, prompt, version = agent_identity(agent_path, suite_path, caches=stores.caches)
    key = transcript_key(run_id, cid)
    if stores.artifacts.exists(key):
        # Simulated before, but its row was never written (a failed write, a killed worker): write
        # it now. A retry must never pay for the conversation twice.
        conv = Conversation.model_validate_json(stores.artifacts.get_text(key), context=STORED)
        _store(stores, run_id, conv, stores.artifacts.uri(key), scenario, config, suite)
        return Simulated(cid, conv, fresh=True)
    run = run or stores.repo.get_run(run_id)
    run_models = dict(run.models) if run is not None else {}
    meter = UsageMeter()
    agent_model = run_models.get("agent") if config.kind == "model" else None
    bot_url = config.voice.url if config.voice is not None else None
    make_agent = (lambda: None) if bot_url else agent_factory(
        config, model_name=agent_model, settings=stores.settings, meter=meter,
        folders=agent_folders(agent_path, suite_path))
    caller_model = run_models.get("caller", "offline")
    caller: Any
    if caller_model == "offline":
        caller = OfflineCaller(scenario.persona, conversation_id=cid, seed=seed)
    else:
        caller = ModelCaller(scenario.persona, make_chat_model(caller_model, stores.settings, meter=meter),
                             conversation_id=cid, seed=seed, language=scenario.language)
    models = {"agent": agent_label(config, agent_model), "caller": caller_model}
    kwargs = {"seed": seed, "agent_name": config.name,
              "agent_version": run.agent_version if run is not None else version, "prompt": prompt,
              "limits": Limits(max_tool_steps=config.max_tool_steps), "models": models,
              "homophones": suite.homophones}
    plan = line_for(stores, run_id, suite, scenario, config)
    if bot_url:  # a voice bot is only ever a call (on the phone preset unless the run says otherwise)
        bot = plan or CallPlan(conditions=LineConditions(preset="phone"), noise_paths=[], stt_model=None)
        return _Pending(run_id, cid, key, scenario, suite, config, None, caller, meter, kwargs, None, bot, stores)
    line = None if plan is None else open_line(stores, plan, scenario, config, conversation_id=cid, seed=seed)
    return _Pending(run_id, cid, key, scenario, suite, config, make_agent(), caller, meter, kwargs, line)


def _finish(stores: Stores, ready: _Pending, conv: Conversation) -> Conversation:
    # A conversation the simulated caller spoiled is flagged simulator_error: kept out of the rates.
    conv = apply_simulator_check(conv, ready.scenario.persona)
    if ready.line is not None:  # the call's audio and timeline go in before its transcript
        conv = close_line(stores, ready.run_id, ready.line, conv)
    if ready.meter.roles:
        stores.artifacts.put_text(ledger_key(ready.run_id, "simulate", ready.cid), ready.meter.to_json())
    uri = stores.artifacts.put_text(ready.key, conv.model_dump_json(indent=2))
    _store(stores, ready.run_id, conv, uri, ready.scenario, ready.config, ready.suite)
    return conv


def _store(stores: Stores, run_id: str, conv: Any, uri: str, scenario: Any, config: Any, suite: Any) -> None:
    """The conversation's row, with its deterministic checks (the transcript is already stored)."""
    checks = run_checks(conv, scenario, forbidden_phrases=config.forbidden_phrases, tools=suite.tools)
    stores.repo.save_conversation(run_id, conv, artifact_uri=uri, assertions=checks.assertions,
                                  metrics=checks.metrics.model_dump(mode="json"))
