"""`polygon`: run suites, inspect results, compare versions. Thin over the flows and pipeline."""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from polygon_core.models import Run

from . import _render
from ._infra import infrastructure_error, print_infrastructure_error
from ._prefect import choose_api

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Polygon: grade whole conversations of voice and chat agents.")
db_app = typer.Typer(no_args_is_help=True, help="Database maintenance.")
app.add_typer(db_app, name="db")
console = Console()
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def _user_errors() -> tuple[type[BaseException], ...]:
    from polygon.usecases import ComparisonError
    from polygon_core.adapters.agents import AgentConfigError
    from polygon_core.files import FileErrors, PolygonFileError

    return (PolygonFileError, FileErrors, AgentConfigError, ComparisonError, FileNotFoundError, ValueError)


def friendly(fn: F) -> F:
    """Bad input → one clear line on stderr and exit 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except _user_errors() as exc:
            infra = infrastructure_error(exc)
            if infra is not None:  # e.g. DatabaseNotReadyError is a ValueError, but not bad input
                print_infrastructure_error(err, infra)
                raise typer.Exit(1) from None
            lines = [str(e) for e in getattr(exc, "errors", [])] or [str(exc)]
            for line in lines:
                err.print(f"[red]error:[/] {line}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except Exception as exc:
            infra = infrastructure_error(exc)
            if infra is None:
                raise
            print_infrastructure_error(err, infra)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def _quiet_prefect() -> None:
    """Before a command runs flows: quiet defaults (anything the user set wins), then a Prefect API
    that answers (the configured one, a running local server, or a patient temporary one)."""
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_LOGGING_TO_API_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "CRITICAL")
    # A busy or restarting API answers 503 for a while: retry longer than Prefect's default 5 times
    # (its client backs off exponentially) before a run is given up.
    os.environ.setdefault("PREFECT_CLIENT_MAX_RETRIES", "10")
    choose_api(err)


def _execute(suite: Path, agents: list[Path], seeds: int | None, rubric: str | None,
             run_id: str | None, show_progress: bool, probes: Path | None = None,
             flags: dict[str, str | None] | None = None, personas: bool = False,
             allow_stale: bool = False, batch_judging: bool = False) -> list[Run]:
    """Validate inputs, then run the evaluate_suite flow with a progress bar."""
    from polygon import usecases
    from polygon_core.files import load_agent, load_suite

    if personas:  # the agent's generated personas, bound into this suite's scenarios
        from ._cmd_personas import persona_run_suite

        suite = persona_run_suite(suite, agents, allow_stale=allow_stale)
    from ._preflight import check_run_inputs

    check_run_inputs(suite, agents)  # validate's checks, before any run row exists
    loaded = load_suite(suite)
    for agent in agents:
        config = load_agent(agent).config
        if (flags or {}).get("agent") and config.kind != "model":
            # Refuse rather than silently ignore: a callable or HTTP agent brings its own model.
            raise ValueError(f"{agent}: --agent-model applies to model-backed agents; agent "
                             f"{config.name!r} is a {config.kind} agent")
    seed_list = list(range(seeds)) if seeds else list(loaded.config.seeds)
    rubric = rubric or loaded.config.rubric
    from polygon_core.scoring import get_rubric

    get_rubric(rubric)
    if probes is not None:
        from polygon_core.probes import load_probes

        load_probes(probes)  # a bad probe file fails before anything runs
    stores = usecases.open_stores()
    # The stores answer before anything is recorded: a missing bucket is one line, not a run left
    # `running` and a traceback per task.
    stores.artifacts.exists("runs/.preflight")
    runs = []
    for i, agent in enumerate(agents):
        rid = f"{run_id}-{i + 1}" if run_id and len(agents) > 1 else run_id
        roles = usecases.role_models(stores.settings, loaded.config, load_agent(agent).config, flags)
        runs.append(usecases.new_run(str(agent.resolve()), str(suite.resolve()), seeds=seed_list, rubric=rubric,
                                     run_id=rid, roles=roles))
    # From the suite config, batch judging applies to whichever roles are model-backed; asked for
    # on the command line with nothing to send, it is an error rather than a quiet live pass.
    if batch_judging and not any(usecases.batch_passes(r, suite_path="", agent_path="", rubric_version=rubric,
                                                       enabled=True) for r in runs):
        raise ValueError("batch judging needs a model judge or probe answerer (--judge-model / "
                         "--probe-model openai:… or anthropic:…); the offline ones have nothing to batch")
    total = len(usecases.plan_conversations(str(suite.resolve()), seed_list)) * len(runs)
    _quiet_prefect()
    from polygon.flows import evaluate_suite

    done = threading.Event()

    def poll(progress: Progress, task_id: Any) -> None:
        while not done.wait(0.25):
            n = sum(len(stores.repo.conversation_ids(r.id)) for r in runs)
            progress.update(task_id, completed=n)

    with Progress(TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, disable=not show_progress, transient=True) as progress:
        task_id = progress.add_task("conversations", total=total)
        watcher = threading.Thread(target=poll, args=(progress, task_id), daemon=True)
        watcher.start()
        try:
            from prefect.task_runners import ThreadPoolTaskRunner

            # Concurrency is a setting (POLYGON_CONCURRENCY), read here at the edge.
            flow = evaluate_suite.with_options(
                task_runner=ThreadPoolTaskRunner(max_workers=stores.settings.concurrency))
            flow(suite_path=str(suite.resolve()), runs=runs,
                           agent_paths=[str(a.resolve()) for a in agents], seeds=seed_list,
                           rubric_version=rubric, batch_judging=batch_judging or None,
                           probes_path=str(probes.resolve()) if probes else None)
        finally:
            done.set()
            watcher.join()
    return runs


def _summary_json(stores: Any, runs: list[Run], cards: list[Any]) -> dict[str, Any]:
    out = {"runs": []}
    for run, card in zip(runs, cards, strict=True):
        out["runs"].append({"run_id": run.id, "agent": run.agent_name, "agent_version": run.agent_version,
                            "rubric_version": run.rubric_version, "conversations": card.conversations,
                            "verdicts": card.verdicts, "mean_composite": card.mean_composite,
                            "gates": card.gates, "models": run.models,
                            "provider_errors": card.provider_errors,
                            "agent_failures": card.agent_failures, "agent_failure_reason": card.agent_failure_reason,
                            "judge_errors": card.judge_errors, "judge_error_reason": card.judge_error_reason,
                            "probe_errors": card.probe_errors, "probe_error_reason": card.probe_error_reason,
                            **_usage(stores, run.id)})
    return out


def _usage(stores: Any, run_id: str) -> dict[str, Any]:
    """Usage, retries and estimated cost per role (see polygon_core.adapters.providers.run_usage)."""
    from polygon_core.adapters.providers import run_usage

    convs = [{k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in (r.usage or {}).items()}
             for r in stores.repo.list_conversations(run_id)]
    u = run_usage(stores.artifacts, run_id, convs)
    return {"usage": u["roles"], "retries": u["retries"], "cost_usd": u["cost_usd"],
            "cost_estimated": u["cost_estimated"], "prices_read_on": u["prices_read_on"],
            "unpriced_models": u["unpriced_models"], "batch_savings_usd": u["batch_savings_usd"]}


def _print_usage(stores: Any, runs: list[Run]) -> None:
    from rich import box
    from rich.table import Table

    for run in runs:
        u = _usage(stores, run.id)
        table = Table(title=f"Model usage of {run.id} (estimated cost, prices read on {u['prices_read_on']})",
                      box=box.SIMPLE_HEAD)  # fits an 80-column terminal
        # The batch column only when a pass went by batch; numbers never wrap, model names fold.
        batched = any(r["batch_calls"] for r in u["usage"].values())
        cols = ["role", "model", "calls", *(["batch"] if batched else []), "input", "cached", "output",
                "retries", "failed", "cost $"]
        for col in cols:
            table.add_column(col, overflow="fold", no_wrap=col != "model", min_width=7 if col == "model" else None)
        for role, r in u["usage"].items():
            est = "~" if r["tokens_estimated"] else ""
            table.add_row(role, ", ".join(r["models"]), str(r["calls"]),
                          *([str(r["batch_calls"])] if batched else []),
                          f"{est}{r['input_tokens']}", str(r["cached_tokens"]), f"{est}{r['output_tokens']}",
                          str(r["retries"]), str(r["failures"]), f"{r['cost_usd']:.4f}")
        console.print(table)
        note = f" (no price for {', '.join(u['unpriced_models'])})" if u["unpriced_models"] else ""
        saved = (f"; batch discount saved ${u['batch_savings_usd']:.4f}" if u["batch_savings_usd"] else "")
        console.print(f"estimated cost: ${u['cost_usd']:.4f}{note}{saved}; retries: {u['retries']}")


def _stop_on_failures(stores: Any, runs: list[Run], cards: list[Any]) -> None:
    """Lost, broken or unjudged conversations make the command fail (exit 1), with the reason."""
    from polygon import usecases

    from ._failures import stop_on_failures

    lost = next(((r.id, c) for r in runs for c in stores.repo.list_conversations(r.id)
                 if c.end_reason == "provider_error"), None) if any(c.provider_errors for c in cards) else None
    detail = usecases.load_conversation(stores, lost[0], lost[1].conversation_id).end_detail if lost else None
    stop_on_failures(err, cards, first_provider_detail=detail, agents=[r.agent_name for r in runs])


def _where(stores: Any) -> str:
    s = stores.settings
    return f"database {s.resolved_database_url()}; artifacts {s.resolved_artifacts_url()}"


def _report(runs: list[Run], json_out: bool) -> None:
    """After a run: one JSON object, or the comparison and where the results are."""
    from polygon import usecases

    stores = usecases.open_stores()
    if json_out:
        cards = [usecases.scorecard(stores, r.id) for r in runs]
        print(json.dumps(_summary_json(stores, runs, cards), indent=2))
        _stop_on_failures(stores, runs, cards)
        return
    comparison = usecases.compare_runs(stores, [r.id for r in runs])
    # After a run, the short form: `polygon compare` lists every row and pair.
    _render.print_comparison(console, comparison, compact=True)
    _print_usage(stores, runs)
    console.print(f"\nResults: {_where(stores)}")
    console.print(f"Runs: {', '.join(r.id for r in runs)}  (try `polygon show {runs[-1].id}`)")
    _stop_on_failures(stores, runs, comparison.cards)  # the comparison's own scorecards, not new ones


_MODEL_HELP = ("model of the {}: offline | openai:<model> | anthropic:<model>, optionally @<base URL> "
               "(default: the suite/agent config, then POLYGON_<ROLE>_MODEL)")


@app.command()
@friendly
def demo(seeds: Annotated[int | None, typer.Option(help="seeds per scenario (default: the suite's)")] = None,
         json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
         caller_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("simulated caller"))] = None,
         judge_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("judge"))] = None,
         probe_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("probe answerer"))] = None,
         ) -> None:
    """Run the bundled demo suite with both demo agents (offline by default) and compare them.

    The demo agents are Python callables; the caller, judge and probe answerer can be real models."""
    from polygon_core.demo import demo_dir

    base = demo_dir()
    agents = [base / "agents" / "agent_v1.yaml", base / "agents" / "agent_v2.yaml"]
    flags = {"caller": caller_model, "judge": judge_model, "probe": probe_model}
    _report(_execute(base / "suite", agents, seeds, None, None, not json_out, flags=flags), json_out)


@app.command()
@friendly
def run(suite: Annotated[Path, typer.Argument(help="suite folder")],
        agent: Annotated[list[Path], typer.Option("--agent", "-a", help="agent YAML (repeat to compare)")],
        seeds: Annotated[int | None, typer.Option(help="seeds 0..N-1 per scenario")] = None,
        rubric: Annotated[str | None, typer.Option(help="rubric version (default: the suite's)")] = None,
        run_id: Annotated[str | None, typer.Option(help="resume or name the run")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
        probes: Annotated[Path | None, typer.Option(help="probe library YAML (default: the bundled one)")] = None,
        agent_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("agent (model-backed)"))] = None,
        caller_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("simulated caller"))] = None,
        judge_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("judge"))] = None,
        probe_model: Annotated[str | None, typer.Option(help=_MODEL_HELP.format("probe answerer"))] = None,
        personas: Annotated[bool, typer.Option("--personas", help="run the agent's generated personas")] = False,
        allow_stale: Annotated[bool, typer.Option("--allow-stale", help="with --personas: use stale ones")] = False,
        batch_judging: Annotated[bool, typer.Option(
            "--batch-judging", help="judge and probe through the provider's batch API (half price; "
            "waits for the batch, polling every POLYGON_BATCH_POLL_SECONDS)")] = False,
        ) -> None:
    """Run a suite against one or more agents."""
    flags = {"agent": agent_model, "caller": caller_model, "judge": judge_model, "probe": probe_model}
    _report(_execute(suite, agent, seeds, rubric, run_id, not json_out, probes=probes, flags=flags,
                     personas=personas, allow_stale=allow_stale, batch_judging=batch_judging), json_out)


@app.command("runs")
@friendly
def list_runs(limit: int = 20) -> None:
    """List stored runs, newest first."""
    from rich.table import Table

    from polygon import usecases

    stores = usecases.open_stores()
    table = Table(title="Runs")
    table.add_column("run", no_wrap=True)
    for col in ("created", "suite", "agent", "version", "rubric", "status", "mean", "pass/warn/fail"):
        table.add_column(col, overflow="fold")
    for r in stores.repo.list_runs(limit=limit):
        summary = stores.repo.get_run_summary(r.id) or {}
        v = summary.get("verdicts", {})
        mean = summary.get("mean_composite")
        table.add_row(r.id, (r.created_at or "")[:19], r.suite, r.agent_name, r.agent_version[:8],
                      r.rubric_version, r.status, "—" if mean is None else f"{mean:.1f}",
                      f"{v.get('pass', 0)}/{v.get('warn', 0)}/{v.get('fail', 0)}")
    console.print(table)


@app.command()
@friendly
def show(run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
         rubric: Annotated[str | None, typer.Option(help="rubric version to show (default: the run's)")] = None,
         judge: Annotated[str | None, typer.Option(
             help="whose judgments to show (default: the run's own judge, else the latest)")] = None,
         ) -> None:
    """Show one run: scorecard and per-conversation results (one rubric version, one judge)."""
    from rich.table import Table

    from polygon import usecases

    stores = usecases.open_stores()
    run = stores.repo.get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    if rubric is not None:
        from polygon_core.scoring import get_rubric

        get_rubric(rubric)  # an unknown version is a user error naming the known ones
    card = usecases.scorecard(stores, run.id, rubric_version=rubric, judge=judge)
    judges = {j.judge_model for j in stores.repo.judgments(run.id, card.rubric_version)}
    if judge is not None and judge not in judges:
        raise ValueError(f"run {run.id} has no judgments by {judge!r} under rubric {card.rubric_version}; "
                         f"judged by: {', '.join(sorted(judges)) or 'nobody yet'}")
    console.print(_render.scorecards_table([card]))
    if len(judges) > 1:
        others = ", ".join(sorted(judges - {card.judge_model}))
        console.print(f"(also judged under {card.rubric_version} by {others}: see --judge)", highlight=False)
    table = Table(title="Conversations")
    table.add_column("conversation", no_wrap=True)
    for col in ("caller", "end", "composite", "verdict", "gates", "failed assertions / why"):
        table.add_column(col, overflow="fold")
    rows = usecases.result_rows(stores, run.id, rubric, judge=card.judge_model)
    for row, rec in zip(rows, stores.repo.list_conversations(run.id), strict=False):
        failed = ", ".join(f"{a.name}" + (f" (turn {a.turn})" if a.turn is not None else "")
                           for a in rec.assertions if a.status in ("fail", "error"))
        if row.status in ("agent_failure", "judge_error"):
            failed = f"{row.status}: {row.reason}" + (f"; {failed}" if failed else "")
        table.add_row(row.conversation_id, row.caller_type, row.end_reason,
                      "—" if row.composite is None else f"{row.composite:.1f}", row.verdict or "—",
                      ", ".join(row.gates) or "", failed)
    console.print(table)
    console.print(_render.probes_table([card]))
    _render.print_provenance(console, [card])


@app.command()
@friendly
def validate(paths: Annotated[list[Path], typer.Argument(help="suite folders or YAML files")]) -> None:
    """Check scenario, suite, tool-library and agent files without running anything."""
    from polygon_core.files import validate_paths, validation_warnings

    errors = validate_paths(paths)
    for e in errors:
        err.print(f"[red]error:[/] {e}", highlight=False, soft_wrap=True)
    # Warnings never change the exit code: the files are valid, they just may not test what is meant.
    for w in validation_warnings(paths):
        err.print(f"[yellow]warning:[/] {w}", highlight=False, soft_wrap=True)
    if errors:
        raise typer.Exit(2)
    console.print(f"ok: {len(paths)} path(s) valid")


@app.command()
@friendly
def schema(kind: Annotated[str, typer.Argument(help="scenario | agent | suite | tools")]) -> None:
    """Print the JSON Schema of a file kind (for editors)."""
    from polygon_core.files import json_schema

    print(json.dumps(json_schema(kind), indent=2))


@db_app.command("upgrade")
@friendly
def db_upgrade() -> None:
    """Apply database migrations (Alembic) to the configured database."""
    from polygon_core.adapters.settings import load_settings
    from polygon_core.adapters.storage import Repository

    url = load_settings().resolved_database_url()
    Repository(url).upgrade()
    console.print(f"database at head: {url.split('@')[-1]}")


def _register_command_modules() -> None:
    # Each command area lives in its own `_cmd_<area>.py` with `register(app)`, so areas can grow
    # independently; discovery is sorted, so `--help` lists commands in a stable order.
    import importlib
    import pkgutil

    package = __name__.rsplit(".", 1)[0]
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]),
                       key=lambda m: m.name):
        if info.name.startswith("_cmd_"):
            importlib.import_module(f"{package}.{info.name}").register(app)


_register_command_modules()


def main() -> None:
    """Console-script entry point."""
    app(prog_name="polygon")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
