"""`polygon run` and `demo` underneath: check the inputs, create the runs, run the evaluate flow.

Everything that can be refused is refused before a run row exists (the files, the rubric, the
probe file, the stores, the scenario selection), so a refusal never leaves a run `running`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polygon_core.models import Run

from . import _progress
from ._base import err, foreground_flows, quiet_prefect


def select_scenarios(suite: Path, patterns: Sequence[str]) -> list[str] | None:
    """The suite's scenario ids matching any of `patterns` (exact ids or globs), in suite order.

    None without patterns (the whole suite). A pattern that matches nothing is bad input naming it
    and the suite's ids, so a typo never runs an empty or partial suite silently.
    """
    if not patterns:
        return None
    from polygon_core.files import load_suite

    ids = [s.id for s in load_suite(suite).scenarios]
    unmatched = [p for p in patterns if not fnmatch.filter(ids, p)]
    if unmatched:
        kind = "glob" if any(ch in unmatched[0] for ch in "*?[") else "scenario id"
        raise ValueError(f"--scenario {unmatched[0]!r}: no {kind} of suite {suite} matches "
                         f"(its scenarios: {', '.join(ids)})")
    return [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in patterns)]


def _check_inputs(suite: Path, agents: list[Path], rubric: str | None, probes: Path | None,
                  flags: dict[str, str | None]) -> tuple[Any, str]:
    """The loaded suite and the rubric version, once every input has been checked."""
    from polygon import usecases
    from polygon_core.files import load_agent, load_suite

    usecases.check_run_inputs(suite, agents)  # validate's checks, before any run row exists
    loaded = load_suite(suite)
    for agent in agents:
        config = load_agent(agent).config
        if flags.get("agent") and config.kind != "model":
            # Refuse rather than silently ignore: a callable or HTTP agent brings its own model.
            raise ValueError(f"{agent}: --agent-model applies to model-backed agents; agent "
                             f"{config.name!r} is a {config.kind} agent")
    # One precedence, checked once: --rubric, else suite.yaml's, else POLYGON_RUBRIC, else v1.
    from polygon import usecases
    from polygon_core.adapters.settings import load_settings

    rubric = usecases.resolve_rubric(rubric, loaded.config, load_settings())
    # --probes, else the suite's `probes`: a bad probe file fails before anything runs.
    usecases.resolve_probes(str(probes) if probes else None, str(suite))
    return loaded, rubric


def execute(suite: Path, agents: list[Path], seeds: int | None, rubric: str | None,
            run_id: str | None, show_progress: bool, probes: Path | None = None,
            flags: dict[str, str | None] | None = None, personas: bool = False,
            allow_stale: bool = False, batch_judging: bool = False,
            scenarios: Sequence[str] = (), concurrency: int | None = None, line: Any = None) -> list[Run]:
    """Validate inputs, then run the evaluate_suite flow, showing progress on stderr.

    `line` is the `usecases.LineRequest` of `--channel`, `--conditions` and `--stt-model` (None:
    the files decide); a run with calls is checked for what they need before anything is stored."""
    from polygon import usecases
    from polygon_core.files import load_agent

    flags = flags or {}
    # What a resumed run (`--run-id`) must agree on: what was asked for, and always the agent itself.
    asked = ["agent_version", *(name for name, given in (("seeds", seeds), ("rubric_version", rubric)) if given)]
    asked += [f"models.{role}" for role, model in flags.items() if model]
    if personas:  # the agent's generated personas, bound into this suite's scenarios
        from ._cmd_personas import persona_run_suite

        suite = persona_run_suite(suite, agents, allow_stale=allow_stale)
    loaded, rubric = _check_inputs(suite, agents, rubric, probes, flags)
    chosen = select_scenarios(suite, scenarios)
    seed_list = list(range(seeds)) if seeds else list(loaded.config.seeds)
    stores = usecases.open_stores()
    # --concurrency, else the suite's `concurrency`, else POLYGON_CONCURRENCY (a bad value: exit 2).
    limit = usecases.run_concurrency(concurrency, str(suite.resolve()), stores.settings, caches=stores.caches)
    # The stores answer before anything is recorded: a missing bucket is one line, not a run left
    # `running` and a traceback per task.
    usecases.check_artifact_store(stores)
    runs = []
    for i, agent in enumerate(agents):
        rid = f"{run_id}-{i + 1}" if run_id and len(agents) > 1 else run_id
        roles = usecases.role_models(stores.settings, loaded.config, load_agent(agent).config, flags)
        fresh = usecases.new_run(str(agent.resolve()), str(suite.resolve()), seeds=seed_list, rubric=rubric,
                                 run_id=rid, roles=roles, caches=stores.caches)
        # `--run-id` of a stored run resumes it with its own settings; asking for others is refused.
        run = usecases.resumed_run(stores, fresh, asked=asked, line=line) if rid else fresh
        # The calls' needs (the voice extra, noise files, a recogniser folder), before any run row;
        # a resumed run's line is the one it was created with.
        kept = usecases.LineRequest.from_manifest(usecases.run_manifest(stores, run.id)) if run is not fresh else line
        usecases.check_call_inputs(suite, [agent], kept, chosen)
        runs.append(run)
    # From the suite config, batch judging applies to whichever roles are model-backed; asked for
    # on the command line with nothing to send, it is an error rather than a quiet live pass.
    if batch_judging and not any(usecases.batch_passes(r, suite_path="", agent_path="", rubric_version=rubric,
                                                       enabled=True) for r in runs):
        raise ValueError("batch judging needs a model judge or probe answerer (--judge-model / "
                         f"--probe-model {usecases.batch_model_forms()}); the offline ones have nothing to batch")
    total = sum(len(usecases.plan_conversations(str(suite.resolve()), r.seeds, chosen, caches=stores.caches))
                for r in runs)
    quiet_prefect()
    from polygon.flows import evaluate_suite, task_runner

    def stored() -> int:
        return sum(len(usecases.conversation_ids(stores, r.id)) for r in runs)

    with _progress.watch(err, total, stored, enabled=show_progress):
        # Concurrency is a setting (POLYGON_CONCURRENCY), read here at the edge.
        flow = evaluate_suite.with_options(task_runner=task_runner(stores.settings.concurrency))  # POLYGON_TASK_RUNNER
        try:
            with foreground_flows():
                flow(suite_path=str(suite.resolve()), runs=runs, agent_paths=[str(a.resolve()) for a in agents],
                     batch_judging=batch_judging or None,  # the runs carry their seeds and rubric
                     probes_path=str(probes.resolve()) if probes else None, scenarios=chosen, concurrency=limit,
                     line=line)
        except KeyboardInterrupt:
            _interrupted(stores, runs, run_id, agents)
            raise
    if show_progress:
        _execution_lines(stores, runs)
    return runs


def _interrupted(stores: Any, runs: list[Run], run_id: str | None, agents: list[Path]) -> None:
    """After an interrupt: what each run kept, and how to resume it (a generated id is printed
    nowhere else). With several agents the runs are `<--run-id>-1`, `-2`, …: the same command with
    the same `--run-id` resumes them all; generated ids resume one agent each."""
    from polygon import usecases

    for run, agent in zip(runs, agents, strict=True):
        kept = len(usecases.conversation_ids(stores, run.id))
        if run_id is None and len(runs) > 1:
            how = f"the same command with only --agent {agent} and --run-id {run.id}"
        else:
            how = f"the same command and --run-id {run_id or run.id}"
        err.print(f"interrupted: run {run.id} keeps its {kept} stored conversation(s); resume it with {how}",
                  highlight=False, soft_wrap=True)


def _execution_lines(stores: Any, runs: list[Run]) -> None:
    """How the run went (stderr, beside the progress): peak in flight, and any model limit below it."""
    from polygon import usecases

    for run in runs:
        record = usecases.run_execution(stores, run.id)
        if record is None:
            continue
        below = "; ".join(f"{m} limited to {n} requests in flight (POLYGON_MODEL_CONCURRENCY)"
                          for m, n in record["model_limits_below_concurrency"].items())
        err.print(f"{run.id}: peak {record['peak_in_flight']} of {record['concurrency']} conversations in flight"
                  + (f"; {below}" if below else ""), highlight=False, soft_wrap=True)
