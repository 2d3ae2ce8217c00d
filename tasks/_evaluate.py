"""Tasks of the evaluate_suite flow."""

from __future__ import annotations

from prefect import task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE

from polygon import usecases
from polygon_core.compare import Scorecard
from polygon_core.models import Run
from polygon_core.reports import scorecard_markdown, scorecard_table

from ._stores import task_stores


@task(name="create-run", retries=2, retry_delay_seconds=1)
def create_run_task(run: Run, suite_path: str | None = None, agent_path: str | None = None,
                    repeats: int = 1, probes_path: str | None = None, line: usecases.LineRequest | None = None,
                    scenarios: list[str] | None = None) -> Run:
    """Record the run and its manifest (kept as-is when a run id is resumed); `line` is the line
    the command line asked for, `scenarios` the ids the run is limited to (None: all)."""
    return usecases.create_run(task_stores(), run, suite_path=suite_path, agent_path=agent_path, repeats=repeats,
                               probes_path=probes_path, line=line, scenarios=scenarios)


def _simulate_name() -> str:
    # "simulate <scenario> seed=<n> agent=<name>": agent, scenario and seed at a glance in the UI.
    from prefect.runtime import task_run

    params = task_run.parameters
    try:
        agent = task_stores().caches.agent(str(params["agent_path"]))[0].name
    except Exception:
        agent = str(params.get("agent_path", "?")).rsplit("/", 1)[-1]
    return f"simulate {params['scenario_id']} seed={params['seed']} agent={agent}"


def _conversation_name() -> str:
    # "evaluate <scenario> seed=<n> agent=<name>", like the simulate task's; the agent is the run's.
    from prefect.runtime import task_run

    params = task_run.parameters
    try:
        agent = usecases.run_settings(task_stores(), str(params["run_id"])).run.agent_name
    except Exception:
        agent = "?"
    return f"evaluate {params['scenario_id']} seed={params['seed']} agent={agent}"


# No cache policy and no persisted result: the conversation's stages are keyed in Polygon's own
# stores (a retry or a resumed run skips what is stored), so Prefect's hashing of the inputs and
# its result record per task would be work for nothing (hundreds of tasks per run).
@task(name="evaluate-conversation", retries=2, retry_delay_seconds=1, task_run_name=_conversation_name,
      cache_policy=NO_CACHE, persist_result=False)
async def evaluate_conversation_task(run_id: str, scenario_id: str, seed: int,
                                     stages: tuple[str, ...] = usecases.STAGES) -> usecases.Evaluated:
    """One conversation simulated (skipped when stored), judged and probed (`stages`), all stored.

    The run id is the one carrier of its settings: its suite and agent files, rubric version, judge
    repeats and probe library are read from the run (`usecases.run_settings`, recorded when it was
    created), so a retry or a resumed run cannot evaluate under others.

    Async, so a flow runs hundreds on one event loop (`usecases.run_bounded`). A retry redoes only
    what is not stored: a stored conversation is never simulated again.
    """
    return await usecases.evaluate_conversation(task_stores(), run_id, scenario_id, seed, stages)


@task(name="simulate", retries=2, retry_delay_seconds=1, task_run_name=_simulate_name)
def simulate_task(run_id: str, suite_path: str, agent_path: str, scenario_id: str, seed: int) -> str:
    """One conversation, stored; skipped when already stored for this run (resume)."""
    return usecases.simulate(task_stores(), run_id, suite_path, agent_path, scenario_id, seed)


@task(name="judge", retries=2, retry_delay_seconds=1, task_run_name="judge {conversation_id}")
def judge_task(run_id: str, conversation_id: str) -> float | None:
    """One judge pass on one stored conversation, under the run's rubric version and repeats (read
    from the stored run, `usecases.run_settings`); returns its composite."""
    return usecases.judge_in_run(task_stores(), run_id, conversation_id).composite


@task(name="probe", retries=2, retry_delay_seconds=1, task_run_name="probe {conversation_id}")
def probe_task(run_id: str, conversation_id: str) -> int:
    """The probe pass on one stored conversation with the run's probe library; returns how many
    probes were answered."""
    return len(usecases.probe_in_run(task_stores(), run_id, conversation_id))


@task(name="finish-run", retries=1)
def finish_run_task(run_id: str) -> Scorecard:
    """Aggregate the run into its scorecard and mark it complete."""
    return usecases.finish_run(task_stores(), run_id)


@task(name="publish-artifacts")
def publish_artifacts_task(card: Scorecard) -> None:
    """The scorecard as a table and a markdown artifact on the flow run, for the Prefect UI, with the
    judge's calibration as every scorecard shows it and a forced fitted judge's warning
    (`usecases.scorecard_notes`)."""
    key = "scorecard-" + "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in card.run_id.lower())
    line, warning = usecases.scorecard_notes(task_stores(), card)
    create_table_artifact(key=key, table=scorecard_table(card, line, warning),
                          description=f"Scorecard of run {card.run_id}")
    create_markdown_artifact(key=key + "-md", markdown=scorecard_markdown(card, line, warning),
                             description=f"Scorecard of run {card.run_id}")
