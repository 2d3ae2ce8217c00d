"""Calibration over the stores: people's labels joined with a run's judgments, stored as a record.

The CLI (`polygon calibrate`), the `calibrate` flow's task, the web app and the scorecards call
these; the statistics themselves are pure (`polygon_core.calibration`). See docs/calibration.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from polygon_core.adapters.storage import CalibrationStore, ImportLedger
from polygon_core.calibration import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    OVERALL,
    SAMPLE_DATASET,
    Calibration,
    Label,
    LabelledConversation,
    LabelsError,
    LabelsFingerprint,
    Match,
    calibrate,
    calibration_status,
    labels_hash,
    parse_labels,
    people_means,
)
from polygon_core.judging import judge_prompt_hash
from polygon_core.models import Run
from polygon_core.scoring import get_rubric

from ._common import Stores
from ._dispatch import judge_label
from ._grade import RescoreResult, ensure_judged, run_inputs, scorable
from ._results import chosen_judge

# The production modules (import formats, redaction) are imported where labels name imported calls:
# a run's report imports this module for `shown_calibrations` alone.

__all__ = [
    "CalibrationOutcome",
    "RatedRun",
    "calibrate_run",
    "judge_labelled",
    "labelled_conversations",
    "load_labels",
    "shown_calibration",
    "shown_calibrations",
    "store_calibration",
]

# How many unknown ids an error names before "...".
_SHOWN = 5
# External ids looked up per query.
_LOOKUP_BATCH = 500


@dataclass(frozen=True)
class RatedRun:
    """A labels file read against one run: people's ratings by conversation id, key and rater."""

    run: Run
    rubric_version: str
    ratings: dict[str, dict[str, dict[str, int]]]
    labels_hash: str
    fingerprint: LabelsFingerprint

    @property
    def keys(self) -> list[str]:
        """The rated criteria in rubric order, then `overall` (the calibration's rows)."""
        rated = {key for by_key in self.ratings.values() for key in by_key}
        names = [c for c in get_rubric(self.rubric_version).criterion_names if c in rated]
        return [*names, *([OVERALL] if OVERALL in rated else [])]


@dataclass(frozen=True)
class CalibrationOutcome:
    """A calibration as stored, and what judging the unjudged labelled conversations did."""

    calibration: Calibration
    judged: RescoreResult | None


def _run(stores: Stores, run_id: str) -> Run:
    run = stores.repo.get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    return run


def load_labels(stores: Stores, labels_path: str | Path, run_id: str,
                rubric_version: str | None = None, dataset: str | None = None) -> RatedRun:
    """Read and check a labels file against a run; LabelsError lists every problem.

    Imported calls named by `external_id` are found through the import ledger (their `source`,
    else the production run's own); every labelled conversation must be in the run. `dataset`
    names the data (default: the file's name; the packaged sample is always named as such).
    """
    run = _run(stores, run_id)
    version = rubric_version or run.rubric_version
    rubric = get_rubric(version)
    path = Path(labels_path)
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise LabelsError([f"{path}: cannot read the labels file ({exc.strerror or exc})"]) from None
    labels = parse_labels(content.decode("utf-8-sig", errors="replace"), file=str(path),
                          criteria=rubric.criterion_names)
    ids = _conversation_ids(stores, run, labels)
    return RatedRun(run=run, rubric_version=version, ratings=_ratings(labels, ids), labels_hash=labels_hash(content),
                    fingerprint=labels_fingerprint(content, file=path.name, ratings=len(labels), dataset=dataset))


@cache
def _sample_hash() -> str | None:
    """The packaged sample labels' hash, line endings made LF (a checkout may have made them CRLF)."""
    try:
        content = resources.files("polygon_core.calibration.samples").joinpath("labels.csv").read_bytes()
    except (OSError, ModuleNotFoundError):  # an install without the sample: nothing to recognise
        return None
    return labels_hash(content.replace(b"\r\n", b"\n"))


def labels_fingerprint(content: bytes, *, file: str, ratings: int, dataset: str | None = None) -> LabelsFingerprint:
    """The labels' fingerprint. The packaged sample is recognised by its content (whatever the file
    is called or `dataset` says), so a scorecard can never present it as a measurement."""
    sample = labels_hash(content.replace(b"\r\n", b"\n")) == _sample_hash()
    name = SAMPLE_DATASET if sample else (dataset or "").strip() or file
    return LabelsFingerprint(dataset=name, file=file, sha256=labels_hash(content), ratings=ratings,
                             bytes=len(content), sample=sample)


