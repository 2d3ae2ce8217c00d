"""Reading what is stored, for the front ends: runs, their summaries, conversations and judgments.

The CLI and the web app read through these and never through the storage adapter (its engine,
`Repository` or its store classes): the door to storage is this package (docs/design.md, "Layers";
tests/test_layers.py checks). Each is a thin read; the paginated ones are cut in SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polygon_core.adapters.storage import CalibrationStore, ConversationRecord, pages
from polygon_core.calibration import Calibration
from polygon_core.models import Judgment, ProbeAnswer, Run

from ._common import Stores

__all__ = [
    "CONVERSATION_SORTS",
    "calibration_page",
    "conversation_ids",
    "conversation_judgments",
    "conversation_page",
    "conversation_probe_answers",
    "conversation_record",
    "conversation_records",
    "find_run",
    "judgment_page",
    "list_runs",
    "rubric_versions",
    "run_summaries",
    "run_usage",
    "run_with_conversation",
    "stored_summary",
]

#: The orders `conversation_page` accepts.
CONVERSATION_SORTS: tuple[str, ...] = pages.CONVERSATION_SORTS


def find_run(stores: Stores, run_id: str, *, exact: bool = False) -> Run | None:
    """The run with this id or unique id prefix (only this id when `exact`); None when none matches.
    ValueError naming the candidates when a prefix matches several runs."""
    return stores.repo.get_run(run_id, exact=exact)


def list_runs(stores: Stores, limit: int | None = 50) -> list[Run]:
    """Stored runs, newest first; `limit=None` gives all."""
    return stores.repo.list_runs(limit=limit)


def stored_summary(stores: Stores, run_id: str) -> dict[str, Any] | None:
    """The summary (scorecard) stored when the run finished; None when it has none."""
    return stores.repo.get_run_summary(run_id)


def run_summaries(stores: Stores, run_ids: Sequence[str]) -> dict[str, dict[str, Any] | None]:
    """The stored summaries of several runs, in one query."""
    return pages.run_summaries(stores.repo.engine, run_ids)


def rubric_versions(stores: Stores, run_id: str) -> set[str]:
    """The rubric versions the run's conversations were judged under."""
    return stores.repo.rubric_versions(run_id)


def conversation_ids(stores: Stores, run_id: str) -> set[str]:
    """The ids of the run's stored conversations."""
    return stores.repo.conversation_ids(run_id)


def conversation_records(stores: Stores, run_id: str) -> list[ConversationRecord]:
    """The index records of the run's stored conversations."""
    return stores.repo.list_conversations(run_id)


def conversation_record(stores: Stores, run_id: str, conversation_id: str) -> ConversationRecord | None:
    """One conversation's index record; None when the run did not record it."""
    return pages.conversation_record(stores.repo.engine, run_id, conversation_id)


def conversation_judgments(stores: Stores, run_id: str, conversation_id: str) -> list[Judgment]:
    """Every judgment of one conversation (all rubric versions and judges), in the order saved."""
    return pages.conversation_judgments(stores.repo.engine, run_id, conversation_id)


def conversation_probe_answers(stores: Stores, run_id: str, conversation_id: str) -> list[ProbeAnswer]:
    """One conversation's probe answers, in the order first saved."""
    return pages.conversation_probe_answers(stores.repo.engine, run_id, conversation_id)


def judgment_page(stores: Stores, run_id: str, *, rubric_version: str | None = None, offset: int = 0,
                  limit: int = 50) -> tuple[int, list[Judgment]]:
    """(total, one page) of a run's judgments in the order saved, optionally of one rubric version."""
    return pages.judgment_page(stores.repo.engine, run_id, rubric_version=rubric_version, offset=offset,
                               limit=limit)


def conversation_page(stores: Stores, run_id: str, *, rubric_version: str, offset: int = 0, limit: int = 50,
                      sort: str = "conversation_id", scenario: str | None = None) -> tuple[int, list[dict[str, Any]]]:
    """(total, one page of rows): each conversation's headline facts and its latest judgment under
    `rubric_version`, sorted by one of `CONVERSATION_SORTS`."""
    return pages.conversation_page(stores.repo.engine, run_id, rubric_version=rubric_version, offset=offset,
                                   limit=limit, sort=sort, scenario=scenario)


def calibration_page(stores: Stores, *, offset: int = 0, limit: int = 50, judge_model: str | None = None,
                     rubric_version: str | None = None) -> tuple[int, list[Calibration]]:
    """(total, one page) of stored calibrations, newest first, optionally of one judge / rubric."""
    return CalibrationStore(stores.repo.engine).page(offset=offset, limit=limit, judge_model=judge_model,
                                                     rubric_version=rubric_version)


def run_with_conversation(stores: Stores, conversation_id: str) -> Run | None:
    """The newest stored run holding a conversation of this id; None when none does."""
    return next((r for r in stores.repo.list_runs(limit=None) if stores.repo.has_conversation(r.id, conversation_id)),
                None)


def run_usage(stores: Stores, run_id: str) -> dict[str, Any]:
    """Usage, retries and estimated cost per role over a run's ledgers and its conversations' usage
    (see `polygon_core.adapters.providers.run_usage`)."""
    from polygon_core.adapters.providers import run_usage as usage_of

    convs = [{k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in (r.usage or {}).items()}
             for r in stores.repo.list_conversations(run_id)]
    return usage_of(stores.artifacts, run_id, convs)
