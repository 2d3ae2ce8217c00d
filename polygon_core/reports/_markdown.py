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

from ..compare import Comparison, Difference, MatrixRow, PairCount, PairDivergence, Scorecard, criterion_cell
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


#: pass^k values a scorecard shows in full (k = 1 … this); beyond it the first few and the last, so a
#: run of 334 seeds shows one readable cell, not 334 values (`--json` keeps every one).
PASSK_SHOWN = 5


def passk_text(pass_hat_k: Mapping[int, float], *, sep: str = " ") -> str:
    """pass^k for people, as every scorecard shows it (terminal, artifact, HTML): each k up to
    `PASSK_SHOWN` values, else the first `PASSK_SHOWN - 1`, '…' and the last with the count; '—'
    when there is none. `sep` goes between k and its value."""
    items = sorted(pass_hat_k.items())
    if not items:
        return "—"
    shown = [f"k={k}{sep}{v:.2f}" for k, v in items]
    if len(items) <= PASSK_SHOWN:
        return ", ".join(shown)
    return ", ".join(shown[:PASSK_SHOWN - 1]) + f", … {shown[-1]} ({len(items)} values; --json lists all)"


def provenance(card: Scorecard) -> str:
    """How the card's numbers were made."""
    models = ", ".join(f"{k}={v}" for k, v in sorted(card.models.items()))
    est = " (estimated)" if card.tokens_estimated else ""
    return (f"rubric {card.rubric_version}; judge {card.judge_model}; {models}; "
            f"tokens {card.tokens}{est}; interval: {card.ci_method}")


def passk_cell(card: Scorecard) -> str:
    """The scorecard's pass^k cell (a production run has none: it is over repeated seeds)."""
    if not card.pass_hat_k and card.source == "production":
        return "— (real calls)"
    return passk_text(card.pass_hat_k)


def _wilson(rate: float | None, ci: tuple[float, float] | None) -> str:
    if rate is None:
        return "—"
    return f"{rate:.2f}" + ("" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]")


def scorecard_rows(cards: Sequence[Scorecard]) -> list[tuple[str, list[str]]]:
    """The scorecard's rows as every reader sees them (`polygon show`'s table, the Prefect
    artifact): (metric, one cell per card). Error rows appear only when some card has them, so a
    clean run's card stays short; criteria come in the rubric's order (heaviest first)."""
    rows: list[tuple[str, list[str]]] = [
        ("run", [c.run_id for c in cards]),
        ("mean composite (0–100)", [f"{fmt(c.mean_composite)} [{fmt(c.ci_low)}, {fmt(c.ci_high)}]" for c in cards]),
        ("pass / warn / fail", [" / ".join(str(c.verdicts.get(k, 0)) for k in ("pass", "warn", "fail")) for c in cards]),
        ("gates fired", [", ".join(f"{k} {v}" for k, v in sorted(c.gates.items())) or "none" for c in cards]),
        ("resolution rate [Wilson]", [_wilson(c.resolution_rate, c.resolution_ci) for c in cards]),
        ("policy-safety rate [Wilson]", [_wilson(c.policy_safety_rate, c.policy_safety_ci) for c in cards]),
        ("pass^k over seeds", [passk_cell(c) for c in cards]),
        ("noise floor (repeated runs)", ["— (one run)" if c.noise_floor is None else fmt(c.noise_floor) for c in cards]),
        ("tokens", [f"{c.tokens}{' (est.)' if c.tokens_estimated else ''}" for c in cards]),
        ("cost (USD)", ["— (no price)" if c.cost_usd is None else fmt(c.cost_usd, 4) for c in cards]),
        ("mean agent latency (ms)", [fmt(c.latency_ms) for c in cards]),
        ("partial judgments", [str(c.partial) for c in cards]),
        ("provider / simulator errors", [f"{c.provider_errors} / {c.simulator_errors}" for c in cards]),
    ]
    if any(c.agent_failures for c in cards):
        rows.append(("broken calls (fail, not judged)", [str(c.agent_failures) for c in cards]))
    if any(c.judge_errors or c.probe_errors for c in cards):
        rows.append(("judge / probe errors", [f"{c.judge_errors} / {c.probe_errors}" for c in cards]))
    names = in_rubric_order({n for c in cards for n in c.criteria}, [c.rubric_version for c in cards])
    if names and any(c.judge_errors for c in cards):  # the means below leave the failed judgments out
        rows.append(("criterion means over", [f"{c.judged} judgments" for c in cards]))
    rows += [(f"criterion {name}", [criterion_cell(c, name) for c in cards]) for name in names]
    return rows


