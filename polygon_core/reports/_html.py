"""A single self-contained HTML report: opens from disk with no network.

Everything is inline (CSS, a few lines of JS to filter transcripts); no fonts, images, scripts or
styles are fetched, and the page holds no external URL of its own. Sections: the CI verdict and
written analysis, scorecards (with noise floors and pass^k), the interaction panel of runs of calls,
noise-aware differences, the scenario
matrix, divergence views (both sides turn by turn, the divergence and consequential turns marked),
and every transcript the comparison kept with the judge's evidence quotes marked and recognition
noise (said vs heard) highlighted.

A comparison of large runs keeps the transcripts of a few conversations a run (divergent and
failing ones first): the page shows those, says how many it leaves out and how to read one, lists
the other divergent pairs a line each (up to `LISTED_DIVERGENCES`) and counts the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..compare import Comparison, PairDivergence, Scorecard, criterion_cell
from ..models import REPORT_FORMAT, Conversation, Judgment, Turn
from ..scoring import in_rubric_order
from ._markdown import fmt, pairing_line, passk_cell
from ._voice import PANEL_CAPTION, PANEL_TITLE, panel_rows, stack_lines

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1280px;
padding:16px 24px;color:#1d2430;background:#fbfbfd}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccd;padding-bottom:4px}
h3{font-size:15px}table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #d6d9e0;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef0f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#17692f}.warn{color:#8a5a00}.fail{color:#b3261e;font-weight:600}
.better{color:#17692f}.worse{color:#b3261e;font-weight:600}.noise-label{color:#666}
.incomparable{color:#8a5a00;font-style:italic}.block{background:#fde8e6;border:1px solid #e8a19b;padding:8px 12px}
.ok{background:#e6f4ea;border:1px solid #9fd1ad;padding:8px 12px}
.judge-warning{background:#fff4dc;border:1px solid #e0b85c;padding:6px 12px}
.turn{padding:4px 8px;margin:2px 0;border-left:3px solid #ccd;white-space:pre-wrap}
.turn.agent{border-color:#4060c0;background:#f3f5fc}.turn.caller{border-color:#999;background:#fafafa}
.turn.div{outline:2px solid #e0a000}.turn.cons{outline:2px solid #b3261e}
.who{font-weight:600;margin-right:6px}.tool{font-family:ui-monospace,monospace;font-size:12px;color:#334}
mark.evidence{background:#fff2a8}span.noisy{background:#ffd9d2;text-decoration:underline dotted}
.heard{color:#555;font-size:12px}.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
details{margin:6px 0}summary{cursor:pointer}.muted{color:#666;font-size:12px}
"""

#: Divergent pairs listed a line each (no transcripts) when the comparison kept only some transcripts.
LISTED_DIVERGENCES = 200

_JS = """
function polygonFilter(v){document.querySelectorAll('details.conv').forEach(function(d){
d.style.display=(v==='all'||d.dataset.verdict===v)?'':'none';});}
"""