def _conversation_ids(stores: Stores, run: Run, labels: Sequence[Label]) -> list[str]:
    """Each label's conversation id in the run (same order), or LabelsError for the unknown ones."""
    from ._production_runs import production_run_info

    info = production_run_info(stores, run.id) if run.source == "production" else None
    default_source = info.source if info is not None else None
    errors: list[str] = []
    wanted: dict[str, set[str]] = {}
    for label in labels:
        if label.external_id is None:
            continue
        source = label.source or default_source
        if source is None:
            errors.append(f"{label.where}: source: missing; an external_id names an imported call and run "
                          f"{run.id} is not a production run, so say which import source it came from")
            continue
        wanted.setdefault(source, set()).add(label.external_id)
    mapped = _imported(stores, wanted, errors)
    if errors:
        raise LabelsError(errors)
    ids = [label.conversation_id if label.conversation_id is not None
           else mapped[(label.source or str(default_source), str(label.external_id))] for label in labels]
    absent = sorted(set(ids) - stores.repo.conversation_ids(run.id))
    if absent:
        raise LabelsError([f"{len(absent)} labelled conversation{'s are' if len(absent) > 1 else ' is'} not in "
                           f"run {run.id}: {_first(absent)}"])
    return ids


def _imported(stores: Stores, wanted: dict[str, set[str]], errors: list[str]) -> dict[tuple[str, str], str]:
    """(source, external id) -> conversation id through the import ledger; the unknown ones are errors."""
    from ._identifiers import identifier_redactor
    from ._production import redaction_settings

    ledger = ImportLedger(stores.repo.engine)
    # People label a call by the id they know; the ledger holds it as the import stored it.
    stored = identifier_redactor(stores, redaction_settings(stores.settings))
    mapped: dict[tuple[str, str], str] = {}
    for source, external in sorted(wanted.items()):
        ordered = sorted(external)
        for start in range(0, len(ordered), _LOOKUP_BATCH):  # bounded IN lists (SQLite's variable limit)
            chunk = {stored(e): e for e in ordered[start:start + _LOOKUP_BATCH]}
            known = ledger.known(source, list(chunk))
            mapped.update({(source, chunk[e]): rec.conversation_id for e, rec in known.items()})
        missing = [e for e in ordered if (source, e) not in mapped]
        if missing:
            errors.append(f"{len(missing)} external id{'s are' if len(missing) > 1 else ' is'} not imported for "
                          f"source {source!r}: {_first(missing)}")
    return mapped


def _first(items: Sequence[str]) -> str:
    more = ", ..." if len(items) > _SHOWN else ""
    return ", ".join(items[:_SHOWN]) + more


def _ratings(labels: Sequence[Label], ids: Sequence[str]) -> dict[str, dict[str, dict[str, int]]]:
    ratings: dict[str, dict[str, dict[str, int]]] = {}
    errors = []
    for label, cid in zip(labels, ids, strict=True):
        by_rater = ratings.setdefault(cid, {}).setdefault(label.criterion, {})
        if label.rater in by_rater:  # one conversation named twice (by its id and its external id)
            errors.append(f"{label.where}: row: rater {label.rater!r} already rated {label.criterion!r} of "
                          f"conversation {cid}; expected one rating per rater and criterion")
        by_rater[label.rater] = label.score
    if errors:
        raise LabelsError(errors)
    return ratings


def _judge_name(stores: Stores, rated: RatedRun, judge_model: str | None) -> str:
    # Default: the judge the run's scorecard shows (its own, else the latest), so a calibration
    # describes the numbers people see.
    if judge_model is not None:
        return judge_label(judge_model)
    return chosen_judge(stores, rated.run, rated.rubric_version, None)[0]


def _judged(stores: Stores, run_id: str, version: str, judge: str) -> dict[str, Any]:
    return {j.conversation_id: j for j in stores.repo.judgments(run_id, version) if j.judge_model == judge}