#: What each scorecard row means, the artifact's third column.
_DETAILS = {
    "mean composite (0–100)": "mean [95% CI]",
    "pass / warn / fail": "verdicts of scored conversations",
    "resolution rate [Wilson]": "assertions",
    "policy-safety rate [Wilson]": "ordering assertions",
    "pass^k over seeds": "mean over scenarios of C(c,k)/C(n,k), success = pass verdict",
    "tokens": "est.: counted by Polygon, not reported by the provider",
    "cost (USD)": "— without a price",
    "mean agent latency (ms)": "mean agent-turn reply time over conversations",
    "provider / simulator errors": "counted apart, never scored",
}


def scorecard_table(card: Scorecard, calibration: str | None = None,
                    warning: str | None = None) -> list[dict[str, object]]:
    """Rows for a Prefect table artifact: `polygon show`'s scorecard rows (`scorecard_rows`), each
    with what it means; `calibration` is the judge's calibration line for the card's run
    (`polygon.usecases.shown_calibration`), and `warning` the warning of a fitted judge stored
    with `--force` (`polygon.usecases.fitted_judge_warning`), its last rows when given."""
    rows: list[dict[str, object]] = []
    for name, (value,) in scorecard_rows([card]):
        detail = _DETAILS.get(name, "")
        if name.startswith("criterion ") and name != "criterion means over":
            detail = f"mean 1–5 over {card.criteria_counts.get(name[10:], card.judged)} judgments"
        elif name == "noise floor (repeated runs)" and card.noise_floor_runs:
            detail = f"repeated runs {', '.join(card.noise_floor_runs)}"
        rows.append({"metric": name, "value": value, "detail": detail})
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
    for line in card.grader_warnings:
        rows.append({"metric": "judge warning", "value": line,
                     "detail": "one value everywhere: readable, but not reading the calls"})
    return rows


def scorecard_markdown(card: Scorecard, calibration: str | None = None, warning: str | None = None) -> str:
    """A scorecard as markdown (with the judge's calibration line and a forced fit's warning when
    given, as `scorecard_table`)."""
    lines = [f"## {md_text(card.label)} (run {md_code(card.run_id)})", "", f"_{md_text(provenance(card))}_", "",
             "| metric | value | detail |", "|---|---|---|"]
    # The calibration, warning and calls' lines name data (a dataset, a judge, noise files): literal
    # text, never markup.
    literal = {"run", "judge calibration", "judge warning", "calls made with"}
    lines += [f"| {r['metric']} | {md_text(r['value']) if r['metric'] in literal else r['value']} | "
              f"{r['detail']} |" for r in scorecard_table(card, calibration, warning)]
    if card.probes:
        lines += ["", "| probe | conformance | 95% Wilson | n |", "|---|---|---|---|"]
        for p in card.probes:
            lines.append(f"| {md_text(p.probe_id)} ({p.polarity}) | {fmt(p.rate, 2)} | "
                         f"[{fmt(p.low, 2)}, {fmt(p.high, 2)}] | {p.n} |")
    return "\n".join(lines) + "\n"


def matrix_markdown(matrix: Sequence[MatrixRow], labels: Sequence[str], *, limit: int | None = None) -> str:
    """The scenario matrix as markdown, most divergent scenario first (the first `limit` rows, and
    how many more, when given)."""
    head = "| scenario | " + " | ".join(md_text(label) for label in labels) + " | spread |"
    lines = [head, "|" + "---|" * (len(labels) + 2)]
    for row in matrix if limit is None else matrix[:limit]:
        cells = []
        for label in labels:
            cell = row.cells.get(label)
            cells.append("incomparable" if cell is None else
                         f"{fmt(cell.mean_composite)} ({', '.join(f'{k} {v}' for k, v in sorted(cell.verdicts.items()))})")
        spread = "incomparable" if row.incomparable else fmt(row.spread)
        lines.append(f"| {md_text(row.scenario_id)} | " + " | ".join(cells) + f" | {spread} |")
    if limit is not None and len(matrix) > limit:
        lines += ["", f"{len(matrix) - limit} more scenario(s) of {len(matrix)} not listed here (smaller spread): "
                      "the HTML report and `--json` (`matrix`) list every one"]
    return "\n".join(lines) + "\n"


