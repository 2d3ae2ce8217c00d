"""Judge and probe passes over stored conversations: one per task, and whole stored runs again.

Every pass goes through `_dispatch` (`judge_one`, `probe_one`), so a broken call, a judge error
and a probe error are stored and reported the same way wherever they happen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polygon_core.checks import Checks, run_checks
from polygon_core.judging import HEURISTIC_JUDGE
from polygon_core.models import UNSCORED_END_REASONS, Conversation, Judgment, ProbeAnswer, Run
from polygon_core.probes import Probe, default_probes, load_probes
from polygon_core.scoring import get_rubric

from ._common import Stores, load_conversation
from ._dispatch import (
    OFFLINE_NAMES,
    JudgeSpec,
    check_model_name,
    judge_label,
    judge_one,
    judge_requests,
    probe_one,
)

__all__ = [
    "OFFLINE_NAMES",
    "RescoreResult",
    "ensure_judged",
    "forbidden_phrases",
    "judge",
    "judge_conversation",
    "judge_requests",
    "probe",
    "probe_conversation",
    "probe_run",
    "probes_for",
    "rescore_run",
    "run_inputs",
    "scorable",
]


def _role_model(run: Run, role: str) -> str:
    return judge_label(run.models.get(role) or HEURISTIC_JUDGE)


def _checks(stores: Stores, run: Run, suite_path: str | None, agent_path: str | None,
            conv: Conversation) -> tuple[Checks, Any]:
    scenario = None
    forbidden: list[str] = []
    tools = None
    if suite_path:
        suite = stores.caches.suite(suite_path)
        scenario = next((s for s in suite.scenarios if s.id == conv.scenario_id), None)
        tools = suite.tools
    if agent_path:
        forbidden = list(stores.caches.agent(agent_path)[0].forbidden_phrases)
    return run_checks(conv, scenario, forbidden_phrases=forbidden, tools=tools), scenario


def forbidden_phrases(stores: Stores, scenario: Any, agent_path: str | None) -> list[str]:
    """The phrases the forbidden-phrase gate fires on: the scenario's and the agent's."""
    return [*(scenario.forbidden_phrases if scenario is not None else []),
            *(stores.caches.agent(agent_path)[0].forbidden_phrases if agent_path else [])]


def probes_for(scenario: Any, library: list[Probe]) -> list[Probe]:
    """The probes one conversation is asked: a scenario that lists its probes gets only those."""
    if scenario is None or scenario.probes is None:
        return library
    wanted = set(scenario.probes)
    return [p for p in library if p.id in wanted]


def judge(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, rubric_version: str, repeats: int = 1) -> Judgment:
    """One judge pass by the run's judge over one stored conversation, stored.

    Provider and simulator failures say nothing about the agent: never scored, nothing stored. A
    broken call is stored as the agent's failure, a failed judge as a `judge_error`.
    """
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    return judge_conversation(stores, run, load_conversation(stores, run_id, conversation_id),
                              suite_path=suite_path, agent_path=agent_path, rubric_version=rubric_version,
                              repeats=repeats)


def judge_conversation(stores: Stores, run: Run, conv: Conversation, *, suite_path: str | None,
                       agent_path: str | None, rubric_version: str, repeats: int = 1,
                       reuse: bool = False) -> Judgment:
    """`judge` over a conversation already in hand. With `reuse` (a resumed or retried step), a
    judgment already stored by this judge under this rubric is returned as stored (a `judge_error`
    is judged again)."""
    spec = JudgeSpec.resolve(stores, _role_model(run, "judge"), rubric_version, repeats=repeats)
    if conv.end_reason in UNSCORED_END_REASONS:
        return Judgment(conversation_id=conv.id, rubric_version=spec.rubric.version, judge_model=spec.name,
                        repeats=0)
    if reuse:
        stored = stores.repo.judgment_of(run.id, conv.id, spec.rubric.version, spec.name)
        if stored is not None and stored.status != "judge_error":
            return stored
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    return judge_one(stores, run.id, conv, checks, spec, persona=scenario.persona if scenario else None,
                     agent_path=agent_path, forbidden=forbidden_phrases(stores, scenario, agent_path))


def probe(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, probes_path: str | None = None) -> list[ProbeAnswer]:
    """Answer the probes on one stored conversation (own pass, never touching the verdict)."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    return probe_conversation(stores, run, load_conversation(stores, run_id, conversation_id),
                              suite_path=suite_path, agent_path=agent_path, probes_path=probes_path)


