"""The payloads of the routes over what the artifact store keeps (analyses, sweeps, personas), the
older probe trends, and the admin passes: split from `_models` to keep each module small."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ._models import Loose
from ._schema import Page

__all__ = ["AnalysisOut", "AnalysisPage", "PersonaGroups", "ProbeTrendsOut", "RescoreOut", "SweepList", "SweepOut"]


class ProbeTrendsOut(BaseModel):
    """Each probe's conformance across runs, in segments of equal wording (see `/api/trends`,
    which also keeps agents, suites and sources apart)."""

    runs: list[dict[str, Any]]
    series: list[dict[str, Any]]


class RescoreOut(Loose):
    """What a re-score or re-probe pass did: answers added, conversations skipped or failed."""

    run_id: str
    added: int
    skipped: list[str]
    unscored: list[str]
    failed: list[str]
    errors: dict[str, str]


class AnalysisRow(Loose):
    """A stored prompt analysis on the analyses list."""

    prompt_hash: str
    language: str
    length: int
    axes: dict[str, float]
    agents: list[str]


class AnalysisPage(Page):
    """One page of stored prompt analyses."""

    items: list[AnalysisRow]  # type: ignore[assignment]


class AnalysisOut(Loose):
    """One prompt version's analysis, its text and the change since the previous version."""

    prompt_hash: str
    prompt: str
    axes: dict[str, Any]
    previous: dict[str, Any] | None


class SweepList(BaseModel):
    """Stored sweeps with their leader."""

    total: int
    items: list[dict[str, Any]]


class SweepOut(BaseModel):
    """A sweep's ranked points and its refused points."""

    name: str
    leaderboard: list[dict[str, Any]]
    refused: list[dict[str, Any]]
    stopped_early: str | None


class PersonaGroups(BaseModel):
    """Personas grouped by agent and prompt version."""

    total: int
    groups: list[dict[str, Any]]
