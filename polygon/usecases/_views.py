"""Read models for the web app's run page: score distributions, conversation facets and filters.

Everything here reads the database only (never the artifact store), so a run of thousands of
conversations answers in one or two queries. The judgments shown are one judge's under one rubric
version (`chosen_judge`), the same ones the run's scorecard counts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from polygon_core.adapters.storage import pages
from polygon_core.models import Run

from ._common import Stores
from ._results import chosen_judge

__all__ = ["COMPOSITE_BIN", "conversation_facets", "conversation_list", "run_distributions"]

#: Width of a composite histogram bin, in composite points (0–100): ten bins.
COMPOSITE_BIN = 10
#: More conversations than any run holds: "every row" for the filters pages cannot do in SQL.
_ALL = 10_000_000


def _composite_bins(values: list[float]) -> list[dict[str, Any]]:
    counts = Counter(min(int(v // COMPOSITE_BIN), 100 // COMPOSITE_BIN - 1) for v in values)
    return [{"start": i * COMPOSITE_BIN, "end": (i + 1) * COMPOSITE_BIN, "count": counts.get(i, 0)}
            for i in range(100 // COMPOSITE_BIN)]


def run_distributions(stores: Stores, run: Run, rubric_version: str | None = None) -> dict[str, Any]:
    """The run's composite histogram (ten bins of 10 points; 100 falls in the last) and, per
    criterion, how many conversations got each score (rounded half up to a whole score when the
    judge averaged repeats), from the judgments its scorecard counts."""
    version = rubric_version or run.rubric_version
    judge, judgments = chosen_judge(stores, run, version, None)
    latest = {j.conversation_id: j for j in judgments}  # a re-judged conversation counts once
    composites = [j.composite for j in latest.values() if j.composite is not None]
    scores: dict[str, Counter[int]] = {}
    unscored: Counter[str] = Counter()
    for j in latest.values():
        for c in j.criteria:
            if c.score is None:
                unscored[c.criterion] += 1
            else:
                scores.setdefault(c.criterion, Counter())[int(c.score + 0.5)] += 1
    names = sorted(set(scores) | set(unscored))
    criteria = []
    for name in names:
        counts = scores.get(name, Counter())
        low, high = min([1, *counts]), max([5, *counts])
        criteria.append({"criterion": name, "not_scored": unscored.get(name, 0),
                         "counts": [{"score": s, "count": counts.get(s, 0)} for s in range(low, high + 1)]})
    return {"run_id": run.id, "rubric_version": version, "judge_model": judge, "judged": len(latest),
            "composites": len(composites), "composite_bin": COMPOSITE_BIN,
            "composite": _composite_bins(composites), "criteria": criteria,
            "method": "latest judgment per conversation by the scorecard's judge; criterion scores "
                      "rounded half up to a whole score"}


def conversation_list(stores: Stores, run: Run, *, rubric_version: str | None = None, offset: int = 0,
                      limit: int = 50, sort: str = "conversation_id", scenario: str | None = None,
                      verdict: str | None = None, end_reason: str | None = None,
                      caller_type: str | None = None, gate: str | None = None,
                      assertion: str | None = None, q: str | None = None) -> tuple[int, list[dict[str, Any]]]:
    """(total, one page) of a run's conversations, filtered by the columns SQL filters and by the
    fired gate, failed assertion and a search over id and scenario (which live in JSON or need a
    substring match, so they filter the run's rows here before the page is cut)."""
    kw: dict[str, Any] = dict(rubric_version=rubric_version or run.rubric_version, sort=sort,
                              scenario=scenario or None, verdict=verdict or None,
                              end_reason=end_reason or None, caller_type=caller_type or None)
    if not (gate or assertion or q):
        total, page = pages.conversation_page(stores.repo.engine, run.id, offset=offset, limit=limit, **kw)
        return total, _with_origins(stores, run, page)
    _total, rows = pages.conversation_page(stores.repo.engine, run.id, offset=0, limit=_ALL, **kw)
    needle = (q or "").lower()
    rows = [r for r in rows if (not gate or gate in r["gates"])
            and (not assertion or assertion in r["assertions_failed"])
            and (not needle or needle in f"{r['conversation_id']} {r['scenario_id']}".lower())]
    return len(rows), _with_origins(stores, run, rows[offset:offset + limit])


def _with_origins(stores: Stores, run: Run, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its `origin` (a production call's source and platform call id, else None):
    one ledger lookup of the page's ids, so a bad call can be found on the platform."""
    from ._production import call_origins

    found = call_origins(stores, [r["conversation_id"] for r in rows]) if run.source == "production" else {}
    return [{**r, "origin": o.as_dict() if (o := found.get(r["conversation_id"])) else None} for r in rows]


def conversation_facets(stores: Stores, run: Run, rubric_version: str | None = None) -> dict[str, Any]:
    """Every value the run's conversation filters can take, with how many conversations have it."""
    _total, rows = pages.conversation_page(stores.repo.engine, run.id,
                                           rubric_version=rubric_version or run.rubric_version, limit=_ALL)

    def tally(values: list[str]) -> list[dict[str, Any]]:
        return [{"value": v, "count": n} for v, n in sorted(Counter(values).items())]

    return {"run_id": run.id, "total": len(rows),
            "verdict": tally([r["verdict"] or "unjudged" for r in rows]),
            "scenario": tally([r["scenario_id"] for r in rows]),
            "caller_type": tally([r["caller_type"] for r in rows]),
            "end_reason": tally([r["end_reason"] for r in rows]),
            "gate": tally([g for r in rows for g in set(r["gates"])]),
            "assertion": tally([a for r in rows for a in set(r["assertions_failed"])])}
