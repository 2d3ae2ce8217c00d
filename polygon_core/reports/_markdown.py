"""Plain renderings of scorecards and comparisons (markdown and table rows for Prefect artifacts).

Every user-provided value (agent and run labels, scenario and probe ids, transcript text, tool
names, the written analysis) goes through `md_text` / `md_code`, so a name like
``<img src=x onerror=alert(1)>`` or ``[click](javascript:…)`` renders as the text it is, never
as HTML, a link or table structure. Polygon's own vocabulary (reasons, metric names) is left as is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from ..compare import Comparison, Difference, MatrixRow, PairCount, PairDivergence, Scorecard
from ..models import REPORT_FORMAT
from ..scoring import in_rubric_order
from ._voice import PANEL_CAPTION, PANEL_TITLE, metric_label, panel_cell, panel_rows, stack_lines, stack_text

# What can start markup in CommonMark/GFM inline text: escapes, code, emphasis, links and images,
# table cells, strikethrough. `<`, `>` and `&` become HTML entities first (no raw HTML, no autolink).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~!])")


def md_text(value: object, *, inline: bool = True) -> str:
    """`value` as literal markdown text; `inline` (a table cell, a heading) also folds newlines."""
    text = _MD_SPECIAL.sub(r"\\\1", html.escape(str(value), quote=False))
    return " ".join(text.split("\n")).replace("\r", " ") if inline else text


def md_code(value: object) -> str:
    """`value` as an inline code span (a backtick inside could close the span, so it is replaced)."""
    return "`" + " ".join(str(value).replace("`", "'").split()) + "`"


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for people; '—' when there is none."""
    return "—" if value is None else f"{value:.{digits}f}"


def provenance(card: Scorecard) -> str:
    """How the card's numbers were made."""
    models = ", ".join(f"{k}={v}" for k, v in sorted(card.models.items()))
    est = " (estimated)" if card.tokens_estimated else ""
    return (f"rubric {card.rubric_version}; judge {card.judge_model}; {models}; "
            f"tokens {card.tokens}{est}; interval: {card.ci_method}")


def scorecard_table(card: Scorecard, calibration: str | None = None,
                    warning: str | None = None) -> list[dict[str, object]]:
    """Rows for a Prefect table artifact; `calibration` is the judge's calibration line for the
    card's run (`polygon.usecases.shown_calibration`), and `warning` the warning of a fitted judge
    stored with `--force` (`polygon.usecases.fitted_judge_warning`), its last rows when given."""
    rows: list[dict[str, object]] = [
        {"metric": "mean composite", "value": fmt(card.mean_composite),
         "detail": f"95% CI [{fmt(card.ci_low)}, {fmt(card.ci_high)}]"},
        {"metric": "verdicts", "value": " / ".join(f"{k} {v}" for k, v in card.verdicts.items()),
         "detail": f"{card.scored} scored of {card.conversations}"},
        {"metric": "gates fired", "value": sum(card.gates.values()),
         "detail": ", ".join(f"{k}: {v}" for k, v in sorted(card.gates.items())) or "none"},
        {"metric": "resolution rate", "value": fmt(card.resolution_rate, 2), "detail": "assertions"},
        {"metric": "policy-safety rate", "value": fmt(card.policy_safety_rate, 2), "detail": "ordering assertions"},
        {"metric": "pass^k over seeds", "value": ", ".join(f"k={k}: {v:.2f}" for k, v in card.pass_hat_k.items()) or "—",
         "detail": "mean over scenarios of C(c,k)/C(n,k), success = pass verdict"},
        {"metric": "noise floor", "value": fmt(card.noise_floor),
         "detail": f"repeated runs {', '.join(card.noise_floor_runs)}" if card.noise_floor_runs else "one run"},
        {"metric": "tokens / cost / latency",
         "value": f"{card.tokens} / {fmt(card.cost_usd, 4)} / {fmt(card.latency_ms)}",
         "detail": "tokens" + (" estimated" if card.tokens_estimated else "") + "; cost USD (— without a price); mean agent ms"},
        {"metric": "provider / simulator errors", "value": f"{card.provider_errors} / {card.simulator_errors}",
         "detail": "counted apart, never scored"},
    ]
    for name in in_rubric_order(card.criteria, [card.rubric_version]):
        rows.append({"metric": f"criterion {name}", "value": fmt(card.criteria[name], 2),
                     "detail": f"mean 1–5 over {card.criteria_counts.get(name, card.judged)} judgments"})
    for name, summary in card.voice.items():  # a run of calls: its interaction panel
        rows.append({"metric": f"call {metric_label(name)}", "value": panel_cell(summary),
                     "detail": "mean over calls [95% interval] · calls with a value · events"})
    if card.voice:
        rows.append({"metric": "calls made with", "value": stack_text(card),
                     "detail": "speech engines by role, the line's conditions, the cascade's turn-taking"})
    if calibration is not None:
        rows.append({"metric": "judge calibration", "value": calibration,
                     "detail": "agreement with people's ratings (docs/calibration.md)"})
    if warning:
        rows.append({"metric": "judge warning", "value": warning,
                     "detail": "a fitted judge stored with --force (docs/calibration.md)"})
    return rows


