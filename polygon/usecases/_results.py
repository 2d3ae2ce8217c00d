"""Result rows, scorecards and finishing a run."""

from __future__ import annotations

from collections.abc import Sequence

from polygon_core.compare import ResultRow, Scorecard, build_scorecard
from polygon_core.judging import HEURISTIC_JUDGE
from polygon_core.models import Conversation, Judgment, Run, Usage

from ._common import Stores


def _latency(conv: Conversation | None) -> float | None:
    if conv is None:
        return None
    agent = [t.latency_ms for t in conv.turns if t.speaker == "agent"]
    return round(sum(agent) / len(agent), 2) if agent else None


def chosen_judge(stores: Stores, run: Run, version: str, judge: str | None) -> tuple[str, list[Judgment]]:
    """The judge whose judgments a scorecard shows, and those judgments.

    One scorecard never mixes judges: `judge` when given; else the run's own judge when it has
    judged under this rubric; else the judge that judged last (a later `polygon rescore`).
    """
    stored = stores.repo.judgments(run.id, version)
    if judge is None:
        judges = [j.judge_model for j in stored]
        own = run.models.get("judge") or HEURISTIC_JUDGE
        judge = own if own in judges or not judges else judges[-1]
    return judge, [j for j in stored if j.judge_model == judge]


def result_rows(stores: Stores, run_id: str, rubric_version: str | None = None,
                conversations: Sequence[Conversation] | None = None,
                judge: str | None = None) -> list[ResultRow]:
    """One ResultRow per stored conversation of a run, with its judgment under `rubric_version` by
    one judge (see `chosen_judge`).

    Latency needs the transcripts: pass them as `conversations` when already loaded (otherwise it
    is left unknown rather than read from the artifact store one file at a time).
    """
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    _judge, judgments = chosen_judge(stores, run, rubric_version or run.rubric_version, judge)
    return _rows(stores, run_id, judgments, conversations)


def _rows(stores: Stores, run_id: str, chosen: Sequence[Judgment],
          conversations: Sequence[Conversation] | None) -> list[ResultRow]:
    judgments = {j.conversation_id: j for j in chosen}
    transcripts = {c.id: c for c in conversations or ()}
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
            latency_ms=_latency(transcripts.get(rec.conversation_id)),
            assertions={a.name: a.status for a in rec.assertions},
            assertion_turns={a.name: a.turn for a in rec.assertions if a.turn is not None},
            status=j.status if j else None, reason=j.reason if j else None,
        ))
    return rows


def scorecard(stores: Stores, run_id: str, label: str | None = None,
              rubric_version: str | None = None,
              conversations: Sequence[Conversation] | None = None, judge: str | None = None) -> Scorecard:
    """The scorecard of one stored run, under one rubric version and one judge (by default the
    run's own; see `chosen_judge`), labelled with both."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    version = rubric_version or run.rubric_version
    chosen, judgments = chosen_judge(stores, run, version, judge)
    return build_scorecard(label or f"{run.agent_name}@{run.agent_version}", run.id, run.agent_version,
                           version, chosen, _rows(stores, run_id, judgments, conversations),
                           stores.repo.probe_answers(run_id), models=run.models)


def finish_run(stores: Stores, run_id: str, *, report_uri: str | None = None) -> Scorecard:
    """Store the run's scorecard as its summary and mark it complete."""
    card = scorecard(stores, run_id)
    stores.repo.set_run_status(run_id, "complete", summary=card.model_dump(mode="json"),
                               report_uri=report_uri)
    return card
