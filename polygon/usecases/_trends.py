"""Trends over runs: one suite, a metric over time, a line per agent, never mixing what is not comparable.

A line joins runs only when their numbers mean the same thing and are of one agent: the same agent
(name and version), rubric version, source (simulated or production) and judge for a scored metric;
the same agent, wording, source and probe for a probe's conformance. Anything else starts another series.
Each point carries its run's `created_at`, the time axis. A production run's line is labelled by
the import source its calls came from (its agent is often "unknown"). Without a suite, the newest
run's that is not a sweep point's is shown (a sweep's points are compared on its own page). Read from
the runs' stored summaries (scorecards), so a trend over hundreds of runs is one query.
"""

from __future__ import annotations

from typing import Any

from polygon_core.adapters.storage import pages
from polygon_core.models import Run

from ._common import Stores

__all__ = ["TREND_METRICS", "default_suite", "metric_trends", "series_label"]

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


def _is_sweep_point(run: Run) -> bool:
    # A sweep point's run is labelled with the sweep's name as its suite and named after it
    # (`_sweep_steps.point_run`).
    return run.id.startswith(f"sweep-{run.suite}-")


def _choices(runs: list[Run]) -> list[dict[str, Any]]:
    """Each suite that has runs, newest first: its agents, sources and rubric versions, and whether
    it is a sweep's."""
    seen: dict[str, dict[str, Any]] = {}
    for r in runs:
        c = seen.setdefault(r.suite, {"suite": r.suite, "runs": 0, "agents": set(), "sources": set(),
                                      "rubric_versions": set(), "sweep": True})
        c["runs"] += 1
        c["agents"].add(r.agent_name)
        c["sources"].add(r.source)
        c["rubric_versions"].add(r.rubric_version)
        c["sweep"] = c["sweep"] and _is_sweep_point(r)
    return [{**c, "agents": sorted(c["agents"]), "sources": sorted(c["sources"]),
             "rubric_versions": sorted(c["rubric_versions"])} for c in seen.values()]


def default_suite(runs: list[Run], agent: str | None = None) -> str | None:
    """The suite a trend shows when none is asked for: the newest run's (of `agent`, when given)
    that is not a sweep point's, else the newest run's."""
    mine = [r for r in runs if agent is None or r.agent_name == agent] or runs
    return next((r.suite for r in mine if not _is_sweep_point(r)), mine[0].suite if mine else None)


def series_label(run: Run) -> str:
    """What a trend line is called: the agent and its version; for calls imported from production,
    the source they came from (and the agent, when the calls named one)."""
    if run.source != "production":
        return f"{run.agent_name}@{run.agent_version}"
    source = run.suite.removeprefix("production:") if run.suite.startswith("production:") else "production"
    known = run.agent_name and run.agent_name != "unknown"
    return f"calls from {source}" + (f" ({run.agent_name}@{run.agent_version})" if known else "")


def _point(run: Run, value: float | None, low: float | None, high: float | None, n: Any) -> dict[str, Any]:
    return {"run_id": run.id, "created_at": run.created_at, "agent_version": run.agent_version,
            "value": value, "low": low, "high": high, "n": n}


def metric_trends(stores: Stores, *, agent: str | None = None, suite: str | None = None,
                  source: str | None = None, rubric_version: str | None = None,
                  metric: str = "mean_composite", limit: int = 200) -> dict[str, Any]:
    """A metric and every probe's conformance over the runs of one suite (of one agent, when
    `agent` is given), oldest first, a series per agent version (and rubric version, source, judge).

    Without `suite`, `default_suite`'s is taken.
    `metric` is a key of `TREND_METRICS` or `criterion:<name>`; ValueError names the choices.
    """
    if metric not in TREND_METRICS and not metric.startswith("criterion:"):
        raise ValueError(f"metric must be one of {', '.join(TREND_METRICS)} or criterion:<name>, not {metric!r}")
    every = stores.repo.list_runs(limit=None)
    if suite is None:
        suite = default_suite(every, agent)
    runs = [r for r in every if r.suite == suite and (agent is None or r.agent_name == agent)
            and (source is None or r.source == source)
            and (rubric_version is None or r.rubric_version == rubric_version)][:limit]
    runs.reverse()  # oldest first: a trend reads left to right
    cards = pages.run_summaries(stores.repo.engine, [r.id for r in runs])
    series: dict[tuple[str, str, str, str, str], dict[str, Any]] = {}
    probes: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    criteria: set[str] = set()
    for run in runs:
        card = cards.get(run.id)
        if not card:
            continue  # still running: no stored scorecard to read
        criteria.update(card.get("criteria") or {})
        judge = card.get("judge_model") or run.models.get("judge") or ""
        value, low, high = _value(card, metric)
        key = (run.agent_name, run.agent_version, card.get("rubric_version") or run.rubric_version, run.source,
               judge)
        s = series.setdefault(key, {"agent": key[0], "agent_version": key[1], "label": series_label(run),
                                    "rubric_version": key[2], "source": key[3], "judge_model": key[4],
                                    "points": []})
        if value is not None:
            s["points"].append(_point(run, value, low, high, card.get("scored")))
        for p in card.get("probes") or []:
            pkey = (p["probe_id"], series_label(run), p["wording_hash"], run.source)
            ps = probes.setdefault(pkey, {"probe_id": pkey[0], "label": pkey[1], "wording_hash": pkey[2],
                                          "source": pkey[3], "polarity": p.get("polarity"), "points": []})
            if p.get("rate") is not None:
                ps["points"].append(_point(run, p["rate"], p.get("low"), p.get("high"), p.get("n")))
    return {"agent": agent, "suite": suite, "source": source, "rubric_version": rubric_version,
            "metric": metric, "metrics": [*TREND_METRICS, *(f"criterion:{c}" for c in sorted(criteria))],
            "choices": _choices(every), "runs": len(runs),
            "series": [s for s in series.values() if s["points"]],
            "probes": [probes[k] for k in sorted(probes) if probes[k]["points"]]}
