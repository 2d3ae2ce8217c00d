"""A burst of calls from several sources is one import-calls flow run, named for every source.

Before: the deployment's trigger had `for_each={"prefect.resource.id"}` (one window per source), so
a Vapi and a Retell call seconds apart started two runs at the same moment, each importing every
source's calls: one run's report showed the other's calls as duplicates.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from polygon.flows import import_arrived_calls
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
from prefect.events import DeploymentEventTrigger
from prefect.events.schemas.automations import ResourceSpecification

from polygon.deployments import declared
from polygon.web._webhooks import send_event
from polygon_core.events import CALLS_ARRIVED

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]

REPO = Path(__file__).resolve().parents[2]


def _import_calls_trigger() -> DeploymentEventTrigger:
    (deployment,) = [d for d in declared(str(REPO), suite_path="suite") if d.name == "import-calls"]
    (trigger,) = deployment.triggers
    return trigger


def test_the_arrival_trigger_has_one_window_for_every_source() -> None:
    trigger = _import_calls_trigger()
    assert (trigger.for_each, trigger.threshold, trigger.within.total_seconds()) == (set(), 1, 60.0)


def _runs_of(deployment_id: uuid.UUID, wait: float = 20.0, linger: float = 5.0) -> list[str]:
    """The `source` parameter of each run the automation started: read once the first run is there
    (or after `wait`), and again `linger` seconds later, so that a second run would be seen."""
    deployments = DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id]))
    with get_client(sync_client=True) as prefect:
        deadline = time.monotonic() + wait
        while not prefect.read_flow_runs(deployment_filter=deployments) and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(linger)
        return sorted(str(r.parameters.get("source")) for r in prefect.read_flow_runs(deployment_filter=deployments))


def test_two_sources_seconds_apart_start_one_run() -> None:
    tag = uuid.uuid4().hex[:8]
    # The declared trigger, matching only this test's resources (other tests emit arrivals too).
    trigger = _import_calls_trigger().model_copy(update={
        "name": f"calls arrived {tag}",
        "match": ResourceSpecification({"prefect.resource.id": f"polygon.calls.{tag}-*"})})
    with get_client(sync_client=True) as prefect:
        flow_id = prefect.create_flow_from_name(f"import-calls-{tag}")
        deployment_id = prefect.create_deployment(flow_id=flow_id, name=f"import-calls-{tag}")
        trigger.set_deployment_id(deployment_id)
        prefect.create_automation(trigger.as_automation())
    for source in (f"{tag}-vline", f"{tag}-rline"):
        send_event(event=CALLS_ARRIVED, resource={"prefect.resource.id": f"polygon.calls.{source}"},
                   payload={"source": source, "via": "webhook", "external_ids": ["c-1"]})
        time.sleep(1)
    assert _runs_of(deployment_id) == [f"{tag}-vline"]


def test_the_run_is_named_for_every_source(tmp_path: Path, polygon_home: Path) -> None:
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  vline:\n    platform: polygon\n", encoding="utf-8")
    state = import_arrived_calls(source="vline", sources_file=str(sources), return_state=True)
    assert state.result()["sources"] == []
    with get_client(sync_client=True) as prefect:
        run = prefect.read_flow_run(state.state_details.flow_run_id)
    assert run.name == "import arrived calls of every source (first: vline)"
