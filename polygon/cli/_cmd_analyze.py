"""`polygon analyze-prompt`: read a prompt before running it (five axes, four tiers, highlights)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ._base import console, err, friendly

if TYPE_CHECKING:
    from polygon_core.analysis import Axis, AxisChange, PromptAnalysis

# One colour per axis, used both on the prompt and in the legend.
AXIS_STYLES = {
    "overload": "on dark_orange3",
    "attention_dilution": "on purple4",
    "conflict": "on red3",
    "ambiguity": "on dark_goldenrod",
    "redundancy": "on dodger_blue3",
}
#: Highlights listed per axis in the terminal (all of them are in --json).
SHOWN_PER_AXIS = 8


def _read_prompt(file: Path | None, agent: Path | None) -> tuple[str, str | None, str]:
    """(text, explicit language or None, what was read) from exactly one of FILE and --agent."""
    if (file is None) == (agent is None):
        raise ValueError("give a prompt FILE or --agent A.yaml (exactly one)")
    if agent is not None:
        from polygon import usecases

        text, language = usecases.agent_prompt_text(agent)
        return text, language, str(agent)
    assert file is not None
    if not file.is_file():
        raise FileNotFoundError(f"no prompt file {file}")
    try:
        return file.read_text(encoding="utf-8"), None, str(file)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _prompt_with_highlights(text: str, analysis: PromptAnalysis) -> Text:
    rendered = Text(text)
    # Broad spans first, so a narrow one (a single vague word) stays visible on top of its sentence.
    spans = [(h.start, h.end, axis) for axis, result in analysis.axes.items() for h in result.highlights]
    for start, end, axis in sorted(spans, key=lambda s: (s[0] - s[1], s[0])):
        rendered.stylize(AXIS_STYLES[axis], start, end)
    return rendered


def _tiers_cell(tiers: Sequence[str], set_by: str | None) -> str:
    """The tiers that judged an axis; the one whose confident score is the axis score says so."""
    return ", ".join(f"{t} (sets it)" if t == set_by else t for t in tiers)


def _axes_table(analysis: PromptAnalysis) -> Table:
    table = Table(title=f"Prompt analysis ({analysis.language}, prompt {analysis.prompt_hash})")
    for col, justify in (("axis", "left"), ("score", "right"), ("", "left"), ("tiers", "left"), ("highlights", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for axis, result in analysis.axes.items():
        bar = "█" * round(result.score * 10) + "·" * (10 - round(result.score * 10))
        table.add_row(Text(axis, style=AXIS_STYLES[axis]), f"{result.score:.2f}", bar,
                      _tiers_cell(result.tiers, result.set_by), str(len(result.highlights)))
    return table


def _print_highlights(out: Console, text: str, analysis: PromptAnalysis) -> None:
    for axis, result in analysis.axes.items():
        if not result.highlights:
            continue
        out.print(Text(f"\n{axis}", style="bold " + AXIS_STYLES[axis]))
        for h in result.highlights[:SHOWN_PER_AXIS]:
            quote = " ".join(text[h.start:h.end].split())
            quote = quote if len(quote) <= 70 else quote[:69] + "…"
            out.print(f"  {escape(f'[{h.start}:{h.end}]')} “{escape(quote)}” — {escape(h.reason)} "
                      f"[dim]({escape(h.tier)})[/]", markup=True, highlight=False)
        if len(result.highlights) > SHOWN_PER_AXIS:
            out.print(f"  … and {len(result.highlights) - SHOWN_PER_AXIS} more (see --json)")


def _changes_table(changes: Mapping[Axis, AxisChange]) -> Table:
    table = Table(title="Change from the previous version")
    for col in ("axis", "before", "after", "change", "new passages", "resolved passages"):
        table.add_column(col, justify="right" if col in ("before", "after", "change") else "left")
    for axis, c in changes.items():
        style = "red" if c.delta > 0 else "green" if c.delta < 0 else ""
        table.add_row(axis, f"{c.before:.2f}", f"{c.after:.2f}", Text(f"{c.delta:+.2f}", style=style),
                      str(len(c.new)), str(len(c.resolved)))
    return table


def _warn_if_judge_failed(analysis: PromptAnalysis) -> None:
    """A configured judge model that failed (a 401, a timeout) is one line on stderr; the offline
    tiers' analysis is still printed and the command exits 0 (the degradation is in `tiers_skipped`)."""
    from polygon_core.analysis import JUDGE_FAILED

    reason = analysis.tiers_skipped.get("judge", "")
    if reason.startswith(JUDGE_FAILED):
        err.print(f"[yellow]warning:[/] judge tier skipped, offline tiers only: {escape(reason[len(JUDGE_FAILED):])}",
                  markup=True, highlight=False, soft_wrap=True)


@friendly
def analyze_prompt_cmd(
    file: Annotated[Path | None, typer.Argument(help="prompt text file")] = None,
    agent: Annotated[Path | None, typer.Option("--agent", help="agent YAML whose prompt to read")] = None,
    max_tier: Annotated[int, typer.Option("--max-tier", min=1, max=4,
                                          help="tiers to run: 1 rules, 2 surprisal, 3 embeddings, 4 judge")] = 4,
    language: Annotated[str | None, typer.Option(help="en or ru (default: the agent's, else detected)")] = None,
    previous: Annotated[Path | None, typer.Option("--previous", help="the previous version's prompt file, "
                                                  "to show the change")] = None,
    store: Annotated[bool, typer.Option("--store/--no-store", help="keep the analysis in the artifact store "
                                        "under analyses/<prompt_hash>.json")] = True,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Read a prompt before running it: overload, attention dilution, conflict, ambiguity and
    redundancy (0..1, higher is worse), with the passages that caused them."""
    from polygon import usecases
    from polygon_core.analysis import compare_analyses

    text, agent_language, source = _read_prompt(file, agent)
    language = language or agent_language
    if language not in (None, "en", "ru"):
        raise ValueError(f"--language must be en or ru; got {language!r}")
    analysis, stored = usecases.analyze_text(text, language=language, max_tier=max_tier, store=store)
    _warn_if_judge_failed(analysis)
    changes = None
    if previous is not None:
        old_text, _lang, _src = _read_prompt(previous, None)
        old, _uri = usecases.analyze_text(old_text, language=analysis.language, max_tier=max_tier, store=store)
        changes = compare_analyses(old, old_text, analysis, text)
    if json_out:
        out = analysis.to_json()
        if changes is not None:
            out["previous"] = {"prompt_hash": old.prompt_hash,
                               "changes": {k: v.model_dump() for k, v in changes.items()}}
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return
    console.rule(Text(source, style="bold"))
    console.print(_prompt_with_highlights(text, analysis), highlight=False)
    console.rule()
    console.print(_axes_table(analysis))
    legend = Text("  ").join(Text(axis, style=style) for axis, style in AXIS_STYLES.items())
    console.print(Text("highlights: ") + legend)
    _print_highlights(console, text, analysis)
    skipped = "; ".join(f"{tier}: {why}" for tier, why in analysis.tiers_skipped.items())
    console.print(f"\ntiers run: {', '.join(analysis.tiers_run)}" + (f" (skipped {skipped})" if skipped else ""),
                  highlight=False)
    if changes is not None:
        console.print(_changes_table(changes))
    if stored is not None:
        console.print(f"stored: {stored}", highlight=False)
