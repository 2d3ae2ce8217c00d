"""The turn loop: caller speaks → noise → agent acts (tools) → agent speaks → …"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

from .._hashing import content_hash
from ..loops import is_loop
from ..models import (
    Conversation,
    EndReason,
    Persona,
    Scenario,
    ToolCall,
    ToolDef,
    Turn,
    Usage,
)
from ..noise import distort
from ..stubs import ToolEnvironment
from ._types import (
    Agent,
    AgentAction,
    AgentRequest,
    Caller,
    CallerUtterance,
    CallerView,
    HistoryItem,
    Line,
    Playback,
    ProviderFailure,
    SimulatorFailure,
)


@dataclass(frozen=True)
class Limits:
    """Per-conversation limits; `max_turns` of None means the scenario's."""

    max_turns: int | None = None
    max_tool_steps: int = 4
    wall_seconds: float | None = 300.0
    max_tokens: int | None = None


def persona_hash(persona: Persona) -> str:
    """Content hash of a persona (its facts and behaviour, not its generation stamp)."""
    return content_hash(persona.model_dump(mode="json", exclude={"prompt_version"}))


def conversation_key(scenario: Scenario, seed: int) -> str:
    """The stable id of a conversation: scenario, persona and seed (the resume key within a run).

    It leaves the agent out on purpose: noise and the caller are seeded from it, so two agent
    versions meet the same caller and the same recognition errors, and their conversations part
    only where the agents differ. It is stable across runs, so the same suite with the same seeds
    gives byte-identical transcripts.
    """
    return f"{scenario.id}-s{seed}-{content_hash([scenario.id, persona_hash(scenario.persona), seed], 8)}"


_WORDS_PER_TOKEN = 0.75


def _estimate_usage(prompt_words: int, reply: str) -> Usage:
    # Offline roles have no tokenizer; this estimate is labelled `estimated` everywhere it shows.
    return Usage(input_tokens=int(prompt_words / _WORDS_PER_TOKEN),
                 output_tokens=int(len(reply.split()) / _WORDS_PER_TOKEN), calls=1, estimated=True)


