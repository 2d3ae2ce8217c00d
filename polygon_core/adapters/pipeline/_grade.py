"""Judge and probe passes over stored conversations."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...checks import Checks, run_checks
from ...conversation import ProviderFailure
from ...judging import (
    HEURISTIC_JUDGE,
    answer_probes_offline,
    build_judgment,
    judge_offline,
    judge_request,
    probe_request,
    read_judge_reply,
    read_probe_reply,
    to_probe_answers,
)
from ...models import (
    UNSCORED_END_REASONS,
    Conversation,
    Judgment,
    ProbeAnswer,
    Run,
)
from ...probes import Probe, default_probes, load_probes
from ...scoring import get_rubric
from ..providers import UsageMeter, ledger_key, make_chat_model
from ._common import Stores, _agent, _suite, load_conversation

_OFFLINE = ("offline", HEURISTIC_JUDGE)


def _role_model(run: Run, role: str) -> str:
    return run.models.get(role) or HEURISTIC_JUDGE


def _ask(stores: Stores, run_id: str, step: str, conversation_id: str, model_name: str,
         requests: list[Any]) -> list[Any]:
    """Send requests to a role's model (in one event loop) and write the step's usage ledger."""
    meter = UsageMeter()
    model = make_chat_model(model_name, stores.settings, meter=meter)

    async def go() -> list[Any]:
        try:
            return [await model.chat(r) for r in requests]
        finally:
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()

    try:
        return asyncio.run(go())
    finally:
        stores.artifacts.put_text(ledger_key(run_id, step, conversation_id), meter.to_json())


def judge_requests(conv: Conversation, *, rubric: Any, persona: Any, instructions: str | None,
                   checks: Checks, repeats: int) -> list[Any]:
    """The k requests of a k-repeat model judge: one per repeat, with distinct seeds (the same
    seed would just replay one reply). Live, batch and production judging all send these."""
    base = judge_request(conv, rubric=rubric, persona=persona, instructions=instructions, checks=checks)
    return [base.model_copy(update={"seed": ((base.seed or 0) + i) % (2**31)}) for i in range(repeats)]


def model_judge(stores: Stores, run_id: str, conv: Conversation, model: str, *, rubric_version: str,
                persona: Any, agent_path: str | None, checks: Checks,
                repeats: int) -> list[dict[str, Any]] | None:
    """k raw passes of a model judge (with the agent's instructions when its file is known);
    None when the model failed after its retries. Usage goes to the run's ledger."""
    rubric = get_rubric(rubric_version)
    instructions = _agent(agent_path)[1] if agent_path else None
    requests = judge_requests(conv, rubric=rubric, persona=persona, instructions=instructions,
                              checks=checks, repeats=repeats)
    try:
        replies = _ask(stores, run_id, "judge", conv.id, model, requests)
    except ProviderFailure:
        return None
    return [read_judge_reply(r, rubric) for r in replies]


def _checks(stores: Stores, run: Run, suite_path: str | None, agent_path: str | None,
            conv: Conversation) -> tuple[Checks, Any]:
    scenario = None
    forbidden: list[str] = []
    tools = None
    if suite_path:
        suite = _suite(suite_path)
        scenario = next((s for s in suite.scenarios if s.id == conv.scenario_id), None)
        tools = suite.tools
    if agent_path:
        forbidden = list(_agent(agent_path)[0].forbidden_phrases)
    return run_checks(conv, scenario, forbidden_phrases=forbidden, tools=tools), scenario


def forbidden_phrases(scenario: Any, agent_path: str | None) -> list[str]:
    """The phrases the forbidden-phrase gate fires on: the scenario's and the agent's."""
    return [*(scenario.forbidden_phrases if scenario is not None else []),
            *(_agent(agent_path)[0].forbidden_phrases if agent_path else [])]


def probes_for(scenario: Any, library: list[Probe]) -> list[Probe]:
    """The probes one conversation is asked: a scenario that lists its probes gets only those."""
    if scenario is None or scenario.probes is None:
        return library
    wanted = set(scenario.probes)
    return [p for p in library if p.id in wanted]


def judge(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, rubric_version: str, repeats: int = 1) -> Judgment:
    """One judge pass (offline heuristic) over one stored conversation, stored as a new judgment."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    conv = load_conversation(stores, run_id, conversation_id)
    model_name = _role_model(run, "judge")
    if conv.end_reason in UNSCORED_END_REASONS:
        # Provider and simulator failures say nothing about the agent: never scored, nothing stored.
        return Judgment(conversation_id=conv.id, rubric_version=rubric_version, judge_model=model_name,
                        repeats=0)
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    persona = scenario.persona if scenario else None
    phrases = forbidden_phrases(scenario, agent_path)
    if model_name in _OFFLINE:
        raws = [judge_offline(conv, checks, persona)] * repeats
        model_name = HEURISTIC_JUDGE
    else:
        raws = model_judge(stores, run_id, conv, model_name, rubric_version=rubric_version, persona=persona,
                           agent_path=agent_path, checks=checks, repeats=repeats)
        if raws is None:
            # The judge's model failed after its retries: no judgment, rather than a made-up one.
            return Judgment(conversation_id=conv.id, rubric_version=rubric_version, judge_model=model_name,
                            repeats=0)
    judgment = build_judgment(conv, raws, rubric_version=rubric_version,
                              judge_model=model_name, forbidden_phrases=phrases)
    stores.repo.save_judgment(run_id, judgment)
    return judgment


def probe(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, probes_path: str | None = None) -> list[ProbeAnswer]:
    """Answer the probes on one stored conversation (own pass, never touching the verdict)."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    conv = load_conversation(stores, run_id, conversation_id)
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    probes = probes_for(scenario, load_probes(Path(probes_path)) if probes_path else default_probes())
    model_name = _role_model(run, "probe")
    if conv.end_reason in UNSCORED_END_REASONS or not probes:
        return []
    if model_name in _OFFLINE:
        answers = answer_probes_offline(conv, checks, probes)
    else:
        try:
            (reply,) = _ask(stores, run_id, "probe", conv.id, model_name,
                            [probe_request(conv, probes, checks=checks)])
        except ProviderFailure:
            return []
        answers = to_probe_answers(conv.id, probes, read_probe_reply(reply, probes), answered_by=model_name)
    stores.repo.save_probe_answers(run_id, answers)
    return answers


# --- re-scoring and re-probing stored runs (`polygon rescore`, `polygon probe`) -----------------

OFFLINE_NAMES = frozenset(_OFFLINE)


@dataclass
class RescoreResult:
    """What a rescore or probe pass over a stored run did."""

    run_id: str
    added: int = 0
    skipped: list[str] = field(default_factory=list)  # already judged by this judge: kept as stored
    unscored: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    judge_model: str = HEURISTIC_JUDGE
    rubric_version: str | None = None


def _run_inputs(stores: Stores, run_id: str, suite_path: str | None,
                agent_path: str | None) -> tuple[Run, str, str]:
    """The run and the suite and agent files it was made from (explicit paths win over the manifest).

    Refuses when the agent's version no longer matches the run's: re-judging against changed
    instructions or forbidden phrases would silently grade a different agent.
    """
    from ._common import agent_identity
    from ._runs import run_manifest

    run = stores.repo.get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    manifest = run_manifest(stores, run.id)
    suite = suite_path or manifest.get("suite_path")
    agent = agent_path or manifest.get("agent_path")
    if not suite or not agent:
        raise ValueError(f"run {run.id!r} has no manifest naming its suite and agent files; "
                         "pass --suite and --agent")
    for label, path in (("suite", suite), ("agent", agent)):
        if not Path(path).exists():
            raise ValueError(f"run {run.id!r}: its {label} {path} no longer exists; pass --{label}")
    _config, _prompt, version = agent_identity(str(agent), str(suite))
    if version != run.agent_version:
        raise ValueError(f"run {run.id!r} was made by agent version {run.agent_version[:12]}, but "
                         f"{agent} is now version {version[:12]}; re-scoring would judge a different "
                         "agent (pass --agent with the file as it was)")
    return run, str(suite), str(agent)


def _require_scenario(scenario: Any, conv: Conversation, suite: str) -> None:
    # Without its scenario a conversation would lose its assertions and forbidden phrases, and
    # a re-score would flatter it: refuse instead.
    if scenario is None:
        raise ValueError(f"conversation {conv.id!r}: scenario {conv.scenario_id!r} is no longer in "
                         f"the suite {suite}; pass --suite with the suite as it was")


def scorable(stores: Stores, run: Run, suite_path: str | None, agent_path: str | None, *,
             skip: set[str] | frozenset[str] = frozenset(),
             only: set[str] | None = None) -> Iterator[tuple[Conversation, Checks, Any] | str]:
    """A stored run's conversations to grade again, each with its checks and scenario.

    Yields the id alone (a plain string) for a conversation that is never scored (a provider or
    simulator error). `skip` and `only` select by conversation id. A production run has no
    scenarios (None); on a synthetic run, a scenario gone from the suite is an error.
    """
    production = run.source == "production"
    for rec in stores.repo.list_conversations(run.id):
        if rec.conversation_id in skip or (only is not None and rec.conversation_id not in only):
            continue
        conv = load_conversation(stores, run.id, rec.conversation_id)
        if conv.end_reason in UNSCORED_END_REASONS:
            yield conv.id
            continue
        checks, scenario = _checks(stores, run, None if production else suite_path, agent_path, conv)
        if not production:
            _require_scenario(scenario, conv, str(suite_path))
        yield conv, checks, scenario


def _check_model_name(name: str, stores: Stores) -> None:
    # A bad name or a missing key is a user error before anything is sent or stored.
    model = make_chat_model(name, stores.settings)
    close = getattr(model, "aclose", None)
    if close is not None:
        asyncio.run(close())


def _send(stores: Stores, run_id: str, step: str, conversation_id: str, name: str, model: Any,
          requests: list[Any]) -> list[Any]:
    if model is None:  # a named model: through `_ask`, which also writes the usage ledger
        return _ask(stores, run_id, step, conversation_id, name, requests)

    async def go() -> list[Any]:
        return [await model.chat(r) for r in requests]

    return asyncio.run(go())


def rescore_run(stores: Stores, run_id: str, *, rubric_version: str, judge_model: str = "offline",
                repeats: int = 1, suite_path: str | None = None, agent_path: str | None = None,
                model: Any = None) -> RescoreResult:
    """Judge every stored conversation of a run under `rubric_version`, adding judgments.

    Never rewrites a stored judgment: a conversation that already has one under this rubric
    version by this judge is skipped (`skipped`); other versions and judges are never touched,
    because storage keys a judgment by (run, conversation, rubric version, judge). Conversations
    that ended by a provider or simulator error are never scored (`unscored`); a judge model that
    fails after its retries leaves no judgment (`failed`). `judge_model` "offline" is the heuristic
    judge; another name is a model judge through `make_chat_model` (or `model`, a ChatModel, in
    tests). The suite and agent come from the run's manifest unless given.
    """
    rubric = get_rubric(rubric_version)
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    run, suite, agent = _run_inputs(stores, run_id, suite_path, agent_path)
    offline = model is None and judge_model in OFFLINE_NAMES
    if not offline and model is None:
        _check_model_name(judge_model, stores)
    label = HEURISTIC_JUDGE if offline else (model.name if model is not None else judge_model)
    done = {j.conversation_id for j in stores.repo.judgments(run.id, rubric.version)
            if j.judge_model == label}
    result = RescoreResult(run_id=run.id, judge_model=label, rubric_version=rubric.version,
                           skipped=[r.conversation_id for r in stores.repo.list_conversations(run.id)
                                    if r.conversation_id in done])
    prompt = _agent(agent)[1]
    for item in scorable(stores, run, suite, agent, skip=done):
        if isinstance(item, str):
            result.unscored.append(item)
            continue
        conv, checks, scenario = item
        persona = scenario.persona if scenario else None
        if offline:
            raws = [judge_offline(conv, checks, persona)] * repeats
        else:
            requests = judge_requests(conv, rubric=rubric, persona=persona, instructions=prompt,
                                      checks=checks, repeats=repeats)
            try:
                replies = _send(stores, run.id, f"rescore-{rubric.version}", conv.id, label, model, requests)
            except ProviderFailure:
                result.failed.append(conv.id)
                continue
            raws = [read_judge_reply(r, rubric) for r in replies]
        judgment = build_judgment(conv, raws, rubric_version=rubric.version, judge_model=label,
                                  forbidden_phrases=forbidden_phrases(scenario, agent))
        stores.repo.save_judgment(run.id, judgment)
        result.added += 1
    return result


def probe_run(stores: Stores, run_id: str, *, probes_path: str | None = None,
              probe_model: str = "offline", suite_path: str | None = None,
              agent_path: str | None = None, model: Any = None) -> RescoreResult:
    """Answer probes on every stored conversation of a run, adding probe answers.

    Probes run in their own pass and never touch judgments, composites or verdicts. Answers are
    keyed by (conversation, probe, wording hash, answerer): a reworded probe adds a new series
    beside the old one. A scenario that lists its probes gets only those.
    """
    run, suite, agent = _run_inputs(stores, run_id, suite_path, agent_path)
    probes: list[Probe] = load_probes(Path(probes_path)) if probes_path else default_probes()
    offline = model is None and probe_model in OFFLINE_NAMES
    if not offline and model is None:
        _check_model_name(probe_model, stores)
    label = HEURISTIC_JUDGE if offline else (model.name if model is not None else probe_model)
    result = RescoreResult(run_id=run.id, judge_model=label)
    for item in scorable(stores, run, suite, agent):
        if isinstance(item, str):
            result.unscored.append(item)
            continue
        conv, checks, scenario = item
        asked = probes_for(scenario, probes)
        if not asked:
            continue
        if offline:
            answers = answer_probes_offline(conv, checks, asked)
        else:
            try:
                (reply,) = _send(stores, run.id, "reprobe", conv.id, label, model,
                                 [probe_request(conv, asked, checks=checks)])
            except ProviderFailure:
                result.failed.append(conv.id)
                continue
            answers = to_probe_answers(conv.id, asked, read_probe_reply(reply, asked), answered_by=label)
        stores.repo.save_probe_answers(run.id, answers)
        result.added += len(answers)
    return result
