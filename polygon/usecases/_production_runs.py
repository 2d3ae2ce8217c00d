"""Grading production calls: a source's imported calls, in a date window or as they arrived, stored
as production runs (one per agent version) and graded like simulated conversations, except for what
needs a scenario, ground truth or a simulated caller: that is `not_applicable` (see
``polygon_core.imports.NOT_APPLICABLE_*`` and docs/import-formats.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from polygon_core import content_hash
from polygon_core.adapters.provenance import current_provenance
from polygon_core.adapters.storage import ImportedRecord, ImportLedger, ProductionRunInfo
from polygon_core.checks import Checks, run_checks
from polygon_core.imports import format_time, not_applicable_assertions
from polygon_core.judging import HEURISTIC_JUDGE
from polygon_core.models import Conversation, Run

from ._common import Stores, transcript_key
from ._production import load_imported, slug
from ._runs import resolve_rubric

__all__ = [
    "JudgeFn",
    "arrival_run_id",
    "check_call_source",
    "check_regrade",
    "parse_window",
    "plan_arrival_runs",
    "plan_production_runs",
    "production_run_id",
    "production_run_info",
]

# A judge pass: the (redacted) conversation and its checks in, criterion → {score, evidence} out.
JudgeFn = Callable[[Conversation, Checks], dict[str, Any]]



def parse_window(since: str | date | None, until: str | date | None) -> tuple[str | None, str | None]:
    """``since <= t < until`` bounds as fixed-width ISO text; a date `until` includes that day."""
    def bound(value: str | date | None, *, end: bool) -> str | None:
        if value is None or value == "":
            return None
        if isinstance(value, datetime):
            return format_time(value)
        if isinstance(value, date):
            day = value
        else:
            text = value.strip()
            if len(text) > 10:
                return format_time(datetime.fromisoformat(text.replace("Z", "+00:00")))
            try:
                day = date.fromisoformat(text)
            except ValueError:
                raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or ISO time") from None
        moment = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1 if end else 0)
        return format_time(moment)

    low, high = bound(since, end=False), bound(until, end=True)
    if low and high and low >= high:
        raise ValueError(f"empty date window: since {since} is not before until {until}")
    return low, high


def production_run_id(source: str, since: str | None, until: str | None, version: str) -> str:
    """A stable id: grading the same source, window and agent again resumes the same run."""
    window = f"{(since or 'start')[:10]}_{(until or 'end')[:10]}"
    return f"prod-{slug(source)}-{window}-{version[:8]}-{content_hash([since, until], 4)}"


def plan_production_runs(stores: Stores, source: str, since: str | date | None = None,
                         until: str | date | None = None, *, rubric_version: str | None = None,
                         agent_path: str | None = None, judge_model: str | None = None,
                         probe_model: str | None = None) -> list[tuple[Run, list[str]]]:
    """Store a source's imported calls in the window as production runs (one per agent version).

    Each call's redacted transcript is copied into its run, with the not-applicable checks and
    its metrics; already stored ones are kept (a re-run resumes, with the models it was made
    with). The judge and probe models default to the settings' (`offline`: the heuristic tier).
    Returns (run, conversation ids).
    """
    low, high = parse_window(since, until)
    records = ImportLedger(stores.repo.engine).select(source, low, high)
    return _plan(stores, source, records, lambda version: production_run_id(source, low, high, version),
                 (low, high), rubric_version=rubric_version, agent_path=agent_path,
                 judge_model=judge_model, probe_model=probe_model)


def check_regrade(stores: Stores, source: str, since: str | date | None = None,
                  until: str | date | None = None, *, judge_model: str | None = None,
                  probe_model: str | None = None, rubric_version: str | None = None) -> None:
    """Refuse (ValueError) before anything runs when a window already graded would be graded again
    with another judge or probe model or rubric version named (`plan_production_runs` resumes a run
    with its own)."""
    if not (judge_model or probe_model or rubric_version):
        return
    low, high = parse_window(since, until)
    judge, probe = (_grader(judge_model) if judge_model else None), (_grader(probe_model) if probe_model else None)
    rubric = resolve_rubric(rubric_version, None, stores.settings) if rubric_version else None
    versions = {rec.agent_version for rec in ImportLedger(stores.repo.engine).select(source, low, high)}
    for version in sorted(versions):
        run = stores.repo.get_run(production_run_id(source, low, high, version), exact=True)
        if run is not None:
            _check_models(run, judge, probe, rubric)


def is_call_location(source: str) -> bool:
    """Whether `source` names where calls are (an s3:// prefix, a file or folder), not a source name."""
    from pathlib import Path

    return source.startswith("s3://") or Path(source).exists()


def check_call_source(stores: Stores, source: str) -> None:
    """Refuse (ValueError) a `grade-calls` source that is no folder, file or s3:// prefix, was never
    imported and is not configured (POLYGON_SOURCES): a typo would otherwise grade "no calls in the
    window" and pass. The message names the sources that are known."""
    if is_call_location(source):
        return
    imported = ImportLedger(stores.repo.engine).sources()
    configured: list[str] = []
    if stores.settings.sources is not None:
        from ._arrivals import configured_sources

        configured = sorted(configured_sources(stores).sources)  # a broken file is its own error
    if source in imported or source in configured:
        return
    known = ", ".join(sorted({*imported, *configured})) or "none yet"
    raise ValueError(f"no source {source!r}: not a folder, file or s3:// prefix, never imported and not in "
                     f"POLYGON_SOURCES (known sources: {known}); `polygon import FILE --format F --source "
                     f"{source}` imports one")


def arrival_run_id(source: str, batch: str, version: str) -> str:
    """The run grading one batch of arrivals: re-running that import resumes the same run."""
    return f"prod-{slug(source)}-arrived-{content_hash(batch, 8)}-{version[:8]}"


def plan_arrival_runs(stores: Stores, source: str, external_ids: Sequence[str], batch: str, *,
                      rubric_version: str | None = None, agent_path: str | None = None,
                      judge_model: str | None = None) -> list[tuple[Run, list[str]]]:
    """Production runs of calls that just arrived (grade-on-arrival), by their stored external ids;
    like `plan_production_runs` otherwise (one run per agent version, resumable)."""
    known = ImportLedger(stores.repo.engine).known(source, list(external_ids))
    records = sorted(known.values(), key=lambda r: (r.started_at or "", r.external_id))
    return _plan(stores, source, records, lambda version: arrival_run_id(source, batch, version),
                 (None, None), rubric_version=rubric_version, agent_path=agent_path,
                 judge_model=judge_model, probe_model=None)


def _plan(stores: Stores, source: str, records: Sequence[ImportedRecord], run_id_for: Callable[[str], str],
          window: tuple[str | None, str | None], *, rubric_version: str | None, agent_path: str | None,
          judge_model: str | None, probe_model: str | None) -> list[tuple[Run, list[str]]]:
    judge = _grader(judge_model or stores.settings.judge_model)
    probe = _grader(probe_model or stores.settings.probe_model)
    # One precedence with synthetic runs (`resolve_rubric`): the flag, else POLYGON_RUBRIC, else the
    # default (a real call has no suite.yaml); an unknown version fails here, before anything is stored.
    rubric = resolve_rubric(rubric_version, None, stores.settings)
    groups: dict[tuple[str, str], list[ImportedRecord]] = {}
    for rec in records:
        groups.setdefault((rec.agent_name, rec.agent_version), []).append(rec)
    forbidden = list(stores.caches.agent(agent_path)[0].forbidden_phrases) if agent_path else []
    out: list[tuple[Run, list[str]]] = []
    for (name, version), recs in sorted(groups.items()):
        run_id = run_id_for(version)
        existing = stores.repo.get_run(run_id, exact=True)
        if existing is not None:
            _check_models(existing, judge if judge_model else None, probe if probe_model else None,
                          rubric if rubric_version else None)
        run = existing or stores.repo.save_run(Run(
            id=run_id, suite=f"production:{source}", agent_name=name, agent_version=version,
            rubric_version=rubric, seeds=[], source="production",
            models={"agent": f"production:{name}", "caller": "real-caller", "judge": judge, "probe": probe},
            provenance=current_provenance()))
        _store_calls(stores, run_id, recs, forbidden)
        dates = [r.started_at for r in recs if r.started_at]
        ImportLedger(stores.repo.engine).save_production_run(ProductionRunInfo(
            run_id=run_id, source=source, since=window[0], until=window[1],
            first_call=min(dates) if dates else None, last_call=max(dates) if dates else None,
            conversations=len(recs)))
        out.append((run, [r.conversation_id for r in recs]))
    return out


def _store_calls(stores: Stores, run_id: str, records: Sequence[ImportedRecord], forbidden: list[str]) -> None:
    """Copy each call's redacted transcript into the run (with its metrics), unless already there."""
    stored = stores.repo.conversation_ids(run_id)
    cache: dict[str, list[str]] = {}
    for rec in records:
        if rec.conversation_id in stored:
            continue
        conv = load_imported(stores, rec.artifact_uri, cache)
        checks = run_checks(conv, None, forbidden_phrases=forbidden)
        uri = stores.artifacts.put_text(transcript_key(run_id, conv.id), conv.model_dump_json())
        stores.repo.save_conversation(run_id, conv, artifact_uri=uri, assertions=not_applicable_assertions(),
                                      metrics=checks.metrics.model_dump(mode="json"))


def _check_models(run: Run, judge: str | None, probe: str | None, rubric: str | None = None) -> None:
    """A re-run resumes a graded window with the settings it was graded with: a rubric version, judge
    or probe model asked for by name that differs is refused, not silently replaced by the stored one."""
    if rubric is not None and rubric != run.rubric_version:
        raise ValueError(f"{run.id} was already graded under rubric {run.rubric_version}, not {rubric}: a resumed "
                         f"run keeps its own settings; `polygon rescore {run.id} --rubric {rubric}` adds "
                         f"{rubric} judgments to it")
    for role, asked, fix in (("judge", judge, f"polygon rescore {run.id} --rubric {run.rubric_version} --judge"),
                             ("probe", probe, f"polygon probe {run.id} --model")):
        stored = run.models.get(role)
        if asked is not None and stored is not None and asked != stored:
            raise ValueError(f"{run.id} was already graded with {role} {stored}, not {asked}: "
                             f"`{fix} {asked}` adds {asked}'s answers to it")


def _grader(name: str) -> str:
    """A judge or probe model name as recorded on the run (offline → the heuristic tier's label)."""
    from polygon_core.adapters.providers import parse_model_name

    if name.startswith("fitted:"):  # a fitted judge, checked by the caller (check_model_name)
        return name
    spec = parse_model_name(name)  # a bad name is an error before anything is stored
    return HEURISTIC_JUDGE if spec.provider == "offline" else spec.name


def production_run_info(stores: Stores, run_id: str) -> ProductionRunInfo | None:
    """A production run's source and date range; None for a synthetic run."""
    return ImportLedger(stores.repo.engine).production_run(run_id)