class _Loop:
    """State of one conversation while it runs."""

    def __init__(self, scenario: Scenario, agent: Agent, caller: Caller,
                 tools: Mapping[str, ToolDef], *, seed: int, conversation_id: str,
                 prompt: str | None, limits: Limits,
                 homophones: tuple[tuple[str, ...], ...] = (), line: Line | None = None) -> None:
        self.scenario, self.agent, self.caller, self.limits = scenario, agent, caller, limits
        self.line = line
        self.homophones = homophones
        self.seed, self.cid, self.prompt = seed, conversation_id, prompt
        names = [n for n in scenario.tools if n in tools]
        self.env = ToolEnvironment({n: tools[n] for n in names}, scenario.context,
                                   conversation_id=conversation_id, seed=seed)
        self.tool_schemas = self.env.schemas(names)
        self.turns: list[Turn] = []
        self.history: list[HistoryItem] = []
        self.usage: dict[str, Usage] = {"agent": Usage(), "caller": Usage()}  # estimated once one count is
        self.end_reason: EndReason | None = None
        self.end_detail: str | None = None

    def _add_usage(self, role: str, usage: Usage | None, reply: str) -> None:
        used = usage or _estimate_usage(sum(len(h.text.split()) for h in self.history), reply)
        self.usage[role] = self.usage[role].add(used)

    async def agent_turn(self, heard: str | None) -> Turn:
        """Let the agent act: tool steps until it speaks, bounded by max_tool_steps.

        The turn's latency is what the caller waited for it: the agent's own reply time at every
        step (`AgentAction.latency_ms`) plus the latency of the tool calls it made.
        """
        index = len(self.turns)
        calls: list[ToolCall] = []
        spoken: list[str] = []
        results: list[ToolCall] = []
        action = AgentAction()
        replying_ms = 0.0
        for step in range(self.limits.max_tool_steps + 1):
            request = AgentRequest(
                conversation_id=self.cid, turn=index, step=step, heard=heard if step == 0 else None,
                tool_results=results, history=list(self.history), tools=self.tool_schemas,
                prompt=self.prompt, language=self.scenario.language,
            )
            action = await self.agent.act(request)
            replying_ms += action.latency_ms
            self._add_usage("agent", action.usage, action.say)
            if action.say:
                spoken.append(action.say.strip())
            if not action.tool_calls or step == self.limits.max_tool_steps:
                break
            results = []
            for req in action.tool_calls:
                try:
                    call = self.env.call(req.name, req.arguments, turn=index)
                except Exception as exc:
                    # A broken stub is Polygon's (or the suite's) fault, never the agent's.
                    raise SimulatorFailure(f"tool stub {req.name!r} failed: {type(exc).__name__}: {exc}") from exc
                results.append(call)
                calls.append(call)
                self.history.append(HistoryItem(role="tool", tool_call=call))
        text = " ".join(spoken)
        end = action.end
        for call in calls:
            if call.valid and not call.error and (kind := self.env.ends_call(call.name)):
                end = end or kind  # type: ignore[assignment]
        turn = Turn(index=index, speaker="agent", text=text, tool_calls=calls, end=end,
                    latency_ms=replying_ms + sum(c.latency_ms for c in calls))
        self.turns.append(turn)
        self.history.append(HistoryItem(role="agent", text=text))
        return turn

    async def caller_turn(self, last_agent: Turn | None) -> tuple[Turn, CallerUtterance]:
        """Let the caller speak; the agent will hear it through recognition noise."""
        index = len(self.turns)
        said_to_caller = last_agent.text if last_agent else None
        if self.line is not None and last_agent is not None:
            said_to_caller = last_agent.heard or ""  # on a call the caller answers what reached it
        view = CallerView(conversation_id=self.cid, turn=index, persona=self.scenario.persona,
                          agent_said=said_to_caller,
                          agent_end=last_agent.end if last_agent else None,  # type: ignore[arg-type]
                          history=list(self.history), language=self.scenario.language)
        utterance = await self.caller.speak(view)
        self._add_usage("caller", utterance.usage, utterance.text)
        end = {"hangup": "hangup", "accept_transfer": None, "accept_callback": None}.get(utterance.end or "")
        if self.line is not None:
            if utterance.text:
                await self._interjections()
                index = len(self.turns)
                if self.end_reason is not None:  # gone before its line: nothing more is said
                    return Turn(index=index, speaker="caller", text="", heard=""), utterance
            return await self._caller_on_line(index, utterance, end), utterance
        heard, distortions = distort(utterance.text, self.scenario.noise, conversation_id=self.cid,
                                     turn=index, language=self.scenario.language,
                                     extra_homophones=self.homophones)
        turn = Turn(index=index, speaker="caller", text=utterance.text, heard=heard,
                    distortions=list(distortions), end=end)  # type: ignore[arg-type]
        if utterance.text or utterance.end is None:
            self.turns.append(turn)
            self.history.append(HistoryItem(role="caller", text=heard))
        return turn, utterance

    async def _caller_on_line(self, index: int, utterance: CallerUtterance, end: str | None) -> Turn:
        # On a call the agent hears the caller through synthesis, the line and its recogniser.
        assert self.line is not None
        if not utterance.text:
            turn = Turn(index=index, speaker="caller", text="", heard="", end=end)  # type: ignore[arg-type]
            if utterance.end is None:
                self.turns.append(turn)
                self.history.append(HistoryItem(role="caller", text=""))
            return turn
        got = await self.line.caller_spoke(index, utterance.text)
        turn = Turn(index=index, speaker="caller", text=utterance.text, heard=got.heard, end=end,  # type: ignore[arg-type]
                    start_ms=got.start_ms, end_ms=got.end_ms)
        self.turns.append(turn)
        self.history.append(HistoryItem(role="caller", text=got.heard))
        return turn

    async def _interjections(self) -> None:
        """Room speech the agent heard before the caller's line: a turn of its own, answered."""
        assert self.line is not None
        # One at a time: each is answered before the line places the next (`Line.interjections`).
        while said_now := await self.line.interjections(len(self.turns)):
            said = said_now[0]
            turn = Turn(index=len(self.turns), speaker="caller", kind=said.kind, text=said.text,
                        heard=said.heard, start_ms=said.start_ms, end_ms=said.end_ms)
            self.turns.append(turn)
            self.history.append(HistoryItem(role="caller", text=said.heard))
            reply = await self.agent_turn(said.heard)
            await self.play(reply)
            if self.end_reason is not None:  # the caller hung up waiting for that answer
                return

    async def play(self, turn: Turn) -> Playback | None:
        """On a call: voice the agent's turn on the line and keep its times (None in text)."""
        if self.line is None:
            return None
        played = await self.line.agent_spoke(turn)
        turn.start_ms, turn.end_ms = played.start_ms, played.end_ms
        turn.heard, turn.interrupted = played.heard, played.interrupted
        if played.hangup:
            self.finish(EndReason.CALLER_HANGUP, played.hangup)
        return played

    def finish(self, reason: EndReason, detail: str | None = None) -> None:
        if self.end_reason is None:
            self.end_reason, self.end_detail = reason, detail


