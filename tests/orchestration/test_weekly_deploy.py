"""The weekly production grading as `polygon deploy` declares it: the export's format, agent and
suite as parameters; rejected lines logged and published; a window whose every call was rejected
fails; a re-deploy removes Polygon's deployments it no longer declares, and nothing else."""

from __future__ import annotations

import shutil
from pathlib import Path
from uuid import UUID

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon.deployments import declared
from polygon_core.imports import sample_path

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "polygon_core" / "demo" / "agents" / "agent_v1.yaml"


def test_rejections_are_bounded_and_counted() -> None:
    imported = {"read": 25, "rejected": 25, "errors": [f"f.json:{i}: bad" for i in range(1, 26)]}
    lines = usecases.production_rejections(imported)
    assert lines == [f"f.json:{i}: bad" for i in range(1, 21)] + ["… and 5 more"]


def test_only_a_window_whose_every_call_was_rejected_fails() -> None:
    assert usecases.all_production_rejected("s3://c/", {"read": 0, "rejected": 0, "errors": []}, None) is None
    assert usecases.all_production_rejected("s3://c/", {"read": 4, "rejected": 3, "errors": ["x"]}, None) is None
    error = usecases.all_production_rejected("s3://c/", {"read": 4, "rejected": 4, "errors": ["f:1: bad"]}, "vapi")
    assert str(error) == "every call read from s3://c/ was rejected (4 of 4, read as vapi); the first: f:1: bad"


def test_the_export_format_agent_and_suite_are_the_weekly_parameters() -> None:
    found = {d.name: d for d in declared(None, suite_path="s", production_source="s3://calls/exports/",
                                         production_format="vapi", production_agent="agents/a.yaml",
                                         production_suite="suites/s")}
    assert found["weekly-production-grading"].parameters == {
        "source": "s3://calls/exports/", "days": 7, "fmt": "vapi", "agent_path": "agents/a.yaml",
        "suite_path": "suites/s"}
    plain = {d.name: d for d in declared(None, suite_path="s", production_source="calls/")}
    assert plain["weekly-production-grading"].parameters == {"source": "calls/", "days": 7}


@pytest.mark.parametrize(("args", "message"), [
    (["--production-format", "nope", "--production-source", "calls/"],
     "--production-format: unknown import format 'nope'; expected one of:"),
    (["--production-agent", "agents/a.yaml"],
     "--production-agent: only with --production-source (they configure its weekly grading)"),
])
def test_bad_production_options_are_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["deploy", *args])
    assert result.exit_code == 2
    assert message in result.output


def _artifact(flow_run_id: UUID | None, key: str) -> str:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey, FlowRunFilter, FlowRunFilterId

    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])),
                                      flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id] if flow_run_id else [])))
    assert len(found) == 1
    return str(found[0].data)


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness", "polygon_home")
def test_a_vapi_export_without_its_format_fails_the_week_naming_the_reasons(tmp_path: Path) -> None:
    from polygon.flows import weekly_production_grading

    exports = tmp_path / "exports"
    exports.mkdir()
    shutil.copy(sample_path("vapi"), exports / "week.json")  # no "vapi" in the name: read as polygon
    state = weekly_production_grading(source=str(exports), days=100_000, return_state=True)
    first = (f"{exports / 'week.json'}:2 (conversation '0f4d2c1e-8b1a-4c55-9a57-2b8f3c1d7e01'): orgId: Extra inputs "
             "are not permitted; this looks like a vapi export: use --format vapi")
    assert state.is_failed()
    assert state.message == (
        f"Flow run encountered an exception: AllCallsRejectedError: every call read from {exports} was rejected "
        "(2 of 2, each file read in the format its name says; `polygon deploy --production-format` sets one); "
        f"the first: {first}")
    published = _artifact(state.state_details.flow_run_id, "production-calls-imported")
    assert "| 2 | 0 | 0 | 2 |" in published
    assert f"- {first}" in published

    graded = weekly_production_grading(source=str(exports), days=100_000, fmt="vapi", agent_path=str(AGENT),
                                       return_state=True)
    assert graded.is_completed()
    out = graded.result()
    assert (out["import"]["read"], out["import"]["imported"], out["import"]["rejected"]) == (2, 2, 0)
    assert [card["conversations"] for card in out["runs"]] == [2]


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_a_redeploy_removes_only_polygons_deployments_it_no_longer_declares(tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        # The user's own: a Polygon deployment name on another flow, and another name on Polygon's flow.
        other = client.create_flow_from_name("my-own-flow")
        theirs = client.create_deployment(other, "weekly-production-grading", tags=["polygon"])
        weekly_flow = client.create_flow_from_name("weekly-production-grading")
        mine = client.create_deployment(weekly_flow, "my-weekly", tags=["polygon"])
    first = runner.invoke(app, ["deploy", "--pool", "redeploy-pool", "--working-dir", str(tmp_path),
                                "--production-source", "s3://calls/exports/", "--production-format", "vapi",
                                "--production-agent", "agents/a.yaml", "--production-suite", "suites/s"])
    assert first.exit_code == 0, first.output
    with get_client(sync_client=True) as client:
        weekly = client.read_deployment_by_name("weekly-production-grading/weekly-production-grading")
        assert weekly.parameters == {"source": "s3://calls/exports/", "days": 7, "fmt": "vapi",
                                     "agent_path": "agents/a.yaml", "suite_path": "suites/s"}
    again = runner.invoke(app, ["deploy", "--pool", "redeploy-pool", "--working-dir", str(tmp_path)])
    assert again.exit_code == 0, again.output
    assert ("removed weekly-production-grading/weekly-production-grading: no longer declared (its schedule "
            "and triggers with it)") in again.output
    with get_client(sync_client=True) as client:
        with pytest.raises(ObjectNotFound):
            client.read_deployment(weekly.id)
        assert client.read_deployment(theirs).name == "weekly-production-grading"
        assert client.read_deployment(mine).name == "my-weekly"
        assert client.read_deployment_by_name("run-sweep/sweep").name == "sweep"
    third = runner.invoke(app, ["deploy", "--pool", "redeploy-pool", "--working-dir", str(tmp_path)])
    assert "removed" not in third.output