def divergence_markdown(divs: Sequence[PairDivergence], a: str, b: str, *,
                        limit: int | None = None, run_ids: tuple[str, str] | None = None) -> str:
    """First divergent turns between two configurations: every pair, or with `limit` the counts,
    the `limit` worst divergent pairs (`worst_first`) and where the rest are (`run_ids`: the two
    runs, for the command that lists every pair)."""
    lines = [f"| scenario | seed | turn | reasons | {md_text(a)} | {md_text(b)} |", "|---|---|---|---|---|---|"]
    shown = list(divs) if limit is None else worst_first(divs)[:limit]
    for d in shown:
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
    if limit is None:
        return "\n".join(lines) + "\n"
    head = [divergence_counts(divs), ""]
    if not shown:
        return "\n".join(head)
    rest = sum(1 for d in divs if d.turn is not None) - len(shown)
    tail = ["", f"{rest} more divergent pair(s) not listed here: {_elsewhere(run_ids)}"] if rest else []
    return "\n".join([*head, *lines, *tail]) + "\n"


def divergence_counts(divs: Sequence[PairDivergence]) -> str:
    """One line of counts: the pairs, the divergent ones (how many at a consequential turn) and the
    identical ones."""
    divergent = [d for d in divs if d.turn is not None]
    consequential = sum(1 for d in divergent if d.consequential_turn is not None)
    return (f"{len(divs)} pair(s): {len(divergent)} divergent ({consequential} with a consequential turn), "
            f"{len(divs) - len(divergent)} identical")


def worst_first(divs: Sequence[PairDivergence]) -> list[PairDivergence]:
    """The divergent pairs, worst first: those whose tool calls or ending differ (consequential)
    before wording alone, then by the earliest turn they part at, then by scenario and seed."""
    divergent = [d for d in divs if d.turn is not None]
    return sorted(divergent, key=lambda d: (d.consequential_turn is None,
                                            d.consequential_turn if d.consequential_turn is not None else d.turn or 0,
                                            d.turn or 0, d.scenario_id, d.seed))


def _elsewhere(run_ids: tuple[str, str] | None) -> str:
    """Where every pair is listed: the HTML report and the JSON of the comparison."""
    runs = " ".join(md_code(r) for r in run_ids) if run_ids else "RUN_A RUN_B"
    return (f"the HTML report (`polygon compare ... -o report.html`) and `--json` (`divergence_sets`) list every "
            f"pair (runs {runs})")


#: Characters of an agent's words a divergence cell keeps (the HTML report shows them whole).
SAID_CHARS = 160


def _said(tools: Sequence[str], text: str | None) -> str:
    """A table cell: the tools called (code spans) and what was said, as literal text (cut at
    `SAID_CHARS`, so one long reply cannot fill a pull-request comment)."""
    if text and len(text) > SAID_CHARS:
        text = text[:SAID_CHARS].rstrip() + " …"
    return " ".join([*(md_code(t)[:SAID_CHARS] for t in tools), md_text(text) if text else "(ended)"])


def panel_markdown(cards: Sequence[Scorecard]) -> str:
    """The interaction panel of runs of calls as markdown (a metric a row, a run a column); '' when
    no card is of a run with calls."""
    rows = panel_rows(cards)
    if not rows:
        return ""
    lines = ["| metric | " + " | ".join(md_text(c.label) for c in cards) + " |", "|" + "---|" * (len(cards) + 1)]
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
    return "\n".join(lines) + "\n"


def differences_markdown(diffs: Sequence[Difference], *, limit: int | None = None) -> str:
    """Noise-aware differences (candidate − baseline) as markdown; with `limit`, the overall
    composite and the rows beyond noise first, at most `limit` rows, and how many more."""
    lines = ["| candidate | metric | scope | pairs | Δ | 95% CI | label |", "|---|---|---|---|---|---|---|"]
    shown = list(diffs) if limit is None else sorted(diffs, key=_difference_rank)[:limit]
    for d in shown:
        ci = "—" if d.ci_low is None else f"[{fmt(d.ci_low, 2)}, {fmt(d.ci_high, 2)}]"
        lines.append(f"| {md_text(d.candidate)} | {d.metric} | {md_text(d.scope)} | {d.pairs} | {fmt(d.delta, 2)} "
                     f"| {ci} | {d.label} |")
    if len(shown) < len(diffs):
        lines += ["", f"{len(diffs) - len(shown)} more row(s) of {len(diffs)} not listed here (within noise or "
                      "narrower scopes): the HTML report and `--json` (`differences`) list every one"]
    return "\n".join(lines) + "\n"