def judge_labelled(stores: Stores, labels_path: str | Path, run_id: str, *, judge_model: str | None = None,
                   rubric_version: str | None = None, repeats: int = 1,
                   progress: Callable[[int, int], None] | None = None) -> tuple[str, RescoreResult | None]:
    """Have the judge (by default the run's scorecard judge) judge the labelled conversations it has
    no judgment of, or failed on, with `repeats` repeats. Returns the judge's stored name and what
    judging did (None when nothing was left to judge); failures stay `judge_error` (`failed`)."""
    rated = load_labels(stores, labels_path, run_id, rubric_version)
    judge = _judge_name(stores, rated, judge_model)
    stored = _judged(stores, rated.run.id, rated.rubric_version, judge)
    todo = {c for c in rated.ratings if c not in stored or stored[c].status == "judge_error"}
    if not todo:
        return judge, None
    return judge, ensure_judged(stores, rated.run.id, judge_model=judge, rubric_version=rated.rubric_version,
                                repeats=repeats, only=todo, progress=progress)


def store_calibration(stores: Stores, labels_path: str | Path, run_id: str, *, judge_model: str,
                      rubric_version: str | None = None, seed: int = DEFAULT_SEED,
                      resamples: int = DEFAULT_RESAMPLES, dataset: str | None = None,
                      progress: Callable[[int, int], None] | None = None) -> Calibration:
    """Compare the judge's stored judgments with the labels and store the calibration record
    (judging nothing: see `judge_labelled`). Conversations without a usable judgment are left out
    of each row and counted by reason. The record carries the labels' fingerprint (`dataset` names
    the data) and what it covered: the run, the rated conversations and their import sources."""
    if resamples < 1:
        raise ValueError(f"--resamples must be at least 1, got {resamples}")
    rated = load_labels(stores, labels_path, run_id, rubric_version, dataset)
    version = rated.rubric_version
    judge = judge_label(judge_model)
    result = calibrate(rated.ratings, _judged(stores, rated.run.id, version, judge), keys=rated.keys,
                       judge_model=judge, rubric_version=version,
                       judge_prompt_hash=judge_prompt_hash(judge, get_rubric(version)), run_id=rated.run.id,
                       labels_hash=rated.labels_hash, seed=seed, resamples=resamples, labels=rated.fingerprint,
                       import_sources=_import_sources(stores, rated), progress=progress)
    return CalibrationStore(stores.repo.engine).save(result)


def _import_sources(stores: Stores, rated: RatedRun) -> list[str]:
    """The import sources of the rated calls (none on a synthetic run: its calls were never imported)."""
    if rated.run.source != "production":
        return []
    origins = ImportLedger(stores.repo.engine).origins(sorted(rated.ratings))
    return sorted({source for source, _ in origins.values()})


def calibrate_run(stores: Stores, labels_path: str | Path, run_id: str, *, judge_model: str | None = None,
                  rubric_version: str | None = None, repeats: int = 1, seed: int = DEFAULT_SEED,
                  resamples: int = DEFAULT_RESAMPLES, dataset: str | None = None,
                  progress: Callable[[int, int, str, str], None] | None = None) -> CalibrationOutcome:
    """`judge_labelled`, then `store_calibration`: what `polygon calibrate` does. `progress(done,
    total, step, noun)` is told each conversation judged ("calibrate: judged", "conversations") and
    each row bootstrapped ("calibrate: bootstrapped", "rows")."""
    def step(label: str, noun: str) -> Callable[[int, int], None] | None:
        return None if progress is None else (lambda done, total: progress(done, total, label, noun))

    if resamples < 1:
        raise ValueError(f"--resamples must be at least 1, got {resamples}")
    judge, judged = judge_labelled(stores, labels_path, run_id, judge_model=judge_model,
                                   rubric_version=rubric_version, repeats=repeats,
                                   progress=step("calibrate: judged", "conversations"))
    calibration = store_calibration(stores, labels_path, run_id, judge_model=judge,
                                    rubric_version=rubric_version, seed=seed, resamples=resamples, dataset=dataset,
                                    progress=step("calibrate: bootstrapped", "rows"))
    return CalibrationOutcome(calibration=calibration, judged=judged)


