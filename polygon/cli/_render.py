"""Rich renderings for the terminal."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from polygon_core.compare import MatrixRow, PairDivergence, Scorecard
from polygon_core.reports import fmt, provenance


def scorecards_table(cards: Sequence[Scorecard]) -> Table:
    """Scorecards side by side."""
    table = Table(title="Scorecards", show_lines=False)
    table.add_column("metric", style="bold")
    for card in cards:
        table.add_column(card.label, justify="right")
    def row(name: str, values: list[str]) -> None:
        table.add_row(name, *values)
    row("run", [c.run_id for c in cards])
    row("mean composite (0–100)", [f"{fmt(c.mean_composite)} [{fmt(c.ci_low)}, {fmt(c.ci_high)}]" for c in cards])
    row("pass / warn / fail", [" / ".join(str(c.verdicts.get(k, 0)) for k in ("pass", "warn", "fail")) for c in cards])
    row("gates fired", [", ".join(f"{k} {v}" for k, v in sorted(c.gates.items())) or "none" for c in cards])
    row("resolution rate", [fmt(c.resolution_rate, 2) for c in cards])
    row("policy-safety rate", [fmt(c.policy_safety_rate, 2) for c in cards])
    row("partial judgments", [str(c.partial) for c in cards])
    row("provider / simulator errors", [f"{c.provider_errors} / {c.simulator_errors}" for c in cards])
    names = sorted({n for c in cards for n in c.criteria})
    for name in names:
        row(f"  {name}", [fmt(c.criteria.get(name), 2) for c in cards])
    return table


def probes_table(cards: Sequence[Scorecard]) -> Table:
    """Probe conformance with Wilson intervals, per configuration."""
    table = Table(title="Behaviour probes (conformance, Wilson 95%)")
    table.add_column("probe")
    for card in cards:
        table.add_column(card.label, justify="right")
    ids = sorted({p.probe_id for c in cards for p in c.probes})
    for pid in ids:
        cells = []
        for card in cards:
            p = next((x for x in card.probes if x.probe_id == pid), None)
            cells.append("—" if p is None or p.rate is None else
                         f"{p.k}/{p.n} {p.rate:.2f} [{p.low:.2f}, {p.high:.2f}]")
        table.add_row(pid, *cells)
    return table


def matrix_table(matrix: Sequence[MatrixRow], labels: Sequence[str]) -> Table:
    """Per-scenario results, most divergent first."""
    table = Table(title="Scenarios (ordered by spread, largest first)")
    table.add_column("scenario")
    for label in labels:
        table.add_column(label, justify="right")
    if len(labels) > 1:
        table.add_column("spread", justify="right")
    for r in matrix:
        cells = []
        for label in labels:
            c = r.cells.get(label)
            if c is None:
                cells.append("[yellow]incomparable[/]")
                continue
            verdicts = " ".join(f"{k}:{v}" for k, v in sorted(c.verdicts.items()))
            cells.append(f"{fmt(c.mean_composite)} ({verdicts})")
        if len(labels) > 1:
            cells.append("incomparable" if r.incomparable else fmt(r.spread))
        table.add_row(r.scenario_id, *cells)
    return table


def _short(text: str | None, limit: int = 90) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def divergence_table(divs: Sequence[PairDivergence], a: str, b: str) -> Table:
    """First divergent turns between two configurations."""
    table = Table(title=f"First divergent turn: {a} vs {b}", show_lines=True)
    for col in ("scenario", "seed", "turn", "reasons", a, b):
        table.add_column(col, overflow="fold")
    for d in divs:
        if d.turn is None:
            table.add_row(d.scenario_id, str(d.seed), "—", "identical", "", "")
            continue
        sa = "\n".join([*(f"→ {t}" for t in d.a_tools), _short(d.a_text) or "(ended)"])
        sb = "\n".join([*(f"→ {t}" for t in d.b_tools), _short(d.b_text) or "(ended)"])
        table.add_row(d.scenario_id, str(d.seed), str(d.turn), ", ".join(d.reasons), sa, sb)
    return table


def print_provenance(console: Console, cards: Sequence[Scorecard]) -> None:
    """How every number above was made."""
    for card in cards:
        console.print(f"[dim]{card.label}: {provenance(card)}[/]")
