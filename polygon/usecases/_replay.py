"""Replaying one stored conversation from its seeds and diffing it against the stored one."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from polygon_core.conversation import CallerUtterance, CallerView, SimulatorFailure
from polygon_core.models import Conversation

from ._call_line import line_for, open_line
from ._calls import call_audio
from ._common import Stores, load_conversation
from ._runs import run_manifest


class TurnDiff(BaseModel):
    """One turn that differs between the stored and the replayed conversation."""

    turn: int = Field(..., description="the turn's index; -1 for the call as a whole (its audio)")
    field: str
    stored: str | None
    replayed: str | None


class ReplayDiff(BaseModel):
    """The result of a replay: the run and conversation, and every difference found."""

    run_id: str
    conversation_id: str
    differences: list[TurnDiff] = Field(default_factory=list)
    end_reason: tuple[str, str]
    agent_version: str = ""
    caller: str = Field("offline", description="the run's caller: `offline` (run again from its seed) "
                        "or a model name (its stored lines said again; the model is not called)")

    @property
    def identical(self) -> bool:
        """Nothing differs."""
        return not self.differences and self.end_reason[0] == self.end_reason[1]


_FIELDS = ("speaker", "text", "heard", "tool_calls", "end")
_CALL_FIELDS = ("kind", "start_ms", "end_ms", "interrupted")  # a call's turns also keep their times


def _turn_fields(conv: Conversation) -> list[dict[str, str | None]]:
    def call(t: Any) -> dict[str, str | None]:
        return {key: None if getattr(t, key) is None else str(getattr(t, key)) for key in _CALL_FIELDS}

    return [{"speaker": t.speaker, "text": t.text, "heard": t.heard,
             "tool_calls": ", ".join(f"{c.name}{sorted(c.arguments.items())}->{c.error or 'ok'}"
                                     for c in t.tool_calls) or None,
             "end": t.end, **(call(t) if conv.channel == "voice" else {})} for t in conv.turns]


def diff_conversations(stored: Conversation, replayed: Conversation) -> list[TurnDiff]:
    """Turn-by-turn differences (a missing turn on either side shows as None); on a call, also each
    turn's kind, times and interruption."""
    a, b = _turn_fields(stored), _turn_fields(replayed)
    keys = _FIELDS + (_CALL_FIELDS if "voice" in (stored.channel, replayed.channel) else ())
    out = []
    for i in range(max(len(a), len(b))):
        left = a[i] if i < len(a) else {}
        right = b[i] if i < len(b) else {}
        for key in keys:
            if left.get(key) != right.get(key):
                out.append(TurnDiff(turn=i, field=key, stored=left.get(key), replayed=right.get(key)))
    return out


class StoredCaller:
    """A model caller's stored lines, said again in order.

    A model caller samples (temperature 0.7), so calling it again would put its own differences
    into the diff and blame the agent for them; a replay asks whether the agent, hearing the same
    caller, answers the same. Noise is applied again by the engine from the same seeds.
    """

    def __init__(self, stored: Conversation, model: str) -> None:
        # On a call, room speech the agent answered (an aside, a tic) came from the line, not the caller.
        self._lines = [t for t in stored.turns if t.speaker == "caller" and t.kind == "speech"]
        self._model = model
        # A hang-up with nothing said is not stored as a turn: the end reason keeps it.
        self._silent_hangup = stored.end_reason.value == "caller_hangup" and not (
            self._lines and self._lines[-1].end == "hangup")

    async def speak(self, view: CallerView) -> CallerUtterance:
        """The next stored line (with its hang-up); past the last one, the stored silent hang-up,
        else a simulator failure: the replayed agent went on where the stored caller had no line."""
        if self._lines:
            turn = self._lines.pop(0)
            return CallerUtterance(text=turn.text, end="hangup" if turn.end == "hangup" else None)
        if self._silent_hangup:
            self._silent_hangup = False
            return CallerUtterance(text="", end="hangup")
        raise SimulatorFailure(f"turn {view.turn}: the stored conversation has no caller line left to "
                               f"replay (caller {self._model})")