def probe_conversation(stores: Stores, run: Run, conv: Conversation, *, suite_path: str | None,
                       agent_path: str | None, probes_path: str | None = None,
                       reuse: bool = False) -> list[ProbeAnswer]:
    """`probe` over a conversation already in hand. With `reuse`, answers already stored by this
    answerer to every probe asked (as worded now, none an `error`) are returned as stored."""
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    probes = probes_for(scenario, stores.caches.probes(probes_path) if probes_path else default_probes())
    if conv.end_reason in UNSCORED_END_REASONS or not probes:
        return []
    name = _role_model(run, "probe")
    if reuse:
        stored = [a for a in stores.repo.probe_answers_of(run.id, conv.id) if a.answered_by == judge_label(name)]
        have = {(a.probe_id, a.wording_hash) for a in stored if a.answer != "error"}
        if stored and all((p.id, p.wording_hash) in have for p in probes):
            return stored
    return probe_one(stores, run.id, conv, checks, probes, name=name)


# --- re-scoring and re-probing stored runs (`polygon rescore`, `polygon probe`, calibration) ------


@dataclass
class RescoreResult:
    """What a rescore or probe pass over a stored run did."""

    run_id: str
    added: int = 0
    skipped: list[str] = field(default_factory=list)  # already judged by this judge: kept as stored
    unscored: list[str] = field(default_factory=list)  # provider or simulator errors: never scored
    failed: list[str] = field(default_factory=list)  # the judge (or answerer) failed: see `errors`
    errors: dict[str, str] = field(default_factory=dict)  # conversation id → the failure's reason
    agent_failures: list[str] = field(default_factory=list)  # broken calls: verdict fail, not judged
    judge_model: str = HEURISTIC_JUDGE
    rubric_version: str | None = None


def _run_inputs(stores: Stores, run_id: str, suite_path: str | None,
                agent_path: str | None) -> tuple[Run, str, str]:
    """The run and the suite and agent files it was made from (explicit paths win over the manifest).

    Refuses when the agent's version no longer matches the run's: re-judging against changed
    instructions or forbidden phrases would silently grade a different agent.
    """
    from ._runs import run_manifest
    from ._versions import check_run_agent

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
    check_run_agent(stores, run.id, run.agent_version, str(agent), str(suite),
                    would="re-scoring would judge a different agent",
                    fix="pass --agent with the file as it was, or restore the agent's code")
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


def _judge_stored(stores: Stores, run: Run, conv: Conversation, checks: Checks, scenario: Any,
                  spec: JudgeSpec, agent_path: str | None, step: str) -> Judgment:
    from polygon_core.imports import NOT_APPLICABLE_CRITERIA

    production = run.source == "production"
    return judge_one(stores, run.id, conv, checks, spec, persona=scenario.persona if scenario else None,
                     agent_path=agent_path, forbidden=forbidden_phrases(stores, scenario, agent_path), step=step,
                     not_applicable=list(NOT_APPLICABLE_CRITERIA) if production else ())


def _record(result: RescoreResult, judgment: Judgment) -> None:
    if judgment.status == "judge_error":
        result.failed.append(judgment.conversation_id)
        result.errors[judgment.conversation_id] = judgment.reason or "the judge failed"
        return
    if judgment.status == "agent_failure":
        result.agent_failures.append(judgment.conversation_id)
    result.added += 1


def run_inputs(stores: Stores, run_id: str, suite_path: str | None,
               agent_path: str | None) -> tuple[Run, str | None, str | None]:
    """The run and the suite and agent files to grade it with (a production run needs neither)."""
    run = stores.repo.get_run(run_id)
    if run is not None and run.source == "production":
        # A real call has no suite; its agent file (for instructions and forbidden phrases) is the
        # one given, else the one its calls were imported with. The run's manifest is not needed.
        from ._production_grade import grading_agent

        return run, None, grading_agent(stores, run, agent_path)
    return _run_inputs(stores, run_id, suite_path, agent_path)


def _already_judged(stores: Stores, run_id: str, version: str, label: str) -> set[str]:
    # A judge_error is not "done": running again retries it.
    return {j.conversation_id for j in stores.repo.judgments(run_id, version)
            if j.judge_model == label and j.status != "judge_error"}


