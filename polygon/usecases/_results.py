"""Result rows, scorecards and finishing a run."""

from __future__ import annotations

from collections.abc import Sequence

from polygon_core.compare import ResultRow, Scorecard
from polygon_core.judging import HEURISTIC_JUDGE
from polygon_core.models import Conversation, Judgment, Run

from ._common import Stores
from ._scorecards import judge_for, rows_of, scorecard_of


def _latency(conv: Conversation | None) -> float | None:
    if conv is None:
        return None
    agent = [t.latency_ms for t in conv.turns if t.speaker == "agent"]
    # No agent turn with a latency (imported calls carry none): unknown, not a mean of 0.0 ms.
    return round(sum(agent) / len(agent), 2) if any(agent) else None


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
    one judge (see `chosen_judge`), read in SQL (`_scorecards`).

    Latency needs the transcripts: pass them as `conversations` when already loaded (otherwise it
    is left unknown rather than read from the artifact store one file at a time).
    """
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    version = rubric_version or run.rubric_version
    return list(rows_of(stores, run_id, version, judge_for(stores, run, version, judge),
                        latencies=latencies(conversations)))


def latencies(conversations: Sequence[Conversation] | None) -> dict[str, float | None]:
    """Conversation id → mean agent-turn latency of transcripts already loaded."""
    return {c.id: _latency(c) for c in conversations or ()}


def scorecard(stores: Stores, run_id: str, label: str | None = None,
              rubric_version: str | None = None,
              conversations: Sequence[Conversation] | None = None, judge: str | None = None,
              probe_model: str | None = None) -> Scorecard:
    """The scorecard of one stored run, under one rubric version, one judge and one probe answerer
    (by default the run's own; see `chosen_judge`, `answerer_for`), labelled with them."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    return scorecard_of(stores, run, label=label, rubric_version=rubric_version, judge=judge,
                        latencies=latencies(conversations), probe_model=probe_model)


def finish_run(stores: Stores, run_id: str, *, report_uri: str | None = None) -> Scorecard:
    """Store the run's scorecard as its summary and mark it complete.

    Its latency is read from the transcripts (`stored_latencies`), so the stored card and the
    artifact published from it give the latency the comparison printed after the run gives."""
    from ._compare import stored_latencies

    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    card = scorecard_of(stores, run, latencies=stored_latencies(stores, run_id))
    stores.repo.set_run_status(run_id, "complete", summary=card.model_dump(mode="json"),
                               report_uri=report_uri)
    return card
