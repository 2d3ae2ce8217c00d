"""Prompt analysis in reports: a markdown section and an HTML section with the highlights in place."""

from __future__ import annotations

from html import escape
from typing import Any

from ._markdown import md_text


def analysis_markdown(analysis: dict[str, Any], *, max_reasons: int = 3) -> str:
    """Axis scores (0–1, higher is worse), the tiers that made them and the first reasons."""
    lines = [f"## Prompt analysis (prompt {md_text(analysis.get('prompt_hash', '?'))}, tiers "
             f"{', '.join(analysis.get('tiers_run', [])) or '?'})", "",
             "| axis | score | tiers | highlights | first reasons |", "|---|---|---|---|---|"]
    for axis, body in analysis.get("axes", {}).items():
        reasons = "; ".join(dict.fromkeys(h["reason"] for h in body.get("highlights", [])[:max_reasons * 3]))
        reasons = "; ".join(reasons.split("; ")[:max_reasons])
        # Reasons quote the prompt (user text): literal text, never markup.
        lines.append(f"| {axis} | {body['score']:.2f} | {', '.join(body.get('tiers', []))} | "
                     f"{len(body.get('highlights', []))} | {md_text(reasons)} |")
    return "\n".join(lines) + "\n"


def analysis_html(analysis: dict[str, Any], prompt: str) -> str:
    """The prompt with each highlighted span marked (axis and reason on hover), and the scores."""
    spans = sorted((h["start"], h["end"], axis, h["reason"]) for axis, body in analysis.get("axes", {}).items()
                   for h in body.get("highlights", []) if 0 <= h["start"] < h["end"] <= len(prompt))
    out, pos = [], 0
    for start, end, axis, reason in spans:
        if start < pos:  # overlapping highlights: the first one wins; all are listed in the table
            continue
        out.append(escape(prompt[pos:start]))
        out.append(f"<mark class='axis-{escape(axis)}' title='{escape(axis)}: {escape(reason)}'>"
                   f"{escape(prompt[start:end])}</mark>")
        pos = end
    out.append(escape(prompt[pos:]))
    rows = "".join(f"<tr><td>{escape(axis)}</td><td>{body['score']:.2f}</td>"
                   f"<td>{escape(', '.join(body.get('tiers', [])))}</td><td>{len(body.get('highlights', []))}</td></tr>"
                   for axis, body in analysis.get("axes", {}).items())
    return ("<h2>Prompt analysis</h2><table><tr><th>axis</th><th>score (0–1, higher is worse)</th>"
            f"<th>tiers</th><th>highlights</th></tr>{rows}</table>"
            f"<pre class='prompt'>{''.join(out)}</pre>")