def _difference_rank(d: Difference) -> tuple[int, int, float]:
    # Worse, then better, then the overall composite, then the rest; the largest change first within each.
    overall = d.metric == "composite" and d.scope == "overall"
    rank = {"worse": 0, "better": 1}.get(d.label, 2 if overall else 3)
    return rank, 0 if d.scope == "overall" else 1, -abs(d.delta or 0.0)


def pairing_line(p: PairCount) -> str:
    """How a candidate pairs with the baseline by (scenario, seed), and the conversations left without a pair."""
    return (f"{p.candidate} vs {p.baseline}: {p.shared} (scenario, seed) pair(s); no pair for "
            f"{p.baseline_unpaired} of {p.baseline}'s {p.baseline_conversations} conversations and "
            f"{p.candidate_unpaired} of {p.candidate}'s {p.candidate_conversations}")


#: GitHub refuses a comment (and a pull request's body) longer than this many characters.
GITHUB_COMMENT_LIMIT = 65_536
#: Rows of the bounded sections of `comparison_markdown`: scenarios of the matrix, divergent
#: pairs over all candidate pairs, difference rows; and characters of the written analysis.
MATRIX_ROWS, DIVERGENT_ROWS, DIFFERENCE_ROWS, ANALYSIS_CHARS = 25, 40, 40, 6_000


