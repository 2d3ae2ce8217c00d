"""Renderings of results for people and CI: markdown, table rows, JUnit XML, one-file HTML.

The CLI adds rich terminal tables on top; every rendering reads the same `Comparison`.
"""

from ._analysis import analysis_html, analysis_markdown
from ._html import comparison_html
from ._junit import failure_reason, junit_chunks, junit_xml
from ._markdown import (
    GITHUB_COMMENT_LIMIT,
    comparison_markdown,
    differences_markdown,
    divergence_markdown,
    fmt,
    matrix_markdown,
    matrix_table,
    md_code,
    md_text,
    pairing_line,
    panel_markdown,
    passk_cell,
    passk_text,
    provenance,
    scorecard_markdown,
    scorecard_rows,
    scorecard_table,
)
from ._voice import (
    PANEL_CAPTION,
    PANEL_TITLE,
    STACK_LABELS,
    has_panel,
    metric_label,
    panel_cell,
    panel_rows,
    stack_items,
    stack_line,
    stack_lines,
    stack_text,
)

__all__ = [
    "GITHUB_COMMENT_LIMIT",
    "PANEL_CAPTION",
    "PANEL_TITLE",
    "STACK_LABELS",
    "analysis_html",
    "analysis_markdown",
    "comparison_html",
    "comparison_markdown",
    "differences_markdown",
    "divergence_markdown",
    "failure_reason",
    "fmt",
    "has_panel",
    "junit_chunks",
    "junit_xml",
    "matrix_markdown",
    "matrix_table",
    "md_code",
    "md_text",
    "metric_label",
    "pairing_line",
    "panel_cell",
    "panel_markdown",
    "panel_rows",
    "passk_cell",
    "passk_text",
    "provenance",
    "scorecard_markdown",
    "scorecard_rows",
    "scorecard_table",
    "stack_items",
    "stack_line",
    "stack_lines",
    "stack_text",
]