async def _drive(loop: _Loop, max_turns: int) -> None:
    last_agent = await loop.agent_turn(None)
    await loop.play(last_agent)
    for _ in range(max_turns):
        if loop.end_reason is not None:  # the caller hung up on a silence (a call only)
            return
        if last_agent.end:
            reason = {"transfer": EndReason.TRANSFER, "callback": EndReason.CALLBACK}.get(
                last_agent.end, EndReason.AGENT_END)
            loop.finish(reason)
            return
        _, utterance = await loop.caller_turn(last_agent)
        if loop.end_reason is not None:
            return
        if utterance.end == "hangup":
            loop.finish(EndReason.CALLER_HANGUP)
            return
        last_agent = await loop.agent_turn(loop.turns[-1].heard)
        await loop.play(last_agent)
        if is_loop([t.text for t in loop.turns if t.speaker == "agent"]):
            loop.finish(EndReason.LOOP, f"agent repeated itself at turn {last_agent.index}")
            return
        if loop.limits.max_tokens is not None:
            used = sum(u.input_tokens + u.output_tokens for u in loop.usage.values())
            if used > loop.limits.max_tokens:
                loop.finish(EndReason.TIMEOUT, f"token limit {loop.limits.max_tokens} exceeded")
                return
    if last_agent.end:
        loop.finish({"transfer": EndReason.TRANSFER, "callback": EndReason.CALLBACK}.get(
            last_agent.end, EndReason.AGENT_END))
    loop.finish(EndReason.MAX_TURNS)


def agent_failure_detail(exc: BaseException) -> str:
    """How an agent's failure reads in `end_detail` (and so on the command line's error line).

    A failure that names its reason (a voice bot's `silent`, a line's `closed`: an exception with a
    `reason` code whose message is `<reason>: <what was seen>`) reads as that, without the class
    name; a failure wrapping a line fault of the same reason would say it twice (`closed: closed:
    ...`), once is enough. Any other exception reads as its type and message."""
    reason = getattr(exc, "reason", None)
    text = str(exc)
    if not isinstance(reason, str) or not reason or not text.startswith(f"{reason}: "):
        return f"{type(exc).__name__}: {text}"
    while text.startswith(f"{reason}: {reason}: "):
        text = text[len(reason) + 2:]
    return text


async def run_conversation(
    scenario: Scenario,
    agent: Agent,
    caller: Caller,
    tools: Mapping[str, ToolDef],
    *,
    seed: int,
    agent_name: str,
    agent_version: str,
    prompt: str | None = None,
    limits: Limits | None = None,
    models: Mapping[str, str] | None = None,
    homophones: tuple[tuple[str, ...], ...] = (),
    line: Line | None = None,
) -> Conversation:
    """Run one conversation to its end and return it; agent failures are end reasons, not raises.

    `homophones` are the suite's own sound-alike groups, added to the bundled ones for recognition
    noise (`Suite.homophones`). `line`: the conversation is a call (`polygon_core.voice.CallLine`):
    the caller is voiced through the line's conditions and the agent hears it through a recogniser
    instead of text noise; turns carry their times; the caller may hang up on a silence.
    """
    limits = limits or Limits()
    cid = conversation_key(scenario, seed)
    loop = _Loop(scenario, agent, caller, tools, seed=seed, conversation_id=cid, prompt=prompt,
                 limits=limits, homophones=homophones, line=line)
    max_turns = limits.max_turns or scenario.max_turns
    try:
        if limits.wall_seconds:
            await asyncio.wait_for(_drive(loop, max_turns), timeout=limits.wall_seconds)
        else:
            await _drive(loop, max_turns)
    except TimeoutError:
        loop.finish(EndReason.TIMEOUT, f"wall-time limit of {limits.wall_seconds} s")
    except ProviderFailure as exc:
        loop.finish(EndReason.PROVIDER_ERROR, str(exc))
    except SimulatorFailure as exc:
        loop.finish(EndReason.SIMULATOR_ERROR, str(exc))
    except Exception as exc:  # the agent under test may raise anything; that is its failure
        loop.finish(EndReason.AGENT_ERROR, agent_failure_detail(exc))
    return Conversation(
        id=cid, scenario_id=scenario.id, seed=seed, agent_name=agent_name,
        agent_version=agent_version, persona_hash=persona_hash(scenario.persona),
        caller_type=scenario.persona.type, difficulty=scenario.persona.difficulty,
        language=scenario.language, noise=scenario.noise, turns=loop.turns,
        end_reason=loop.end_reason or EndReason.MAX_TURNS, end_detail=loop.end_detail,
        events=list(loop.env.events), initial_state=dict(scenario.context),
        final_state=loop.env.state, clock_ms=loop.env.clock_ms, usage=loop.usage,
        models=dict(models or {}), channel="text" if line is None else "voice",
    )