def scorecard_markdown(card: Scorecard, calibration: str | None = None, warning: str | None = None) -> str:
    """A scorecard as markdown (with the judge's calibration line and a forced fit's warning when
    given, as `scorecard_table`)."""
    lines = [f"## {md_text(card.label)} (run {md_code(card.run_id)})", "", f"_{md_text(provenance(card))}_", "",
             "| metric | value | detail |", "|---|---|---|"]
    # The calibration, warning and calls' lines name data (a dataset, a judge, noise files): literal
    # text, never markup.
    literal = {"judge calibration", "judge warning", "calls made with"}
    lines += [f"| {r['metric']} | {md_text(r['value']) if r['metric'] in literal else r['value']} | "
              f"{r['detail']} |" for r in scorecard_table(card, calibration, warning)]
    if card.probes:
        lines += ["", "| probe | conformance | 95% Wilson | n |", "|---|---|---|---|"]
        for p in card.probes:
            lines.append(f"| {md_text(p.probe_id)} ({p.polarity}) | {fmt(p.rate, 2)} | "
                         f"[{fmt(p.low, 2)}, {fmt(p.high, 2)}] | {p.n} |")
    return "\n".join(lines) + "\n"


def matrix_markdown(matrix: Sequence[MatrixRow], labels: Sequence[str]) -> str:
    """The scenario matrix as markdown, most divergent scenario first."""
    head = "| scenario | " + " | ".join(md_text(label) for label in labels) + " | spread |"
    lines = [head, "|" + "---|" * (len(labels) + 2)]
    for row in matrix:
        cells = []
        for label in labels:
            cell = row.cells.get(label)
            cells.append("incomparable" if cell is None else
                         f"{fmt(cell.mean_composite)} ({', '.join(f'{k} {v}' for k, v in sorted(cell.verdicts.items()))})")
        spread = "incomparable" if row.incomparable else fmt(row.spread)
        lines.append(f"| {md_text(row.scenario_id)} | " + " | ".join(cells) + f" | {spread} |")
    return "\n".join(lines) + "\n"


def divergence_markdown(divs: Sequence[PairDivergence], a: str, b: str) -> str:
    """First divergent turns between two configurations."""
    lines = [f"| scenario | seed | turn | reasons | {md_text(a)} | {md_text(b)} |", "|---|---|---|---|---|---|"]
    for d in divs:
        if d.turn is None:
            lines.append(f"| {md_text(d.scenario_id)} | {d.seed} | — | identical | | |")
            continue
        sa, sb = _said(d.a_tools, d.a_text), _said(d.b_tools, d.b_text)
        lines.append(f"| {md_text(d.scenario_id)} | {d.seed} | {d.turn} | {', '.join(d.reasons)} | {sa} | {sb} |")
        if d.consequential_turn is not None and d.consequential_turn != d.turn:
            ca = _said(d.consequential_a_tools, d.consequential_a_text)
            cb = _said(d.consequential_b_tools, d.consequential_b_text)
            lines.append(f"| ↳ consequential | | {d.consequential_turn} | {', '.join(d.consequential_reasons)} "
                         f"| {ca} | {cb} |")
    return "\n".join(lines) + "\n"


def _said(tools: Sequence[str], text: str | None) -> str:
    """A table cell: the tools called (code spans) and what was said, as literal text."""
    return " ".join([*(md_code(t) for t in tools), md_text(text) if text else "(ended)"])


