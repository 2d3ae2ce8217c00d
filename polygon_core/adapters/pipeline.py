"""The pipeline's steps as plain functions over storage and artifacts; tasks wrap one each.

Each step reads its inputs from the stores by id and writes its outputs back, so any step can be
re-run alone (re-judge, re-probe, re-compare) and a killed run resumes where it stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._hashing import canonical_json
from ..callers import OfflineCaller
from ..checks import Checks, run_checks
from ..compare import ResultRow, Scorecard, build_scorecard
from ..conversation import Limits, conversation_key, run_conversation
from ..files import Suite, agent_version, load_agent, load_suite
from ..judging import HEURISTIC_JUDGE, answer_probes_offline, build_judgment, judge_offline
from ..models import AgentConfig, Conversation, Judgment, ProbeAnswer, Run, Scenario, Usage
from ..probes import Probe, default_probes, load_probes
from .agents import agent_factory
from .artifacts import ArtifactStore, artifact_store_from_url
from .settings import PolygonSettings, load_settings
from .storage import Repository, ensure_database


@dataclass(frozen=True)
class Stores:
    """The database and artifact store a step works against."""

    repo: Repository
    artifacts: ArtifactStore
    settings: PolygonSettings


def open_stores(settings: PolygonSettings | None = None) -> Stores:
    """Open (and, for an empty SQLite database, create) the configured stores."""
    settings = settings or load_settings()
    url = settings.resolved_database_url()
    repo = ensure_database(url)
    artifacts = artifact_store_from_url(settings.resolved_artifacts_url(),
                                        endpoint_url=settings.s3_endpoint_url)
    return Stores(repo=repo, artifacts=artifacts, settings=settings)


@lru_cache(maxsize=32)
def _suite(path: str) -> Suite:
    return load_suite(Path(path))


@lru_cache(maxsize=32)
def _agent(path: str) -> tuple[AgentConfig, str]:
    loaded = load_agent(Path(path))
    return loaded.config, loaded.prompt_text


def agent_identity(agent_path: str, suite_path: str) -> tuple[AgentConfig, str, str]:
    """The agent's config, prompt text and version (content hash)."""
    config, prompt = _agent(agent_path)
    suite = _suite(suite_path)
    exposed = config.tools or sorted({t for s in suite.scenarios for t in s.tools})
    tools = {n: suite.tools[n] for n in exposed if n in suite.tools}
    return config, prompt, agent_version(config, prompt, tools)


def transcript_key(run_id: str, conversation_id: str) -> str:
    """Where a conversation's full transcript lives in the artifact store."""
    return f"runs/{run_id}/conversations/{conversation_id}.json"


def plan_conversations(suite_path: str, seeds: Sequence[int] | None) -> list[tuple[str, int]]:
    """(scenario id, seed) pairs for a run, in a stable order."""
    suite = _suite(suite_path)
    use = list(seeds) if seeds is not None else list(suite.config.seeds)
    return [(s.id, seed) for s in suite.scenarios for seed in use]


def create_run(stores: Stores, run: Run) -> Run:
    """Record a run before any conversation starts (kept as-is when resuming)."""
    existing = stores.repo.get_run(run.id, exact=True)
    if existing is not None:
        return existing
    stores.repo.save_run(run)
    return run


def _scenario(suite: Suite, scenario_id: str) -> Scenario:
    return next(s for s in suite.scenarios if s.id == scenario_id)


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


def load_conversation(stores: Stores, run_id: str, conversation_id: str) -> Conversation:
    """A stored conversation's full transcript."""
    text = stores.artifacts.get_text(transcript_key(run_id, conversation_id))
    return Conversation.model_validate_json(text)


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


def judge(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, rubric_version: str, repeats: int = 1) -> Judgment:
    """One judge pass (offline heuristic) over one stored conversation, stored as a new judgment."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    conv = load_conversation(stores, run_id, conversation_id)
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    raw = judge_offline(conv, checks, scenario.persona if scenario else None)
    phrases = [*(scenario.forbidden_phrases if scenario else []),
               *(_agent(agent_path)[0].forbidden_phrases if agent_path else [])]
    judgment = build_judgment(conv, [raw] * repeats, rubric_version=rubric_version,
                              judge_model=HEURISTIC_JUDGE, forbidden_phrases=phrases)
    stores.repo.save_judgment(run_id, judgment)
    return judgment


def probe(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, probes_path: str | None = None) -> list[ProbeAnswer]:
    """Answer the probes on one stored conversation (own pass, never touching the verdict)."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    conv = load_conversation(stores, run_id, conversation_id)
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    probes: list[Probe] = load_probes(Path(probes_path)) if probes_path else default_probes()
    if scenario is not None and scenario.probes is not None:
        probes = [p for p in probes if p.id in set(scenario.probes)]
    answers = answer_probes_offline(conv, checks, probes)
    stores.repo.save_probe_answers(run_id, answers)
    return answers


