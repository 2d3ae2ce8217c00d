"""`polygon deploy`: create Polygon's Prefect deployments on the server PREFECT_API_URL names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ._base import JSON_HELP, console, err, friendly


def _prefect_api() -> str:
    """The configured Prefect API (or a server at the default local address), checked to answer.
    Never a temporary server: deployments on it would vanish with the command."""
    from prefect.settings import get_current_settings

    from ._prefect import DEFAULT_LOCAL_API, _healthy, use_api

    configured = get_current_settings().api.url
    url = configured or DEFAULT_LOCAL_API
    if not _healthy(url, timeout=10.0):
        where = f"the Prefect API at {url}" if configured else f"a Prefect server at {DEFAULT_LOCAL_API}"
        err.print(f"cannot reach {where}: start one (`prefect server start`) and set "
                  "PREFECT_API_URL=http://<host>:4200/api", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    if not configured:
        use_api(url)  # for the rest of the command
    return url


@friendly
def deploy(
    pool: Annotated[str, typer.Option("--pool", help="work pool (created, of --pool-type, if missing)")] = "polygon",
    pool_type: Annotated[str, typer.Option("--pool-type", help="type of a pool created here")] = "process",
    suite: Annotated[str | None, typer.Option(
        "--suite", help="default suite of re-evaluations, relative to --working-dir (default: the bundled demo "
                        "suite)")] = None,
    working_dir: Annotated[Path | None, typer.Option(
        "--working-dir", help="folder flow runs start in on the workers; relative paths in events resolve "
                              "against it (default: this folder)")] = None,
    production_source: Annotated[str | None, typer.Option(
        "--production-source", help="folder or s3:// prefix of production call exports (weekly grading is "
                                    "declared only with one)")] = None,
    production_format: Annotated[str | None, typer.Option(
        "--production-format", help="import format of the production exports, e.g. vapi (default: each "
                                    "file's name says, else polygon)")] = None,
    production_agent: Annotated[str | None, typer.Option(
        "--production-agent", help="agent file the production calls are graded against (its forbidden "
                                   "phrases, tools), relative to --working-dir")] = None,
    production_suite: Annotated[str | None, typer.Option(
        "--production-suite", help="suite the production agent is versioned with (its tools), with --production-agent; relative to --working-dir")]
        = None,
    cron: Annotated[str, typer.Option("--cron", help="weekly grading schedule")] = "0 6 * * 1",
    pull_cron: Annotated[str, typer.Option("--pull-cron", help="schedule of pull-calls (S3 prefixes listed)")]
        = "*/15 * * * *",
    timezone: Annotated[str, typer.Option("--timezone", help="timezone of --cron and --pull-cron")] = "UTC",
    seeds: Annotated[str | None, typer.Option("--seeds", help="comma-separated seeds of re-evaluations")] = None,
    source: Annotated[str | None, typer.Option(
        "--source", help="load the flows from this checkout or git URL instead of the installed package")] = None,
    job_variables: Annotated[str | None, typer.Option(
        "--job-variables", help="JSON object of the work pool's job variables, e.g. '{\"image\": \"acme/polygon:1\"}'")]
        = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Create (or update) Polygon's deployments and their work pool on the Prefect server, and remove
    Polygon's own deployments it no longer declares."""
    from polygon.deployments import declared, ensure_work_pool, remove_undeclared
    from polygon.deployments import deploy as apply_deployments
    from polygon_core.imports import get_format

    try:
        seed_list = [int(s) for s in seeds.split(",")] if seeds else None
    except ValueError:
        raise ValueError(f"--seeds {seeds}: expected comma-separated integers such as 0,1,2") from None
    variables = json.loads(job_variables) if job_variables else {}
    if not isinstance(variables, dict):
        raise ValueError(f"--job-variables {job_variables}: expected a JSON object such as '{{\"image\": \"…\"}}'")
    _check_schedules({"--cron": cron, "--pull-cron": pull_cron}, timezone)  # before the server is changed
    production = {"production_format": production_format, "production_agent": production_agent,
                  "production_suite": production_suite}
    given = [f"--{key.replace('_', '-')}" for key, value in production.items() if value]
    if given and not production_source:
        raise ValueError(f"{', '.join(given)}: only with --production-source (they configure its weekly grading)")
    if production_format:
        try:
            get_format(production_format)
        except ValueError as exc:
            raise ValueError(f"--production-format: {exc}") from None
    # Not checked here: the folder is on the workers (a pod's image, another machine), maybe not on this one.
    start_in = (working_dir or Path.cwd()).absolute()
    if suite is None:
        from polygon_core.demo import demo_dir

        suite = str(demo_dir() / "suite") if source is None else "polygon_core/demo/suite"
    api = _prefect_api()
    created = ensure_work_pool(pool, pool_type)
    ids = apply_deployments(source, work_pool=pool, suite_path=suite, cron=cron, timezone=timezone,
                            production_source=production_source, seeds=seed_list, working_dir=start_in,
                            job_variables=variables, pull_cron=pull_cron, **production)
    # What an earlier deploy declared and this one does not (the weekly grading without
    # --production-source) must not keep its schedule: Polygon's own deployments only.
    removed = remove_undeclared(ids)
    entry = {d.name: (d.entrypoint if source else d.module_entrypoint)
             for d in declared(source, suite_path=suite, production_source=production_source)}
    if json_out:
        print(json.dumps({"api": api, "work_pool": pool, "work_pool_created": created,
                          "working_dir": None if source else str(start_in), "suite_path": suite,
                          "deployments": [{"name": n, "id": i, "entrypoint": entry[n]} for n, i in ids.items()],
                          "removed": removed}, indent=2))
        return
    console.print(f"{'created' if created else 'using'} work pool {pool!r} on {api}", highlight=False)
    for name, dep_id in ids.items():
        console.print(f"{name}\t{dep_id}\t{entry[name]}", highlight=False)
    for full_name in removed:
        console.print(f"removed {full_name}: no longer declared (its schedule and triggers with it)",
                      highlight=False, soft_wrap=True)
    where = f"from {source}" if source else f"from the installed package, starting in {start_in}"
    console.print(f"{len(ids)} deployments, flows {where}; start workers with "
                  f"`prefect worker start --pool {pool}`", highlight=False)


def _check_schedules(crons: dict[str, str], timezone: str) -> None:
    """Each schedule option as Prefect will read it, refused (exit 2) naming the option, before any
    work pool or deployment is touched."""
    from prefect.client.schemas.schedules import CronSchedule
    from pydantic import ValidationError

    for option, cron in crons.items():
        try:
            CronSchedule(cron=cron, timezone=timezone)
        except ValidationError as exc:
            error = exc.errors()[0]
            bad = "--timezone" if error["loc"] == ("timezone",) else option
            value = timezone if bad == "--timezone" else cron
            raise ValueError(f"{bad} {value!r}: {error['msg'].removeprefix('Value error, ')}") from None