def _td(value: object, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<td{attr}>{escape(str(value))}</td>"


def _scorecards(cards: Sequence[Scorecard], calibrations: Mapping[str, str] | None = None) -> str:
    head = "<tr><th>metric</th>" + "".join(f"<th>{escape(c.label)}</th>" for c in cards) + "</tr>"

    def row(name: str, values: Sequence[str]) -> str:
        return f"<tr><th>{escape(name)}</th>" + "".join(_td(v, "num") for v in values) + "</tr>"

    rows = [
        row("run", [c.run_id for c in cards]),
        row("mean composite [95% CI]", [f"{fmt(c.mean_composite)} [{fmt(c.ci_low)}, {fmt(c.ci_high)}]" for c in cards]),
        row("pass / warn / fail", [" / ".join(str(c.verdicts.get(k, 0)) for k in ("pass", "warn", "fail")) for c in cards]),
        row("gates fired", [", ".join(f"{k} {v}" for k, v in sorted(c.gates.items())) or "none" for c in cards]),
        row("resolution rate [Wilson]", [_rate(c.resolution_rate, c.resolution_ci) for c in cards]),
        row("policy-safety rate [Wilson]", [_rate(c.policy_safety_rate, c.policy_safety_ci) for c in cards]),
        row("pass^k over seeds", [passk_cell(c) for c in cards]),
        row("noise floor (repeated runs)", [fmt(c.noise_floor) if c.noise_floor is not None else "— (one run)" for c in cards]),
        row("tokens", [f"{c.tokens}{' (estimated)' if c.tokens_estimated else ''}" for c in cards]),
        row("cost (USD)", [fmt(c.cost_usd, 4) if c.cost_usd is not None else "— (no price)" for c in cards]),
        row("mean agent latency (ms)", [fmt(c.latency_ms) for c in cards]),
        row("provider / simulator errors", [f"{c.provider_errors} / {c.simulator_errors}" for c in cards]),
    ]
    if calibrations is not None:  # the judge's agreement with people (docs/calibration.md)
        rows.append(row("judge calibration", [calibrations.get(c.run_id, "not calibrated") for c in cards]))
    names = in_rubric_order({n for c in cards for n in c.criteria}, [c.rubric_version for c in cards])
    if names and any(c.judge_errors for c in cards):  # the means below leave the failed judgments out
        rows.append(row("criterion means over", [f"{c.judged} judgments" for c in cards]))
    for name in names:
        rows.append(row(f"criterion {name}", [criterion_cell(c, name) for c in cards]))
    return f"<table>{head}{''.join(rows)}</table>"


def _panel(cards: Sequence[Scorecard]) -> str:
    """The interaction panel of runs of calls and what its calls were made with ('' when no card is
    of a run with calls)."""
    rows = panel_rows(cards)
    if not rows:
        return ""
    head = "<tr><th>metric</th>" + "".join(f"<th>{escape(c.label)}</th>" for c in cards) + "</tr>"
    body = "".join(f"<tr><th>{escape(name)}</th>" + "".join(_td(v, "num") for v in cells) + "</tr>"
                   for name, cells in rows)
    made = "".join(f"<p class='muted'>{escape(line)}</p>" for line in stack_lines(cards))
    return (f"<h2>{escape(PANEL_TITLE)}</h2><p class='muted'>{escape(PANEL_CAPTION)}</p>"
            f"<table class='interaction'>{head}{body}</table>{made}")


def _rate(rate: float | None, ci: tuple[float, float] | None) -> str:
    if rate is None:
        return "—"
    return f"{rate:.2f}" + ("" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]")


def _differences(comp: Comparison) -> str:
    out = ["<table><tr><th>candidate</th><th>metric</th><th>scope</th><th>pairs</th><th>baseline</th>"
           "<th>candidate</th><th>Δ</th><th>95% CI</th><th>label</th></tr>"]
    for d in comp.differences:
        cls = {"better": "better", "worse": "worse"}.get(d.label, "noise-label")
        ci = "—" if d.ci_low is None else f"[{fmt(d.ci_low, 2)}, {fmt(d.ci_high, 2)}]"
        out.append("<tr>" + _td(d.candidate) + _td(d.metric) + _td(d.scope) + _td(d.pairs, "num")
                   + _td(fmt(d.baseline_mean, 2), "num") + _td(fmt(d.candidate_mean, 2), "num")
                   + _td(fmt(d.delta, 2), "num") + _td(ci, "num") + _td(d.label, cls) + "</tr>")
    return "".join(out) + "</table>"


def _matrix(comp: Comparison) -> str:
    out = ["<table><tr><th>scenario</th>" + "".join(f"<th>{escape(label)}</th>" for label in comp.labels)
           + "<th>spread</th></tr>"]
    for r in comp.matrix:
        cells = []
        for label in comp.labels:
            c = r.cells.get(label)
            if c is None:
                cells.append('<td class="incomparable">incomparable</td>')
            else:
                verdicts = ", ".join(f'<span class="{escape(k)}">{escape(k)} {v}</span>' for k, v in sorted(c.verdicts.items()))
                cells.append(f'<td class="num">{fmt(c.mean_composite)} ({verdicts})</td>')
        spread = '<td class="incomparable">incomparable</td>' if r.incomparable else _td(fmt(r.spread), "num")
        out.append(f"<tr>{_td(r.scenario_id)}{''.join(cells)}{spread}</tr>")
    return "".join(out) + "</table>"


def _mark_evidence(text: str, quotes: Sequence[tuple[str, str]]) -> str:
    """Escape `text`, marking every evidence quote found in it (longest first, no overlaps)."""
    spans: list[tuple[int, int, str]] = []
    for criterion, quote in sorted(quotes, key=lambda q: -len(q[1])):
        q = quote.strip()
        start = text.find(q) if q else -1
        if start >= 0 and not any(s < start + len(q) and start < e for s, e, _ in spans):
            spans.append((start, start + len(q), criterion))
    out, pos = [], 0
    for start, end, criterion in sorted(spans):
        out.append(escape(text[pos:start]))
        out.append(f'<mark class="evidence" title="evidence: {escape(criterion)}">{escape(text[start:end])}</mark>')
        pos = end
    out.append(escape(text[pos:]))
    return "".join(out)


def _said_with_noise(turn: Turn) -> str:
    """The caller's words as said, each distorted word highlighted with what the agent heard."""
    if not turn.distortions:
        return escape(turn.text)
    words = turn.text.split(" ")
    by_pos = {d.position: d for d in turn.distortions}
    out = []
    for i, word in enumerate(words):
        d = by_pos.get(i)
        if d is None:
            out.append(escape(word))
        else:
            heard = d.replacement or "(dropped)"
            out.append(f'<span class="noisy" title="{escape(d.kind)}: heard as {escape(heard)}">{escape(word)}</span>')
    return " ".join(out)


def _turn_html(turn: Turn | None, quotes: Sequence[tuple[str, str]], cls: str = "") -> str:
    if turn is None:
        return '<div class="turn muted">(ended)</div>'
    tools = "".join(f'<div class="tool">→ {escape(c.name)}({escape(", ".join(f"{k}={v}" for k, v in sorted(c.arguments.items())))})'
                    + (f" ⇒ {escape(str(c.result))[:160]}" if c.result is not None else "")
                    + ("" if c.valid else " <b>invalid</b>") + (f" <b>{escape(c.error)}</b>" if c.error else "")
                    + "</div>" for c in turn.tool_calls)
    if turn.speaker == "caller":
        body = _said_with_noise(turn)
        if turn.heard is not None and turn.heard != turn.text:
            body += f'<div class="heard">heard: {escape(turn.heard)}</div>'
    else:
        body = _mark_evidence(turn.text, quotes)
    end = f' <span class="muted">[{escape(turn.end)}]</span>' if turn.end else ""
    # On a call: where the turn sits on the timeline, and an agent turn the caller talked over.
    when = (f'<span class="muted">{turn.start_ms / 1000:.2f}–{turn.end_ms / 1000:.2f} s</span> '
            if turn.start_ms is not None and turn.end_ms is not None else "")
    cut = ' <span class="muted">[interrupted]</span>' if turn.interrupted else ""
    return (f'<div class="turn {escape(turn.speaker)} {cls}"><span class="who">{turn.index} '
            f'{escape(turn.speaker)}</span>{when}{tools}{body}{cut}{end}</div>')


def _quotes(judgment: Judgment | None) -> list[tuple[str, str]]:
    if judgment is None:
        return []
    return [(c.criterion, c.evidence) for c in judgment.criteria if c.evidence]


def _unsupported_note(judgment: Judgment | None, criterion: str) -> str:
    """" (not in the transcript)" after a quote the transcript does not hold (its score is kept
    and flagged: docs/design.md "Scoring rules")."""
    c = next((c for c in judgment.criteria if c.criterion == criterion), None) if judgment else None
    return " <b>(not in the transcript)</b>" if c is not None and c.unsupported_evidence else ""


def _missing_note(judgment: Judgment | None) -> str:
    """The criteria the judge's reply left out, which count as 1: said, so a 1 is not read as the
    judge's own score."""
    missing = [c.criterion for c in judgment.criteria if c.status == "missing"] if judgment else []
    if not missing:
        return ""
    return (f"<p class='muted'>Missing from the judge's reply (each counted as 1): "
            f"{escape(', '.join(missing))}</p>")


def _divergence_title(d: PairDivergence) -> str:
    return (f"{escape(d.scenario_id)} seed {d.seed}: diverges at turn {d.turn} ({escape(', '.join(d.reasons))})"
            + ("" if d.consequential_turn is None else
               f"; first consequential turn {d.consequential_turn} ({escape(', '.join(d.consequential_reasons))})"))


def _divergence_view(d: PairDivergence, a: str, b: str, ca: Conversation | None, cb: Conversation | None,
                     qa: list[tuple[str, str]], qb: list[tuple[str, str]]) -> str:
    if d.turn is None:
        return f"<li>{escape(d.scenario_id)} seed {d.seed}: identical</li>"
    title = _divergence_title(d)
    n = max(len(ca.turns) if ca else 0, len(cb.turns) if cb else 0)
    rows = []
    for i in range(n):
        cls = "cons" if i == d.consequential_turn else "div" if i == d.turn else ""
        ta = ca.turns[i] if ca and i < len(ca.turns) else None
        tb = cb.turns[i] if cb and i < len(cb.turns) else None
        rows.append(f"{_turn_html(ta, qa, cls)}{_turn_html(tb, qb, cls)}")
    return (f"<li><details><summary>{title}</summary><div class='side'><b>{escape(a)}</b><b>{escape(b)}</b>"
            + "".join(rows) + "</div></details></li>")


def _conv_index(comp: Comparison, label: str) -> dict[tuple[str, int], Conversation]:
    return {(c.scenario_id, c.seed): c for c in comp.conversations.get(label, [])}


def _judgment_index(comp: Comparison, label: str) -> dict[str, Judgment]:
    return {j.conversation_id: j for j in comp.judgments.get(label, [])}


def _left_out(comp: Comparison, label: str) -> int:
    """How many of the configuration's conversations have no transcript in the comparison."""
    return max(len(comp.rows.get(label, [])) - len(comp.conversations.get(label, [])), 0)


def _run_id(comp: Comparison, label: str) -> str:
    return next((c.run_id for c in comp.cards if c.label == label), label)


def _divergence_items(comp: Comparison, a: str, b: str, items: Sequence[PairDivergence]) -> str:
    """The pairs' views; with transcripts left out, the pairs without both listed a line each (a
    bounded number) and the identical ones counted."""
    ia, ib = _conv_index(comp, a), _conv_index(comp, b)
    ja, jb = _judgment_index(comp, a), _judgment_index(comp, b)
    bounded = bool(_left_out(comp, a) or _left_out(comp, b))
    out, listed, unlisted, identical = [], 0, 0, 0
    for d in items:
        ca, cb = ia.get((d.scenario_id, d.seed)), ib.get((d.scenario_id, d.seed))
        if not bounded or (ca is not None and cb is not None):
            out.append(_divergence_view(d, a, b, ca, cb,
                                        _quotes(ja.get(ca.id) if ca else None), _quotes(jb.get(cb.id) if cb else None)))
        elif d.turn is None:
            identical += 1
        elif listed < LISTED_DIVERGENCES:
            listed += 1
            out.append(f"<li>{_divergence_title(d)} <span class='muted'>(transcripts not in this report)</span></li>")
        else:
            unlisted += 1
    page = "<ul>" + "".join(out) + "</ul>"
    if identical or unlisted:
        page += (f"<p class='muted'>Not listed: {unlisted} more divergent pair(s) and {identical} identical "
                 f"pair(s). <code>polygon compare {escape(_run_id(comp, a))} {escape(_run_id(comp, b))} --json"
                 "</code> lists every pair (<code>divergence_sets</code>).</p>")
    return page


def _left_out_note(comp: Comparison, label: str) -> str:
    left = _left_out(comp, label)
    if not left:
        return ""
    run_id = escape(_run_id(comp, label))
    shown = len(comp.conversations.get(label, []))
    return (f"<p class='muted'>{shown} of {shown + left} transcripts of {escape(label)} shown (divergent and "
            f"failing conversations first); {left} left out. <code>polygon show {run_id} --all</code> lists "
            f"every conversation; to read one, run <code>polygon serve</code> and open "
            f"<code>/runs/{run_id}/conversations/CONVERSATION_ID</code>.</p>")


def comparison_html(comp: Comparison, title: str = "Polygon comparison", *,
                    analysis: dict[str, Any] | None = None, prompt: str | None = None,
                    calibrations: Mapping[str, str] | None = None,
                    warnings: Mapping[str, str | None] | None = None) -> str:
    """The whole comparison as one self-contained HTML page (with the candidate prompt's analysis
    and its highlights when given, and each run's judge calibration line, by run id, when given).
    `warnings`, by run id: the warning of a fitted judge stored with `--force` that judged the run
    (`polygon.usecases.fitted_judge_warning`), shown under the scorecards."""
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<meta name='polygon-report-format' content='{REPORT_FORMAT}'><title>{escape(title)}</title>"
             f"<style>{_CSS}</style><script>{_JS}</script></head><body>",
             f"<h1>{escape(title)}</h1>",
             "<p class='muted'>Runs: " + ", ".join(f"{escape(c.label)} = <code>{escape(c.run_id)}</code>"
                                                   for c in comp.cards)
             + f"; baseline {escape(comp.baseline)}; rubric {escape(comp.cards[0].rubric_version)}.</p>"]
    if comp.ci.exit_code:
        parts.append("<div class='block'><b>Blocks the change</b><ul>"
                     + "".join(f"<li>{escape(r)}</li>" for r in comp.ci.reasons) + "</ul></div>")
    else:
        parts.append("<div class='ok'><b>No candidate is worse beyond noise and no gate fired.</b></div>")
    parts += [f"<p class='muted'>Pairs: {escape(pairing_line(p))}</p>" for p in comp.pairing]
    parts.append("<h2>Analysis</h2>" + "".join(f"<p>{escape(p)}</p>" for p in comp.prose.split("\n\n") if p.strip()))
    if analysis is not None and prompt is not None:
        from ._analysis import analysis_html

        parts.append(analysis_html(analysis, prompt))
    parts.append("<h2>Scorecards</h2>" + _scorecards(comp.cards, calibrations))
    parts += [f"<p class='judge-warning'>{escape(c.label)}: {escape(w)}</p>"
              for c in comp.cards if (w := (warnings or {}).get(c.run_id))]
    parts += [f"<p class='judge-warning'>{escape(c.label)}: {escape(w)}</p>"
              for c in comp.cards for w in c.grader_warnings]
    parts.append(_panel(comp.cards))
    for card in comp.cards:
        if card.probes:
            parts.append(f"<h3>Probes: {escape(card.label)}</h3><table><tr><th>probe</th><th>polarity</th>"
                         "<th>conformance</th><th>Wilson 95%</th><th>n</th><th>wording</th></tr>"
                         + "".join("<tr>" + _td(p.probe_id) + _td(p.polarity) + _td(fmt(p.rate, 2), "num")
                                   + _td(f"[{fmt(p.low, 2)}, {fmt(p.high, 2)}]", "num") + _td(p.n, "num")
                                   + _td(p.wording_hash) + "</tr>" for p in card.probes) + "</table>")
    stale = [p.probe_id for p in comp.probes if not p.comparable]
    if stale:
        parts.append("<p class='incomparable'>Not comparable (wording changed between runs): "
                     + escape(", ".join(stale)) + "</p>")
    if comp.differences:
        parts.append("<h2>Differences (paired, noise-aware)</h2>" + _differences(comp))
    parts.append("<h2>Scenario matrix (largest spread first)</h2>" + _matrix(comp))
    for dset in comp.divergence_sets:
        parts.append(f"<h2>Divergence: {escape(dset.a)} vs {escape(dset.b)}</h2>"
                     "<p class='muted'>Yellow outline: first divergent turn. Red outline: first consequential "
                     "turn (tool calls or ending differ).</p>" + _divergence_items(comp, dset.a, dset.b, dset.items))
    parts.append("<h2>Transcripts</h2><p>Show: <select onchange='polygonFilter(this.value)'>"
                 "<option value='all'>all</option><option value='fail'>fail</option><option value='warn'>warn</option>"
                 "<option value='pass'>pass</option></select> <span class='muted'>Marked: <mark class='evidence'>"
                 "judge evidence</mark>; <span class='noisy'>recognition noise</span> (hover: what was heard).</span></p>")
    for label in comp.labels:
        rows = {r.conversation_id: r for r in comp.rows.get(label, [])}
        judgments = _judgment_index(comp, label)
        parts.append(f"<h3>{escape(label)}</h3>" + _left_out_note(comp, label))
        for conv in sorted(comp.conversations.get(label, []), key=lambda c: (c.scenario_id, c.seed)):
            row = rows.get(conv.id)
            verdict = (row.verdict if row else None) or "none"
            j = judgments.get(conv.id)
            quotes = _quotes(j)
            score = "—" if row is None or row.composite is None else f"{row.composite:.1f}"
            gates = "" if j is None or not j.gates else " · gates: " + ", ".join(g.gate for g in j.gates)
            evidence = "".join(f"<li><b>{escape(c)}</b>: “{escape(q)}”{_unsupported_note(j, c)}</li>"
                               for c, q in quotes)
            parts.append(
                f"<details class='conv' data-verdict='{escape(verdict)}'><summary><span class='{escape(verdict)}'>"
                f"{escape(verdict)}</span> {escape(conv.scenario_id)} seed {conv.seed} · composite {score} · "
                f"end {escape(conv.end_reason.value)}{escape(gates)} <span class='muted'>{escape(conv.id)}</span></summary>"
                + "".join(_turn_html(t, quotes) for t in conv.turns)
                + (f"<p class='muted'>Evidence quotes:</p><ul>{evidence}</ul>" if evidence else "")
                + _missing_note(j)
                + "</details>")
    parts.append("</body></html>\n")
    return "".join(parts)