def rescore_run(stores: Stores, run_id: str, *, rubric_version: str, judge_model: str = "offline",
                repeats: int = 1, suite_path: str | None = None, agent_path: str | None = None,
                model: Any = None, only: set[str] | None = None,
                progress: Callable[[int, int], None] | None = None) -> RescoreResult:
    """Judge every stored conversation of a run under `rubric_version`, adding judgments.

    Never rewrites a stored judgment: a conversation that already has one under this rubric
    version by this judge is skipped (`skipped`); other versions and judges are never touched,
    because storage keys a judgment by (run, conversation, rubric version, judge). Conversations
    that ended by a provider or simulator error are never scored (`unscored`); a broken call is
    stored as the agent's failure (`agent_failures`); a judge that fails after its retries or
    answers nothing readable is stored as a `judge_error` (`failed`, with `errors`). `judge_model`
    "offline" is the heuristic judge, `fitted:<name>@<hash>` a fitted one; another name is a model
    judge through `make_chat_model` (or `model`, a ChatModel, in tests). The suite and agent come
    from the run's manifest unless given; a production run needs neither. `only` limits the pass
    to those conversation ids. `progress(done, total)` is told each conversation the pass takes.
    """
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    get_rubric(rubric_version)
    run, suite, agent = run_inputs(stores, run_id, suite_path, agent_path)
    if model is None:
        check_model_name(stores, judge_model)
    spec = JudgeSpec.resolve(stores, judge_model, rubric_version, repeats=repeats, model=model)
    done = _already_judged(stores, run.id, spec.rubric.version, spec.name)
    result = RescoreResult(run_id=run.id, judge_model=spec.name, rubric_version=spec.rubric.version,
                           skipped=[r.conversation_id for r in stores.repo.list_conversations(run.id)
                                    if r.conversation_id in done
                                    and (only is None or r.conversation_id in only)])
    stored = [r.conversation_id for r in stores.repo.list_conversations(run.id)]
    total = sum(1 for c in stored if c not in done and (only is None or c in only))
    for taken, item in enumerate(scorable(stores, run, suite, agent, skip=done, only=only), start=1):
        if isinstance(item, str):
            result.unscored.append(item)
        else:
            conv, checks, scenario = item
            _record(result, _judge_stored(stores, run, conv, checks, scenario, spec, agent,
                                          f"rescore-{spec.rubric.version}"))
        if progress is not None:
            progress(taken, max(total, taken))
    return result


def ensure_judged(stores: Stores, run_id: str, *, judge_model: str, rubric_version: str, repeats: int = 1,
                  only: set[str] | None = None, progress: Callable[[int, int], None] | None = None) -> RescoreResult:
    """Judge what judge `judge_model` has not yet judged (or failed on) in a run; keep the rest.

    What calibration calls before it compares a judge with people: the same pass as `rescore_run`,
    for synthetic and production runs alike.
    """
    return rescore_run(stores, run_id, rubric_version=rubric_version, judge_model=judge_model,
                       repeats=repeats, only=only, progress=progress)


def probe_run(stores: Stores, run_id: str, *, probes_path: str | None = None,
              probe_model: str = "offline", suite_path: str | None = None,
              agent_path: str | None = None, model: Any = None) -> RescoreResult:
    """Answer probes on every stored conversation of a run, adding probe answers.

    Probes run in their own pass and never touch judgments, composites or verdicts. Answers are
    keyed by (conversation, probe, wording hash, answerer): a reworded probe adds a new series
    beside the old one. A scenario that lists its probes gets only those. An answerer that fails
    stores `error` answers (`failed`, with `errors`).
    """
    run, suite, agent = run_inputs(stores, run_id, suite_path, agent_path)
    probes: list[Probe] = load_probes(Path(probes_path)) if probes_path else default_probes()
    if model is None:
        check_model_name(stores, probe_model, role="probe answerer")
    label = judge_label(probe_model, model)
    result = RescoreResult(run_id=run.id, judge_model=label)
    for item in scorable(stores, run, suite, agent):
        if isinstance(item, str):
            result.unscored.append(item)
            continue
        conv, checks, scenario = item
        asked = probes_for(scenario, probes)
        if not asked:
            continue
        answers = probe_one(stores, run.id, conv, checks, asked, name=label, model=model, step="reprobe")
        errors = [a for a in answers if a.answer == "error"]
        if errors:
            result.failed.append(conv.id)
            result.errors[conv.id] = errors[0].evidence or "the probe answerer failed"
        else:
            result.added += len(answers)
    return result