def labelled_conversations(stores: Stores, labels_path: str | Path, run_id: str,
                           rubric_version: str | None = None) -> list[LabelledConversation]:
    """The run's labelled conversations with their checks and persona, for fitting a judge.

    Checks are computed as the grading pass computes them (`scorable`); conversations that are never
    scored (a provider or simulator error) are left out.
    """
    rated = load_labels(stores, labels_path, run_id, rubric_version)
    run, suite, agent = run_inputs(stores, rated.run.id, None, None)
    out = []
    for item in scorable(stores, run, suite, agent, only=set(rated.ratings)):
        if isinstance(item, str):
            continue
        conv, checks, scenario = item
        by_key = rated.ratings[conv.id]
        labels = {key: people_means(rated.ratings, key)[conv.id] for key in by_key}
        raters: dict[str, dict[str, int]] = {}
        for key, scores in by_key.items():
            for rater, score in scores.items():
                raters.setdefault(rater, {})[key] = score
        out.append(LabelledConversation(conversation=conv, checks=checks,
                                        persona=scenario.persona if scenario is not None else None,
                                        labels=labels, raters=raters))
    return out


def shown_calibration(stores: Stores, run_ids: Sequence[str], judge_model: str, rubric_version: str, *,
                      records: Sequence[Calibration] | None = None) -> dict[str, Any]:
    """The calibration a scorecard of these runs shows for its judge and rubric version: the one rule
    every front end follows (`polygon show`/`run`/`compare`, the HTML report, the web app and its
    JSON API, the Prefect scorecard artifact; docs/calibration.md, "The record, and where it is shown").

    Among the judge's records under the rubric version (`records`, newest first, else read), the
    newest one measured on one of the runs; else on some of their calls (an imported call keeps its
    id in every run that grades it); else on calls of a production run's import source. The packaged
    sample is shown only on runs holding its calls, and a record made before labels were recorded
    only on its own run. No such record: the newest other one is named by its data alone ("calibrated
    on DATA (n), not on these calls"), never the sample; none at all: "not calibrated". Returns
    `calibration_status` data with its `line`.
    """
    if records is None:
        records = CalibrationStore(stores.repo.engine).of_judge(judge_model, rubric_version)
    record, match = _choose(stores, records, run_ids)
    try:
        current = judge_prompt_hash(judge_model, get_rubric(rubric_version))
    except ValueError:  # an unknown rubric version: nothing to compare the record's prompt with
        current = None
    return calibration_status(record, match, judge_model=judge_model, rubric_version=rubric_version,
                              current_prompt_hash=current)


def _choose(stores: Stores, records: Sequence[Calibration], run_ids: Sequence[str]) -> tuple[Calibration | None, Match]:
    """(record, how it relates to the runs' calls), by the rule of `shown_calibration`."""
    runs = list(dict.fromkeys(run_ids))
    wanted = set(runs)
    own = next((r for r in records if r.run_id in wanted), None)
    if own is not None:
        return own, "same_run"
    imported = [r for r in records if r.labels is not None and r.import_sources]
    if imported:  # only a production run's calls are imported: the ledger names their sources
        sources = set(ImportLedger(stores.repo.engine).production_sources(runs).values())
        shared = [r for r in imported if sources & set(r.import_sources or ())]
        store = CalibrationStore(stores.repo.engine)
        calls = next((r for r in shared if store.holds_any(runs, r.conversation_ids or [])), None)
        if calls is not None:
            return calls, "same_calls"
        # The sample's source says nothing: anyone may import it under a real source's name.
        source = next((r for r in shared if not r.sample), None)
        if source is not None:
            return source, "same_source"
    other = next((r for r in records if not r.sample), None)
    return (other, "other_calls") if other is not None else (None, "none")


def shown_calibrations(stores: Stores, cards: Iterable[tuple[Sequence[str], str, str]]) -> list[dict[str, Any]]:
    """`shown_calibration` for each (run ids, judge model, rubric version), reading each judge's
    records once."""
    store = CalibrationStore(stores.repo.engine)
    read: dict[tuple[str, str], list[Calibration]] = {}
    out = []
    for run_ids, judge, version in cards:
        if (judge, version) not in read:
            read[judge, version] = store.of_judge(judge, version)
        records = read[judge, version]
        out.append(shown_calibration(stores, run_ids, judge, version, records=records))
    return out
