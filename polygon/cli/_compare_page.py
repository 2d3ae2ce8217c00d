"""What `polygon compare` prints without --all: at most a page of each long table.

A comparison of two 100,000-conversation runs has 100,000 pairs and a scenario per thousand
conversations; a terminal needs the overall picture and the rows that matter, and rendering every
row holds the whole table in memory. So without --all the printed copy keeps: the scenarios of
largest spread (the matrix is ordered so), every difference that is not per scenario plus the
per-scenario ones beyond noise first, and the first pairs of each divergence set in (scenario, seed)
order, those that part first. The comparison itself (CI verdict, --json, reports) is never cut.
"""

from __future__ import annotations

from polygon_core.compare import Comparison, DivergenceSet

PAGE = 50


def page(comp: Comparison, limit: int = PAGE) -> tuple[Comparison, list[str]]:
    """A copy of `comp` cut to `limit` rows per long table, and one note per table that was cut."""
    notes: list[str] = []
    matrix = comp.matrix[:limit]
    if len(comp.matrix) > limit:
        notes.append(f"scenarios: the {limit} of largest spread shown of {len(comp.matrix)}")
    scoped = [d for d in comp.differences if d.scope.startswith("scenario:")]
    keep = {id(d) for d in sorted(scoped, key=lambda d: d.label in ("within noise", "no pairs"))[:limit]}
    differences = [d for d in comp.differences if not d.scope.startswith("scenario:") or id(d) in keep]
    if len(scoped) > limit:
        beyond = sum(1 for d in scoped if d.label in ("better", "worse"))
        notes.append(f"per-scenario differences: {limit} shown of {len(scoped)} ({beyond} beyond noise, listed first)")
    sets = []
    for s in comp.divergence_sets:
        parted = [d for d in s.items if d.turn is not None]
        shown = (parted or s.items)[:limit]
        if len(s.items) > len(shown):
            notes.append(f"divergences {s.a} vs {s.b}: {len(shown)} shown of {len(s.items)} pairs "
                         f"({len(parted)} part, {len(s.items) - len(parted)} identical)")
        sets.append(DivergenceSet(a=s.a, b=s.b, items=shown))
    if not notes:
        return comp, []
    cut = comp.model_copy(update={"matrix": matrix, "differences": differences, "divergence_sets": sets})
    return cut, [*notes, "--all lists every row; --json prints the whole comparison"]
