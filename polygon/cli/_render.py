"""Rich renderings for the terminal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from polygon_core.compare import (
    Comparison,
    Difference,
    MatrixRow,
    PairDivergence,
    ProbeComparison,
    Scorecard,
)
from polygon_core.judging import HEURISTIC_JUDGE
from polygon_core.reports import (
    PANEL_CAPTION,
    PANEL_TITLE,
    fmt,
    pairing_line,
    panel_rows,
    provenance,
    scorecard_rows,
    stack_lines,
)

from ._fit import fit


def scorecards_table(cards: Sequence[Scorecard]) -> Table:
    """Scorecards side by side."""
    table = Table(title="Scorecards", show_lines=False)
    table.add_column("metric", style="bold")
    for card in cards:
        table.add_column(card.label, justify="right")
    for name, cells in scorecard_rows(cards):  # the rows every scorecard shows (the artifact's too)
        # Criteria indented under the rows above them, as a terminal reads them.
        table.add_row(f"  {name[10:]}" if name.startswith("criterion ") and name != "criterion means over" else name,
                      *cells)
    return table


def panel_table(cards: Sequence[Scorecard]) -> Table | None:
    """The interaction panel of runs of calls side by side; None when no card is of a run with calls."""
    rows = panel_rows(cards)
    if not rows:
        return None
    table = Table(title=PANEL_TITLE, caption=PANEL_CAPTION)
    table.add_column("metric", style="bold")
    for card in cards:
        table.add_column(card.label, justify="right")
    for name, cells in rows:
        table.add_row(name, *cells)
    return table


def print_panel(console: Console, cards: Sequence[Scorecard]) -> None:
    """The interaction panel of runs of calls (fitted to the terminal) and under it what its calls were
    made with (`stack_lines`); nothing when no card is of a run with calls."""
    table = panel_table(cards)
    if table is None:
        return
    console.print(fit(console, table))
    for line in stack_lines(cards):
        # The line names engines, models and noise files: literal text, never rich markup.
        console.print(f"[dim]{escape(line)}[/]", markup=True, highlight=False, soft_wrap=True)


def probes_table(cards: Sequence[Scorecard], comparisons: Sequence[ProbeComparison] = ()) -> Table:
    """Probe conformance with Wilson intervals, per configuration; changed wording is not comparable."""
    stale = {p.probe_id for p in comparisons if not p.comparable}
    # Each card counts one answerer's answers (its `models["probe"]`): the title says whose.
    answerers = ", ".join(dict.fromkeys(c.models.get("probe") or HEURISTIC_JUDGE for c in cards))
    table = Table(title=f"Behaviour probes (conformance, Wilson 95%; answered by {answerers})")
    table.add_column("probe")
    for card in cards:
        table.add_column(card.label, justify="right")
    ids = sorted({p.probe_id for c in cards for p in c.probes})
    for pid in ids:
        cells: list[str | Text] = []
        for card in cards:
            p = next((x for x in card.probes if x.probe_id == pid), None)
            cells.append("—" if p is None or p.rate is None else
                         f"{p.k}/{p.n} {p.rate:.2f} [{p.low:.2f}, {p.high:.2f}]")
        if pid in stale:
            cells = [Text.assemble(("not comparable", "yellow"), f" ({c})") if c != "—" else c for c in cells]
        table.add_row(Text.assemble(pid, (" (wording changed)", "yellow")) if pid in stale else pid, *cells)
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
        cells: list[str | Text] = []
        for label in labels:
            c = r.cells.get(label)
            if c is None:
                cells.append(Text("incomparable", style="yellow"))
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


def divergence_table(divs: Sequence[PairDivergence], a: str, b: str, compact: bool = False) -> Table:
    """First divergent turns between two configurations.

    `compact` (after `polygon run`/`demo`): identical pairs are counted, not listed, and one row per
    scenario stands for its seeds when they all part at the same turns for the same reasons.
    """
    caption = ("first: where the conversations first part (docs/design.md); consequential: the first "
               "turn whose tool calls or ending differ")
    # Each row: the pair whose words are shown, and the seeds it stands for.
    rows: list[tuple[PairDivergence, list[int]]] = [(d, [d.seed]) for d in divs]
    if compact:
        groups: dict[tuple[Any, ...], tuple[PairDivergence, list[int]]] = {}
        for d in divs:
            if d.turn is not None:
                key = (d.scenario_id, d.turn, tuple(d.reasons), d.consequential_turn)
                groups.setdefault(key, (d, []))[1].append(d.seed)
        rows = list(groups.values())
        same = sum(1 for d in divs if d.turn is None)
        caption += (f"; seeds that part alike share a row (the first seed's words shown); {same} identical "
                    "pair(s) not listed (`polygon compare` lists every pair)")
    table = Table(title=f"First divergent turn: {a} vs {b}", show_lines=True, caption=caption)
    for col in ("scenario", "seed", "turn", "reasons", a, b):
        table.add_column(col, overflow="fold")
    for d, seeds in rows:
        if d.turn is None:
            table.add_row(d.scenario_id, str(d.seed), "—", "identical", "", "")
            continue
        sa: str | Text = "\n".join([*(f"→ {t}" for t in d.a_tools), _short(d.a_text) or "(ended)"])
        sb: str | Text = "\n".join([*(f"→ {t}" for t in d.b_tools), _short(d.b_text) or "(ended)"])
        turn, reasons = f"first {d.turn}", ", ".join(d.reasons)
        if d.consequential_turn is not None and d.consequential_turn != d.turn:
            ca = "\n".join([*(f"→ {t}" for t in d.consequential_a_tools), _short(d.consequential_a_text) or "(ended)"])
            cb = "\n".join([*(f"→ {t}" for t in d.consequential_b_tools), _short(d.consequential_b_text) or "(ended)"])
            later = (f"\nturn {d.consequential_turn}:", "dim")
            sa, sb = Text.assemble(sa, later, f"\n{ca}"), Text.assemble(sb, later, f"\n{cb}")
            turn += f"\nconsequential {d.consequential_turn}"
            reasons += "\n" + ", ".join(d.consequential_reasons)
        elif d.consequential_turn is not None:
            turn += " (consequential)"
        table.add_row(d.scenario_id, ", ".join(map(str, seeds)), turn, reasons, sa, sb)
    return table


def differences_table(diffs: Sequence[Difference], scopes: bool = True, compact: bool = False) -> Table:
    """Noise-aware paired differences (candidate − baseline), labelled better / worse / within noise
    (or no pairs, when nothing pairs).

    `compact` lists the overall composite and every row beyond noise; the rest are counted.
    """
    def listed(d: Difference) -> bool:
        if not scopes and d.scope != "overall":
            return False
        return (not compact or d.label not in ("within noise", "no pairs")
                or (d.metric == "composite" and d.scope == "overall"))

    unlisted = [d for d in diffs if (scopes or d.scope == "overall") and not listed(d)]
    what = "within noise or without pairs" if any(d.label == "no pairs" for d in unlisted) else "within noise"
    table = Table(title="Differences against the baseline (paired by scenario and seed)",
                  caption=f"{len(unlisted)} more row(s) {what} (`polygon compare` lists them)" if unlisted else None)
    for col in ("candidate", "metric", "scope", "pairs", "baseline", "candidate mean", "Δ", "95% CI", "label"):
        table.add_column(col, overflow="fold", justify="right" if col in ("pairs", "Δ") else "left")
    style = {"better": "green", "worse": "bold red", "within noise": "dim", "no pairs": "yellow"}
    for d in diffs:
        if not listed(d):
            continue
        ci = "—" if d.ci_low is None else f"[{fmt(d.ci_low, 2)}, {fmt(d.ci_high, 2)}]"
        table.add_row(d.candidate, d.metric, d.scope, str(d.pairs), fmt(d.baseline_mean, 2),
                      fmt(d.candidate_mean, 2), fmt(d.delta, 2), ci, Text(d.label, style=style[d.label]))
    return table


def print_comparison(console: Console, comp: Comparison, compact: bool = False) -> None:
    """Every table of a comparison, the written analysis and the CI verdict (`compact`: rows within
    noise and identical pairs are counted rather than listed)."""
    # Each table as it is when it fits the terminal, else narrower or one block per row (_fit).
    console.print(fit(console, scorecards_table(comp.cards)))
    print_panel(console, comp.cards)
    console.print(fit(console, matrix_table(comp.matrix, comp.labels)))
    if comp.differences:
        console.print(fit(console, differences_table(comp.differences, compact=compact),
                          drop=("baseline", "candidate mean", "pairs"), keys=3))
    for dset in comp.divergence_sets:
        console.print(fit(console, divergence_table(dset.items, dset.a, dset.b, compact=compact)))
    console.print(fit(console, probes_table(comp.cards, comp.probes)))
    if comp.prose.strip():
        console.print("[bold]Analysis[/]", markup=True)
        console.print(comp.prose.strip(), highlight=False, markup=False)
    print_provenance(console, comp.cards)
    for p in comp.pairing:
        console.print(f"Pairs: {pairing_line(p)}", highlight=False, markup=False)
    if len(comp.labels) > 1:
        if comp.ci.exit_code:
            console.print(f"[bold red]Blocks the change[/] (baseline {escape(comp.baseline)}):", markup=True,
                          highlight=False)
            for reason in comp.ci.reasons:
                console.print(f"  - {reason}", highlight=False, markup=False)
        else:
            console.print(f"[green]No candidate is worse than {escape(comp.baseline)} beyond noise; no gate fired.[/]",
                          markup=True,
                          highlight=False)


def print_provenance(console: Console, cards: Sequence[Scorecard]) -> None:
    """How every number above was made, and how far each card's judge agrees with people."""
    for card in cards:
        console.print(f"[dim]{escape(card.label)}: {escape(provenance(card))}[/]", markup=True, highlight=False)
    for card, line in zip(cards, calibration_lines(cards), strict=True):
        # The line names the user's data: literal text, never rich markup.
        console.print(f"[dim]{escape(card.label)}: {escape(line)}[/]", markup=True, highlight=False)
    for card, warning in zip(cards, fitted_warnings(cards), strict=True):
        if warning:
            console.print(f"[yellow]{escape(card.label)}: {escape(warning)}[/]", highlight=False, markup=True)
    for card in cards:
        for line in card.grader_warnings:
            console.print(f"[yellow]{escape(card.label)}: {escape(line)}[/]", highlight=False, markup=True)


def fitted_warnings(cards: Sequence[Scorecard]) -> list[str | None]:
    """Per card, the warning of a fitted judge stored with `--force` that judged it, else None."""
    from polygon import usecases

    stores = usecases.open_stores()
    return [usecases.fitted_judge_warning(stores, card.judge_model) for card in cards]


def calibration_lines(cards: Sequence[Scorecard]) -> list[str]:
    """Per card, the calibration its judge shows on its run's calls (`usecases.shown_calibration`:
    measured on them, else named as measured on other data, else "not calibrated"; docs/calibration.md),
    read from the configured database."""
    from polygon import usecases

    found = usecases.shown_calibrations(usecases.open_stores(),
                                        [([card.run_id], card.judge_model, card.rubric_version) for card in cards])
    return [status["line"] for status in found]
