"""Plain renderings of scorecards and comparisons (markdown and table rows for Prefect artifacts)."""

from __future__ import annotations

from collections.abc import Sequence

from ..compare import MatrixRow, PairDivergence, Scorecard


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for people; '—' when there is none."""
    return "—" if value is None else f"{value:.{digits}f}"


def provenance(card: Scorecard) -> str:
    """How the card's numbers were made."""
    models = ", ".join(f"{k}={v}" for k, v in sorted(card.models.items()))
    est = " (estimated)" if card.tokens_estimated else ""
    return (f"rubric {card.rubric_version}; judge {card.judge_model}; {models}; "
            f"tokens {card.tokens}{est}; interval: {card.ci_method}")


def scorecard_table(card: Scorecard) -> list[dict[str, object]]:
    """Rows for a Prefect table artifact."""
    rows: list[dict[str, object]] = [
        {"metric": "mean composite", "value": fmt(card.mean_composite),
         "detail": f"95% CI [{fmt(card.ci_low)}, {fmt(card.ci_high)}]"},
        {"metric": "verdicts", "value": " / ".join(f"{k} {v}" for k, v in card.verdicts.items()),
         "detail": f"{card.scored} scored of {card.conversations}"},
        {"metric": "gates fired", "value": sum(card.gates.values()),
         "detail": ", ".join(f"{k}: {v}" for k, v in sorted(card.gates.items())) or "none"},
        {"metric": "resolution rate", "value": fmt(card.resolution_rate, 2), "detail": "assertions"},
        {"metric": "policy-safety rate", "value": fmt(card.policy_safety_rate, 2), "detail": "ordering assertions"},
        {"metric": "provider / simulator errors", "value": f"{card.provider_errors} / {card.simulator_errors}",
         "detail": "counted apart, never scored"},
    ]
    for name, value in card.criteria.items():
        rows.append({"metric": f"criterion {name}", "value": fmt(value, 2), "detail": "mean 1–5"})
    return rows


def scorecard_markdown(card: Scorecard) -> str:
    """A scorecard as markdown."""
    lines = [f"## {card.label} (run `{card.run_id}`)", "", f"_{provenance(card)}_", "",
             "| metric | value | detail |", "|---|---|---|"]
    lines += [f"| {r['metric']} | {r['value']} | {r['detail']} |" for r in scorecard_table(card)]
    if card.probes:
        lines += ["", "| probe | conformance | 95% Wilson | n |", "|---|---|---|---|"]
        for p in card.probes:
            lines.append(f"| {p.probe_id} ({p.polarity}) | {fmt(p.rate, 2)} | "
                         f"[{fmt(p.low, 2)}, {fmt(p.high, 2)}] | {p.n} |")
    return "\n".join(lines) + "\n"


def matrix_markdown(matrix: Sequence[MatrixRow], labels: Sequence[str]) -> str:
    """The scenario matrix as markdown, most divergent scenario first."""
    head = "| scenario | " + " | ".join(labels) + " | spread |"
    lines = [head, "|" + "---|" * (len(labels) + 2)]
    for row in matrix:
        cells = []
        for label in labels:
            cell = row.cells.get(label)
            cells.append("incomparable" if cell is None else
                         f"{fmt(cell.mean_composite)} ({', '.join(f'{k} {v}' for k, v in sorted(cell.verdicts.items()))})")
        spread = "incomparable" if row.incomparable else fmt(row.spread)
        lines.append(f"| {row.scenario_id} | " + " | ".join(cells) + f" | {spread} |")
    return "\n".join(lines) + "\n"


def divergence_markdown(divs: Sequence[PairDivergence], a: str, b: str) -> str:
    """First divergent turns between two configurations."""
    lines = [f"| scenario | seed | turn | reasons | {a} | {b} |", "|---|---|---|---|---|---|"]
    for d in divs:
        if d.turn is None:
            lines.append(f"| {d.scenario_id} | {d.seed} | — | identical | | |")
            continue
        sa = " ".join([*(f"`{t}`" for t in d.a_tools), d.a_text or "(ended)"])
        sb = " ".join([*(f"`{t}`" for t in d.b_tools), d.b_text or "(ended)"])
        lines.append(f"| {d.scenario_id} | {d.seed} | {d.turn} | {', '.join(d.reasons)} | {sa} | {sb} |")
    return "\n".join(lines) + "\n"
