"""A sweep's leaderboard: rank its points, store the report, render it; read stored reports back.

The report is stored at `sweeps/<name>/leaderboard.json` in the artifact store (for the web app and
scripts): {"sweep", "leaderboard": [PointResult…], "refused": [{label, reason…}], "stopped_early",
"same_configuration", "matrix_top"}.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from polygon_core.adapters.artifacts import ArtifactNotFoundError
from polygon_core.reports import md_text
from polygon_core.sweeps import PointResult, SameConfiguration, rank

from ._common import Stores
from ._sweeps import top_matrix

__all__ = ["SWEEP_PREFIX", "Leaderboard", "stored_sweep", "stored_sweeps", "sweep_key", "sweep_leaderboard"]

#: Where sweep reports live in the artifact store.
SWEEP_PREFIX = "sweeps/"


def sweep_key(name: str) -> str:
    """Where a sweep's leaderboard report is stored."""
    return f"{SWEEP_PREFIX}{name}/leaderboard.json"


@dataclass(frozen=True)
class Leaderboard:
    """A stored sweep report and its renderings for operators (a table's rows and Markdown)."""

    report: dict[str, Any]
    table: list[dict[str, Any]]
    markdown: str


def sweep_leaderboard(stores: Stores, name: str, results: list[PointResult], refused: list[dict[str, Any]],
                      stopped: str | None, same: list[SameConfiguration] | None = None) -> Leaderboard:
    """Rank the points, store the report (`sweep_key`) and render it. `same`: points not run because
    an earlier point configures the same (each named with the point it reuses)."""
    ranked = rank(results)
    report = {"sweep": name, "leaderboard": [r.model_dump() for r in ranked], "refused": refused,
              "stopped_early": stopped, "same_configuration": [s.model_dump() for s in same or []],
              # The scenario matrix of the top points: where the best profiles differ.
              "matrix_top": [row.model_dump(mode="json") for row in
                             top_matrix(stores, [(r.label, r.run_id) for r in ranked[:3]])]}
    stores.artifacts.put_text(sweep_key(name), json.dumps(report, indent=2, default=str))
    table = [{"rank": i + 1, "point": r.label, "mean": r.mean_composite, "spread": r.spread_across_seeds,
              "latency/turn ms": r.median_latency_per_turn_ms, "tokens": r.tokens} for i, r in enumerate(ranked)]
    return Leaderboard(report=report, table=table, markdown=_markdown(name, ranked, refused, stopped, same or []))


def _markdown(name: str, ranked: list[PointResult], refused: list[dict[str, Any]], stopped: str | None,
              same: list[SameConfiguration]) -> str:
    # The sweep name, point labels and reasons come from the spec file: literal text, never markup.
    lines = [f"# Sweep {md_text(name)}", ""]
    if stopped:
        lines += [f"**Stopped early:** {md_text(stopped)}", ""]
    lines += ["| rank | point | mean | 95% CI | spread | latency/turn ms | tokens |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {i + 1} | {md_text(r.label)} | {r.mean_composite} | [{r.ci_low}, {r.ci_high}] | "
              f"{r.spread_across_seeds} | {r.median_latency_per_turn_ms} | {r.tokens} |" for i, r in enumerate(ranked)]
    for item in refused:
        lines.append(f"\nRefused: {md_text(item['label'])}: {md_text(item['reason'])}")
    for dup in same:
        lines.append(f"\nNot run again: {md_text(dup.label)} is the configuration of {md_text(dup.same_as)}")
    return "\n".join(lines)


def stored_sweeps(stores: Stores) -> dict[str, dict[str, Any]]:
    """Every stored sweep report by the folder it is stored under, in the store's key order."""
    return {key.split("/")[1]: json.loads(stores.artifacts.get_text(key))
            for key in stores.artifacts.list(SWEEP_PREFIX) if key.endswith("/leaderboard.json")}


def _folder_name(name: str) -> bool:
    return bool(name.strip()) and name not in (".", "..") and not any(c in name for c in "/\\\x00")


def stored_sweep(stores: Stores, name: str) -> dict[str, Any] | None:
    """The stored report of the sweep `name`; None when there is none, and for a name no sweep is
    stored under (a sweep is one folder under `sweeps/`, as `stored_sweeps` lists them): a
    backslash, NUL, `/` or `..` in a name from a URL was the store's refused key, a 500."""
    if not _folder_name(name):
        return None
    try:
        return json.loads(stores.artifacts.get_text(sweep_key(name)))
    except ArtifactNotFoundError:
        return None