def comparison_markdown(comp: Comparison, warnings: Mapping[str, str | None] | None = None) -> str:
    """The whole comparison as markdown (the Prefect artifact, `-o report.md`, a pull-request
    comment): verdict, analysis, scorecards with text charts, matrix, differences, divergences.

    It stays under `GITHUB_COMMENT_LIMIT` characters at any size: the matrix, the differences and
    the divergences list their worst rows (`MATRIX_ROWS`, `DIFFERENCE_ROWS`, `DIVERGENT_ROWS`)
    with exact counts and where the rest are (the HTML report, `--json`); the analysis is cut at
    `ANALYSIS_CHARS`, and what still does not fit is cut whole lines at a time, said at the end.
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
    prose = comp.prose.strip()
    if prose:
        cut = prose if len(prose) <= ANALYSIS_CHARS else prose[:ANALYSIS_CHARS].rstrip() + " … (cut; the HTML report has it whole)"
        parts += ["## Analysis", "", md_text(cut, inline=False), ""]
    parts += ["## Scorecards", "", scorecards_markdown(comp.cards), charts_markdown(comp.cards)]
    panel = panel_markdown(comp.cards)
    if panel:
        parts += [f"## {PANEL_TITLE}", "", f"_{PANEL_CAPTION}_", "", panel]
        parts += [line for made in stack_lines(comp.cards) for line in (f"_{md_text(made)}_", "")]
    parts += ["## Scenario matrix (largest spread first)", "", matrix_markdown(comp.matrix, comp.labels, limit=MATRIX_ROWS)]
    if comp.differences:
        parts += ["## Differences (paired, noise-aware)", "", differences_markdown(comp.differences, limit=DIFFERENCE_ROWS)]
    per_set = max(DIVERGENT_ROWS // max(len(comp.divergence_sets), 1), 5)
    run_of = {c.label: c.run_id for c in comp.cards}
    for dset in comp.divergence_sets:
        ids = (run_of.get(dset.a, dset.a), run_of.get(dset.b, dset.b))
        parts += [f"## First divergent turns: {md_text(dset.a)} vs {md_text(dset.b)} (worst first)", "",
                  divergence_markdown(dset.items, dset.a, dset.b, limit=per_set, run_ids=ids)]
    stale = [p.probe_id for p in comp.probes if not p.comparable]
    if stale:
        parts += [f"Not comparable (probe wording changed between runs): {md_text(', '.join(stale))}", ""]
    return _within(GITHUB_COMMENT_LIMIT, "\n".join(parts))


def _within(limit: int, text: str) -> str:
    """`text` if shorter than `limit` characters, else its first whole lines that fit and a last
    line saying the rest is in the HTML report and `--json`."""
    if len(text) < limit:
        return text
    note = "\n\n_Report cut to fit a pull-request comment: the HTML report and `--json` hold all of it._\n"
    head = text[:limit - len(note) - 1]
    return head[:head.rfind("\n") + 1] + note


def scorecards_markdown(cards: Sequence[Scorecard]) -> str:
    """The configurations' scorecards side by side (a metric a row, a card a column), as the HTML
    report's and the terminal's."""
    def row(name: str, cells: Sequence[object]) -> str:
        return f"| {name} | " + " | ".join(str(c) for c in cells) + " |"

    lines = ["| metric | " + " | ".join(md_text(c.label) for c in cards) + " |", "|" + "---|" * (len(cards) + 1),
             row("run", [md_code(c.run_id) for c in cards]),
             row("mean composite [95% CI]", [f"{fmt(c.mean_composite)} [{fmt(c.ci_low)}, {fmt(c.ci_high)}]" for c in cards]),
             row("pass / warn / fail", [" / ".join(str(c.verdicts.get(k, 0)) for k in ("pass", "warn", "fail"))
                                        for c in cards]),
             row("gates fired", [md_text(", ".join(f"{k} {v}" for k, v in sorted(c.gates.items())) or "none")
                                 for c in cards]),
             row("pass^k over seeds", [passk_cell(c) for c in cards]),
             row("noise floor (repeated runs)", ["— (one run)" if c.noise_floor is None else fmt(c.noise_floor)
                                                 for c in cards]),
             row("mean agent latency (ms)", [fmt(c.latency_ms) for c in cards]),
             row("cost (USD)", ["— (no price)" if c.cost_usd is None else fmt(c.cost_usd, 4) for c in cards])]
    names = in_rubric_order({n for c in cards for n in c.criteria}, [c.rubric_version for c in cards])
    lines += [row(f"criterion {md_text(n)}", [criterion_cell(c, n) for c in cards]) for n in names]
    return "\n".join(lines) + "\n"


_BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], low: float = 0.0, high: float = 1.0) -> str:
    """`values` as a line of block characters, `low` the lowest block and `high` the highest."""
    span = (high - low) or 1.0
    return "".join(_BLOCKS[min(max(round((v - low) / span * (len(_BLOCKS) - 1)), 0), len(_BLOCKS) - 1)]
                   for v in values)


def verdict_bar(card: Scorecard, width: int = 20) -> str:
    """The card's verdicts as a bar of `width` characters (█ pass, ▒ warn, ░ fail) and the counts."""
    counts = [card.verdicts.get(k, 0) for k in ("pass", "warn", "fail")]
    total = sum(counts)
    if not total:
        return "no verdicts"
    widths = [round(n / total * width) for n in counts]
    widths[0] = width - widths[1] - widths[2]
    bar = "".join(ch * w for ch, w in zip("█▒░", widths, strict=True))
    return f"{bar} pass {counts[0]} · warn {counts[1]} · fail {counts[2]}"


def charts_markdown(cards: Sequence[Scorecard]) -> str:
    """The web and HTML report's charts in text: each card's verdicts as a bar and its pass^k
    against k as a sparkline (0 to 1), in a code block so the characters line up."""
    width = max(len(c.label) for c in cards) if cards else 0
    lines = []
    for c in cards:
        label = " ".join(c.label.split()).replace("`", "'").ljust(width)
        lines.append(f"{label}  verdicts {verdict_bar(c)}")
        if c.pass_hat_k:
            ks = sorted(c.pass_hat_k)
            line = sparkline([c.pass_hat_k[k] for k in ks][:PASSK_SPARK])
            more = f" (k=1…{PASSK_SPARK} of {len(ks)})" if len(ks) > PASSK_SPARK else f" (k=1…{len(ks)})"
            lines.append(f"{' ' * width}  pass^k   {line}{more}")
    return ("```text\n" + "\n".join(lines) + "\n```\n") if lines else ""


#: pass^k values a sparkline draws (k = 1 … this).
PASSK_SPARK = 40


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