def result_rows(stores: Stores, run_id: str, rubric_version: str | None = None) -> list[ResultRow]:
    """One ResultRow per stored conversation of a run, with its judgment under `rubric_version`."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    version = rubric_version or run.rubric_version
    judgments = {j.conversation_id: j for j in stores.repo.judgments(run_id, version)}
    rows = []
    for rec in stores.repo.list_conversations(run_id):
        j = judgments.get(rec.conversation_id)
        statuses = [a.status for a in rec.assertions if a.status in ("pass", "fail", "error")]
        policy = [a.status for a in rec.assertions if "_before(" in a.expression and a.status in ("pass", "fail")]
        usage = {k: (u if isinstance(u, Usage) else Usage.model_validate(u)) for k, u in (rec.usage or {}).items()}
        tokens = sum(u.input_tokens + u.output_tokens for u in usage.values())
        rows.append(ResultRow(
            conversation_id=rec.conversation_id, scenario_id=rec.scenario_id, seed=rec.seed,
            caller_type=rec.caller_type, difficulty=rec.difficulty, end_reason=rec.end_reason,
            composite=j.composite if j else None, verdict=j.verdict if j else None,
            partial=j.partial if j else False, gates=[g.gate for g in j.gates] if j else [],
            criteria={c.criterion: c.score for c in j.criteria} if j else {},
            assertions_passed=(all(s == "pass" for s in statuses) if statuses and "error" not in statuses else None),
            policy_safe=(all(s == "pass" for s in policy) if policy else None),
            tokens=tokens, tokens_estimated=any(u.estimated for u in usage.values()) or not usage,
        ))
    return rows


def scorecard(stores: Stores, run_id: str, label: str | None = None,
              rubric_version: str | None = None) -> Scorecard:
    """The scorecard of one stored run."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    version = rubric_version or run.rubric_version
    judges = sorted({j.judge_model for j in stores.repo.judgments(run_id, version)}) or [HEURISTIC_JUDGE]
    return build_scorecard(label or f"{run.agent_name}@{run.agent_version}", run.id, run.agent_version,
                           version, ", ".join(judges), result_rows(stores, run_id, version),
                           stores.repo.probe_answers(run_id), models=run.models)


def finish_run(stores: Stores, run_id: str, *, report_uri: str | None = None) -> Scorecard:
    """Store the run's scorecard as its summary and mark it complete."""
    card = scorecard(stores, run_id)
    stores.repo.set_run_status(run_id, "complete", summary=card.model_dump(mode="json"),
                               report_uri=report_uri)
    return card


def fingerprint(value: Any) -> str:
    """Canonical JSON, for byte comparisons in tests and replays."""
    return canonical_json(value)


class ComparisonError(ValueError):
    """Runs that cannot be compared (mixed rubric versions, unknown runs)."""


@dataclass
class Comparison:
    """Scorecards, the scenario matrix and first divergent turns of two or more runs."""

    runs: list[Run]
    cards: list[Scorecard]
    matrix: list[Any]
    divergences: dict[tuple[str, str], list[Any]]


def compare_runs(stores: Stores, run_ids: Sequence[str]) -> Comparison:
    """Compare stored runs under their shared rubric version; mixing versions is an error."""
    from ..compare import pair_divergences, scenario_matrix

    runs = []
    for rid in run_ids:
        run = stores.repo.get_run(rid)
        if run is None:
            raise ComparisonError(f"no run {rid!r} is stored")
        runs.append(run)
    versions = sorted({r.rubric_version for r in runs})
    if len(versions) > 1:
        detail = ", ".join(f"{r.id}: {r.rubric_version}" for r in runs)
        raise ComparisonError(f"cannot compare runs judged under different rubric versions "
                              f"({' and '.join(versions)}): {detail}; re-score them under one version first")
    labels = _labels(runs)
    cards = [scorecard(stores, r.id, label=labels[r.id]) for r in runs]
    matrix = scenario_matrix({labels[r.id]: result_rows(stores, r.id) for r in runs})
    convs = {r.id: [load_conversation(stores, r.id, c.conversation_id)
                    for c in stores.repo.list_conversations(r.id)] for r in runs}
    divs = {}
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            divs[(labels[a.id], labels[b.id])] = pair_divergences(convs[a.id], convs[b.id])
    return Comparison(runs=runs, cards=cards, matrix=matrix, divergences=divs)


def _labels(runs: Sequence[Run]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for run in runs:
        label = f"{run.agent_name}@{run.agent_version[:6]}"
        if label in labels.values():
            label = f"{label} ({run.id[-6:]})"
        labels[run.id] = label
    return labels
