"""`-o FILE`: a comparison written in the format its extension names.

    .json  the comparison as one JSON object (what `--json` prints)
    .html  the self-contained HTML report (opens offline)
    .xml   JUnit XML for CI (polygon_core.reports.junit_xml)
    .md    Markdown (the Prefect artifact's text)

The extensions are checked before anything runs (`check_outputs`), so a typo costs no run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # registering a command that takes -o imports no comparison code
    from polygon_core.compare import Comparison

FORMATS: dict[str, str] = {".json": "JSON", ".html": "HTML", ".htm": "HTML", ".xml": "JUnit",
                           ".md": "Markdown", ".markdown": "Markdown"}
OUTPUT_HELP = "write the comparison to FILE: .json, .html, .xml (JUnit) or .md, by extension (repeatable)"


def check_outputs(paths: Sequence[Path]) -> None:
    """Bad input (exit 2), before anything runs, naming the first path that cannot be written: an
    extension that picks no format, or a folder (missing parent folders are made when writing)."""
    for path in paths:
        if path.suffix.lower() not in FORMATS:
            raise ValueError(f"-o {path}: unknown extension {path.suffix or '(none)'!r}; expected one of "
                             f"{', '.join(sorted(FORMATS))} (JSON, HTML, JUnit XML, Markdown)")
        if path.is_dir():
            raise ValueError(f"-o {path}: is a folder; expected a file path")


def needs_transcripts(paths: Sequence[Path], *kinds: str) -> bool:
    """Whether a format asked for shows transcripts (HTML), so the comparison must keep some
    (`transcripts=True`: a bounded few per run). JUnit reads only the facts every comparison keeps."""
    asked = {FORMATS.get(p.suffix.lower()) for p in paths} | set(kinds)
    return "HTML" in asked


def _html(stores: Any, comp: Comparison) -> str:
    from polygon.usecases import analysis_for_run
    from polygon_core.reports import comparison_html

    from ._render import calibration_lines

    # The candidate's (last run's) prompt analysis, with its highlights, beside the results.
    found = analysis_for_run(stores, comp.cards[-1].run_id)
    lines = dict(zip((c.run_id for c in comp.cards), calibration_lines(comp.cards), strict=True))
    return comparison_html(comp, analysis=found.to_json() if found else None,
                           prompt=found.prompt if found else None, calibrations=lines, warnings=_warnings(comp))


def _warnings(comp: Comparison) -> dict[str, str | None]:
    """By run id, the warning of a fitted judge stored with --force that judged the run (else None)."""
    from ._render import fitted_warnings

    return dict(zip((c.run_id for c in comp.cards), fitted_warnings(comp.cards), strict=True))


def _renderers(stores: Any) -> dict[str, Callable[[Comparison], str | Iterable[str]]]:
    from polygon_core.reports import comparison_markdown, junit_chunks

    # JUnit comes in pieces: at 100,000 conversations a run, one string of it would be ~100 MB more.
    return {"JSON": lambda c: json.dumps({**c.report_json(), "exit_code": c.ci.exit_code}, indent=2) + "\n",
            "HTML": lambda c: _html(stores, c), "JUnit": junit_chunks,
            "Markdown": lambda c: comparison_markdown(c, _warnings(c))}


def write_outputs(stores: Any, comp: Comparison, paths: Sequence[Path], *,
                  kind: str | None = None) -> list[tuple[str, Path]]:
    """Write each file in the format its extension names, or in `kind` (one of FORMATS' values)
    whatever its name; folders are made as needed. (format, path) for each, in order."""
    if kind is None:
        check_outputs(paths)
    renderers = _renderers(stores)
    written = []
    for path in paths:
        chosen = kind or FORMATS[path.suffix.lower()]
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside, then renamed: a CI step never reads half a report.
        tmp = path.with_name(f".{path.name}.partial")
        try:
            # A generator renders inside writelines: a failure midway must not leave the temp file.
            text = renderers[chosen](comp)
            with tmp.open("w", encoding="utf-8") as out:
                out.writelines([text] if isinstance(text, str) else text)
            tmp.replace(path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        written.append((chosen, path))
    return written