def panel_markdown(cards: Sequence[Scorecard]) -> str:
    """The interaction panel of runs of calls as markdown (a metric a row, a run a column); '' when
    no card is of a run with calls."""
    rows = panel_rows(cards)
    if not rows:
        return ""
    lines = ["| metric | " + " | ".join(md_text(c.label) for c in cards) + " |", "|" + "---|" * (len(cards) + 1)]
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
    return "\n".join(lines) + "\n"


def differences_markdown(diffs: Sequence[Difference]) -> str:
    """Noise-aware differences (candidate − baseline) as markdown."""
    lines = ["| candidate | metric | scope | pairs | Δ | 95% CI | label |", "|---|---|---|---|---|---|---|"]
    for d in diffs:
        ci = "—" if d.ci_low is None else f"[{fmt(d.ci_low, 2)}, {fmt(d.ci_high, 2)}]"
        lines.append(f"| {md_text(d.candidate)} | {d.metric} | {md_text(d.scope)} | {d.pairs} | {fmt(d.delta, 2)} "
                     f"| {ci} | {d.label} |")
    return "\n".join(lines) + "\n"


def pairing_line(p: PairCount) -> str:
    """How a candidate pairs with the baseline by (scenario, seed), and the conversations left without a pair."""
    return (f"{p.candidate} vs {p.baseline}: {p.shared} (scenario, seed) pair(s); no pair for "
            f"{p.baseline_unpaired} of {p.baseline}'s {p.baseline_conversations} conversations and "
            f"{p.candidate_unpaired} of {p.candidate}'s {p.candidate_conversations}")


def comparison_markdown(comp: Comparison, warnings: Mapping[str, str | None] | None = None) -> str:
    """The whole comparison as markdown (the Prefect artifact): verdict, analysis, matrix, divergences.
    `warnings`, by run id: the warning of a fitted judge stored with `--force` that judged the run
    (`polygon.usecases.fitted_judge_warning`), each a line under the verdict."""
    verdict = ("**blocks the change**: " + "; ".join(md_text(r) for r in comp.ci.reasons)) if comp.ci.exit_code else \
        "no candidate is worse beyond noise and no gate fired"
    # The format line is an HTML comment: a reader of the file finds it, a rendered page hides it.
    parts = [f"<!-- polygon report format {REPORT_FORMAT} -->", f"# Comparison (baseline {md_text(comp.baseline)})", "",
             f"CI verdict: {verdict}", ""]
    parts += [*(f"Pairs: {md_text(pairing_line(p))}" for p in comp.pairing), *([""] if comp.pairing else [])]
    shown = [f"**{md_text(c.label)}**: {md_text(w)}" for c in comp.cards if (w := (warnings or {}).get(c.run_id))]
    parts += [*shown, *([""] if shown else [])]
    if comp.prose.strip():
        parts += ["## Analysis", "", md_text(comp.prose.strip(), inline=False), ""]
    panel = panel_markdown(comp.cards)
    if panel:
        parts += [f"## {PANEL_TITLE}", "", f"_{PANEL_CAPTION}_", "", panel]
        parts += [line for made in stack_lines(comp.cards) for line in (f"_{md_text(made)}_", "")]
    parts += ["## Scenario matrix (largest spread first)", "", matrix_markdown(comp.matrix, comp.labels)]
    if comp.differences:
        parts += ["## Differences (paired, noise-aware)", "", differences_markdown(comp.differences)]
    for dset in comp.divergence_sets:
        parts += [f"## First divergent turns: {md_text(dset.a)} vs {md_text(dset.b)}", "",
                  divergence_markdown(dset.items, dset.a, dset.b)]
    stale = [p.probe_id for p in comp.probes if not p.comparable]
    if stale:
        parts += [f"Not comparable (probe wording changed between runs): {md_text(', '.join(stale))}", ""]
    return "\n".join(parts)


def matrix_table(matrix: Sequence[MatrixRow], labels: Sequence[str]) -> list[dict[str, object]]:
    """Rows for a Prefect table artifact of the scenario matrix."""
    rows: list[dict[str, object]] = []
    for r in matrix:
        row: dict[str, object] = {"scenario": r.scenario_id}
        for label in labels:
            c = r.cells.get(label)
            row[label] = "incomparable" if c is None else (
                f"{fmt(c.mean_composite)} ({', '.join(f'{k} {v}' for k, v in sorted(c.verdicts.items()))})")
        row["spread"] = "incomparable" if r.incomparable else fmt(r.spread)
        rows.append(row)
    return rows
