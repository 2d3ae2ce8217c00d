"""Replaying one stored conversation from its seeds and diffing it against the stored one."""

from __future__ import annotations

from pydantic import BaseModel, Field

from polygon_core.models import Conversation

from ._common import Stores, load_conversation
from ._runs import run_manifest


class TurnDiff(BaseModel):
    """One turn that differs between the stored and the replayed conversation."""

    turn: int
    field: str
    stored: str | None
    replayed: str | None


class ReplayDiff(BaseModel):
    """The result of a replay: the run and conversation, and every difference found."""

    run_id: str
    conversation_id: str
    differences: list[TurnDiff] = Field(default_factory=list)
    end_reason: tuple[str, str]

    @property
    def identical(self) -> bool:
        """Nothing differs."""
        return not self.differences and self.end_reason[0] == self.end_reason[1]


def _turn_fields(conv: Conversation) -> list[dict[str, str | None]]:
    return [{"speaker": t.speaker, "text": t.text, "heard": t.heard,
             "tool_calls": ", ".join(f"{c.name}{sorted(c.arguments.items())}->{c.error or 'ok'}"
                                     for c in t.tool_calls) or None,
             "end": t.end} for t in conv.turns]


def diff_conversations(stored: Conversation, replayed: Conversation) -> list[TurnDiff]:
    """Turn-by-turn differences (a missing turn on either side shows as None)."""
    a, b = _turn_fields(stored), _turn_fields(replayed)
    out = []
    for i in range(max(len(a), len(b))):
        left = a[i] if i < len(a) else {}
        right = b[i] if i < len(b) else {}
        for key in ("speaker", "text", "heard", "tool_calls", "end"):
            if left.get(key) != right.get(key):
                out.append(TurnDiff(turn=i, field=key, stored=left.get(key), replayed=right.get(key)))
    return out


def replay_conversation(stores: Stores, run_id: str, conversation_id: str) -> ReplayDiff:
    """Re-run one stored conversation from its run's manifest and seeds; nothing is stored."""
    import asyncio

    from polygon_core.adapters.agents import agent_factory
    from polygon_core.adapters.providers import aclose_all
    from polygon_core.callers import OfflineCaller
    from polygon_core.conversation import Limits, run_conversation

    from ._common import agent_identity

    manifest = run_manifest(stores, run_id)
    if not manifest.get("suite_path") or not manifest.get("agent_path"):
        raise ValueError(f"run {run_id!r} has no manifest with its suite and agent; it cannot be replayed")
    stored = load_conversation(stores, run_id, conversation_id)
    suite = stores.caches.suite(manifest["suite_path"])
    scenario = suite.scenario(stored.scenario_id)
    config, prompt, version = agent_identity(manifest["agent_path"], manifest["suite_path"], caches=stores.caches)
    caller = OfflineCaller(scenario.persona, conversation_id=stored.id, seed=stored.seed)
    agent = agent_factory(config)()

    async def go() -> Conversation:
        try:
            return await run_conversation(
                scenario, agent, caller, suite.tools, seed=stored.seed, agent_name=config.name,
                agent_version=version, prompt=prompt, limits=Limits(max_tool_steps=config.max_tool_steps),
                models=stored.models, homophones=suite.homophones)
        finally:
            await aclose_all(agent, caller)  # a model agent's SDK clients belong to this loop

    replayed = asyncio.run(go())
    return ReplayDiff(run_id=run_id, conversation_id=conversation_id,
                      differences=diff_conversations(stored, replayed),
                      end_reason=(stored.end_reason.value, replayed.end_reason.value))
