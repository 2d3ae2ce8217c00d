"""Trends over runs: one agent and suite, a metric run after run, never mixing what is not comparable.

A line joins runs only when their numbers mean the same thing: the same rubric version, source
(simulated or production) and judge for a scored metric; the same wording, source and probe for a
probe's conformance. Anything else starts another series. Read from the runs' stored summaries
(scorecards), so a trend over hundreds of runs is one query.
"""

from __future__ import annotations

from typing import Any

from polygon_core.adapters.storage import pages
from polygon_core.models import Run

from ._common import Stores

__all__ = ["TREND_METRICS", "metric_trends"]

#: metric → (scorecard field, its interval field or None). Criteria are `criterion:<name>`.
TREND_METRICS: dict[str, tuple[str, str | None]] = {
    "mean_composite": ("mean_composite", "ci"),
    "resolution_rate": ("resolution_rate", "resolution_ci"),
    "policy_safety_rate": ("policy_safety_rate", "policy_safety_ci"),
}


def _value(card: dict[str, Any], metric: str) -> tuple[float | None, float | None, float | None]:
    """(value, low, high) of a metric on a stored scorecard; None where it has none."""
    if metric.startswith("criterion:"):
        return (card.get("criteria") or {}).get(metric.split(":", 1)[1]), None, None
    field, interval = TREND_METRICS[metric]
    if interval == "ci":
        return card.get(field), card.get("ci_low"), card.get("ci_high")
    ci = card.get(interval) if interval else None
    return card.get(field), (ci[0] if ci else None), (ci[1] if ci else None)


def _choices(runs: list[Run]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in runs:
        c = seen.setdefault((r.agent_name, r.suite), {"agent": r.agent_name, "suite": r.suite, "runs": 0,
                                                      "sources": set(), "rubric_versions": set()})
        c["runs"] += 1
        c["sources"].add(r.source)
        c["rubric_versions"].add(r.rubric_version)
    return [{**c, "sources": sorted(c["sources"]), "rubric_versions": sorted(c["rubric_versions"])}
            for c in seen.values()]


def _point(run: Run, value: float | None, low: float | None, high: float | None, n: Any) -> dict[str, Any]:
    return {"run_id": run.id, "created_at": run.created_at, "agent_version": run.agent_version,
            "value": value, "low": low, "high": high, "n": n}


def metric_trends(stores: Stores, *, agent: str | None = None, suite: str | None = None,
                  source: str | None = None, rubric_version: str | None = None,
                  metric: str = "mean_composite", limit: int = 200) -> dict[str, Any]:
    """A metric and every probe's conformance over the runs of one agent and suite, oldest first.

    Without `agent`/`suite`, the newest run's are taken (a trend is never of several agents).
    `metric` is a key of `TREND_METRICS` or `criterion:<name>`; ValueError names the choices.
    """
    if metric not in TREND_METRICS and not metric.startswith("criterion:"):
        raise ValueError(f"metric must be one of {', '.join(TREND_METRICS)} or criterion:<name>, not {metric!r}")
    every = stores.repo.list_runs(limit=None)
    if every and (agent is None or suite is None):
        agent = agent or every[0].agent_name
        suite = suite or next((r.suite for r in every if r.agent_name == agent), every[0].suite)
    runs = [r for r in every if r.agent_name == agent and r.suite == suite
            and (source is None or r.source == source)
            and (rubric_version is None or r.rubric_version == rubric_version)][:limit]
    runs.reverse()  # oldest first: a trend reads left to right
    cards = pages.run_summaries(stores.repo.engine, [r.id for r in runs])
    series: dict[tuple[str, str, str], dict[str, Any]] = {}
    probes: dict[tuple[str, str, str], dict[str, Any]] = {}
    criteria: set[str] = set()
    for run in runs:
        card = cards.get(run.id)
        if not card:
            continue  # still running: no stored scorecard to read
        criteria.update(card.get("criteria") or {})
        judge = card.get("judge_model") or run.models.get("judge") or ""
        value, low, high = _value(card, metric)
        key = (card.get("rubric_version") or run.rubric_version, run.source, judge)
        s = series.setdefault(key, {"rubric_version": key[0], "source": key[1], "judge_model": key[2],
                                    "points": []})
        if value is not None:
            s["points"].append(_point(run, value, low, high, card.get("scored")))
        for p in card.get("probes") or []:
            pkey = (p["probe_id"], p["wording_hash"], run.source)
            ps = probes.setdefault(pkey, {"probe_id": pkey[0], "wording_hash": pkey[1], "source": pkey[2],
                                          "polarity": p.get("polarity"), "points": []})
            if p.get("rate") is not None:
                ps["points"].append(_point(run, p["rate"], p.get("low"), p.get("high"), p.get("n")))
    return {"agent": agent, "suite": suite, "source": source, "rubric_version": rubric_version,
            "metric": metric, "metrics": [*TREND_METRICS, *(f"criterion:{c}" for c in sorted(criteria))],
            "choices": _choices(every), "runs": len(runs),
            "series": [s for s in series.values() if s["points"]],
            "probes": [probes[k] for k in sorted(probes) if probes[k]["points"]]}
