"""The comparison task: compare a flow's runs and publish the matrix and analysis as artifacts."""

from __future__ import annotations

from prefect import task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from polygon import usecases
from polygon_core.reports import matrix_table

from ._stores import task_stores


@task(name="compare-runs", retries=1, retry_delay_seconds=1)
def compare_runs_task(run_ids: list[str]) -> int:
    """Compare the runs (the first is the baseline), publish the scenario matrix as a table and the
    comparison (analysis, differences, divergences) as markdown; returns the CI exit code."""
    comp, markdown = usecases.comparison_report(task_stores(), run_ids)  # with forced fitted judges' warnings
    key = "matrix-" + "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in run_ids[0].lower())  # Prefect's rule
    create_table_artifact(key=key, table=matrix_table(comp.matrix, comp.labels),
                          description=f"Scenario matrix of {', '.join(run_ids)} (largest spread first)")
    create_markdown_artifact(key=key + "-md", markdown=markdown,
                             description=f"Comparison of {', '.join(run_ids)}")
    return comp.ci.exit_code