def replay_conversation(stores: Stores, run_id: str, conversation_id: str) -> ReplayDiff:
    """Re-run one stored conversation from its run's manifest, models and seeds; nothing is stored.

    The agent is the run's (its files, a Python agent's code included, must still be the version
    the run was made by: `check_run_agent`; the model is the run's agent model). An offline caller is run again from its seed; a model caller's stored
    lines are said again (`StoredCaller`).
    """
    import asyncio

    from polygon_core.adapters.agents import agent_factory
    from polygon_core.adapters.providers import aclose_all
    from polygon_core.callers import OfflineCaller
    from polygon_core.conversation import Limits, run_conversation
    from polygon_core.files import agent_folders

    from ._versions import check_run_agent

    manifest = run_manifest(stores, run_id)
    if not manifest.get("suite_path") or not manifest.get("agent_path"):
        raise ValueError(f"run {run_id!r} has no manifest with its suite and agent; it cannot be replayed")
    run = stores.repo.get_run(run_id, exact=True)
    stored = load_conversation(stores, run_id, conversation_id)
    suite = stores.caches.suite(manifest["suite_path"])
    scenario = suite.scenario(stored.scenario_id)
    # As `rescore` does: replaying a changed agent against the stored transcript would report its
    # changes as non-determinism (or, worse, "no differences" for a different agent).
    config, prompt, version = check_run_agent(
        stores, run_id, run.agent_version if run else stored.agent_version, manifest["agent_path"],
        manifest["suite_path"], would="a replay would run a different agent",
        fix="restore the agent's files as they were, or `polygon run` the new version")
    if config.voice is not None and config.voice.url:
        raise ValueError(f"conversation {conversation_id!r} of run {run_id!r} is a call to a voice bot "
                         f"({config.voice.url}): a real-time call to a deployed bot cannot be replayed")
    models = dict(run.models) if run is not None else {}
    caller_model = models.get("caller", "offline")
    caller: Any = (OfflineCaller(scenario.persona, conversation_id=stored.id, seed=stored.seed)
                   if caller_model == "offline" else StoredCaller(stored, caller_model))
    agent_model = models.get("agent") if config.kind == "model" else None
    agent = agent_factory(config, model_name=agent_model, settings=stores.settings,
                          folders=agent_folders(manifest["agent_path"], manifest["suite_path"]))()
    plan = line_for(stores, run_id, suite, scenario, config, manifest)
    line = None if plan is None else open_line(stores, plan, scenario, config, conversation_id=stored.id,
                                               seed=stored.seed)

    async def go() -> Conversation:
        try:
            return await run_conversation(
                scenario, agent, caller, suite.tools, seed=stored.seed, agent_name=config.name,
                agent_version=version, prompt=prompt, limits=Limits(max_tool_steps=config.max_tool_steps),
                models=stored.models, homophones=suite.homophones, line=line)
        finally:
            await aclose_all(agent, caller)  # a model agent's SDK clients belong to this loop

    replayed = asyncio.run(go())
    differences = diff_conversations(stored, replayed)
    if line is not None:
        differences += _audio_diff(stores, run_id, stored, line)
    return ReplayDiff(run_id=run_id, conversation_id=conversation_id,
                      differences=differences,
                      end_reason=(stored.end_reason.value, replayed.end_reason.value),
                      agent_version=version, caller=caller_model)


def _audio_diff(stores: Stores, run_id: str, stored: Conversation, line: Any) -> list[TurnDiff]:
    """A call's replayed audio against the stored WAV (by SHA-256): same seeds, same bytes."""
    import hashlib

    def digest(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()[:16]

    try:
        before = digest(call_audio(stores, run_id, stored.id))
    except FileNotFoundError:
        before = None
    after = digest(line.render())
    return [] if before == after else [TurnDiff(turn=-1, field="audio", stored=before, replayed=after)]
