"""Renderings of results for people: markdown and table rows (the CLI adds rich on top)."""

from ._markdown import divergence_markdown, fmt, matrix_markdown, provenance, scorecard_markdown, scorecard_table

__all__ = ["divergence_markdown", "fmt", "matrix_markdown", "provenance", "scorecard_markdown", "scorecard_table"]
