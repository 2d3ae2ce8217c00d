"""`polygon run` and `polygon demo`: run a suite against agents, then compare them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from polygon_core.models import CONDITION_PRESETS, Channel, Run

from ._base import JSON_HELP, console, err, friendly
from ._outputs import OUTPUT_HELP, check_outputs, needs_transcripts, write_outputs
from ._running import execute


def _model_help(role: str) -> str:
    """`--<role>-model`'s help: every provider's name form (filled from the registry when shown)."""
    compact = ("; compact:<that> asks a small local model in the compact format"
               if role in ("judge", "probe answerer") else "")
    return (f"model of the {role}: {{model_forms}}, optionally @<base URL>{compact} "
            "(default: the suite/agent config, then POLYGON_<ROLE>_MODEL)")
_SCENARIO_HELP = "run only this scenario id or glob (repeatable), e.g. 'billing-*'"


def run_line(stores: Any, run_id: str) -> dict[str, str | None]:
    """The run's line as recorded (`usecases.line_text`): `channel`, `conditions`, `stt_model` and
    the one line `text` (`channel voice · conditions street@0.5`); all None for an older run."""
    from polygon import usecases

    return usecases.line_text(usecases.run_manifest(stores, run_id).get("line"))


def _line_json(line: dict[str, str | None]) -> dict[str, str | None]:
    return {key: line[key] for key in ("channel", "conditions", "stt_model")}


def _summary_json(stores: Any, runs: list[Run], cards: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": []}
    for run, card in zip(runs, cards, strict=True):
        out["runs"].append({"run_id": run.id, "agent": run.agent_name, "agent_version": run.agent_version,
                            "rubric_version": run.rubric_version, "conversations": card.conversations,
                            "verdicts": card.verdicts, "mean_composite": card.mean_composite,
                            "gates": card.gates, "models": run.models, **_line_json(run_line(stores, run.id)),
                            "provider_errors": card.provider_errors, "simulator_errors": card.simulator_errors,
                            "agent_failures": card.agent_failures, "agent_failure_reason": card.agent_failure_reason,
                            "judge_errors": card.judge_errors, "judge_error_reason": card.judge_error_reason,
                            "probe_errors": card.probe_errors, "probe_error_reason": card.probe_error_reason,
                            # A run of calls: its interaction panel, {metric: {mean, low, high, calls, events}},
                            # and what its calls were made with, {key: value} (`Scorecard.voice_stack`).
                            **({"voice": {name: s.model_dump(mode="json") for name, s in card.voice.items()},
                                "voice_stack": dict(card.voice_stack)} if card.voice else {}),
                            **usage(stores, run.id)})
    return out


def usage(stores: Any, run_id: str) -> dict[str, Any]:
    """Usage, retries and estimated cost per role (see polygon.usecases.run_usage)."""
    from polygon import usecases

    u = usecases.run_usage(stores, run_id)
    return {"usage": u["roles"], "retries": u["retries"], "cost_usd": u["cost_usd"],
            "cost_estimated": u["cost_estimated"], "prices_read_on": u["prices_read_on"],
            "unpriced_models": u["unpriced_models"], "batch_savings_usd": u["batch_savings_usd"]}


def print_usage(stores: Any, runs: list[Run]) -> None:
    """Per run, a table of model usage by role and the estimated cost."""
    from rich import box
    from rich.table import Table

    for run in runs:
        u = usage(stores, run.id)
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

    def first_detail(reason: str, count: int) -> str | None:
        # The first such conversation's end_detail (kept in its transcript artifact).
        lost = next(((r.id, c) for r in runs for c in usecases.conversation_records(stores, r.id)
                     if c.end_reason == reason), None) if count else None
        return usecases.load_conversation(stores, lost[0], lost[1].conversation_id).end_detail if lost else None

    stop_on_failures(err, cards,
                     first_provider_detail=first_detail("provider_error", sum(c.provider_errors for c in cards)),
                     first_simulator_detail=first_detail("simulator_error", sum(c.simulator_errors for c in cards)),
                     agents=[r.agent_name for r in runs])


def _where(stores: Any) -> str:
    s = stores.settings
    return f"database {s.resolved_database_url()}; artifacts {s.resolved_artifacts_url()}"


def _where_calls(stores: Any, run_id: str) -> None:
    """Where a run's calls can be heard: the WAVs' folder and the command that writes one out."""
    from polygon import usecases

    found = usecases.call_audio_folder(stores, run_id)
    if found is None:
        return
    console.print(f"  {len(found.conversations)} calls as stereo WAVs (caller left, agent right) in {found.folder}/; "
                  f"hear one: polygon show {run_id} {found.conversations[0]} --audio call.wav",
                  highlight=False, soft_wrap=True)


def report(runs: list[Run], json_out: bool, outputs: list[Path] | None = None) -> None:
    """After a run: one JSON object, or the comparison and where the results are; `outputs` are
    files the comparison is also written to (`-o`)."""
    from polygon import usecases

    from . import _render  # the comparison's tables: imported by the commands that print them

    stores = usecases.open_stores()
    comparison = usecases.compare_runs(stores, [r.id for r in runs], transcripts=needs_transcripts(outputs or [])) \
        if (outputs or not json_out) else None
    written = write_outputs(stores, comparison, outputs) if comparison is not None and outputs else []
    if json_out:
        cards = [usecases.scorecard(stores, r.id) for r in runs]
        print(json.dumps(_summary_json(stores, runs, cards), indent=2))
        _stop_on_failures(stores, runs, cards)
        return
    assert comparison is not None
    # After a run, the short form: `polygon compare` lists every row and pair.
    _render.print_comparison(console, comparison, compact=True)
    print_usage(stores, runs)
    console.print(f"\nResults: {_where(stores)}")
    console.print(f"Runs: {', '.join(r.id for r in runs)}  (try `{polygon_command()} show {runs[-1].id}`)")
    for run in runs:  # how a run of calls was made; a text run says nothing new
        line = run_line(stores, run.id)
        if line["conditions"] is not None:
            console.print(f"{run.id}: {line['text']}", highlight=False, soft_wrap=True)
            _where_calls(stores, run.id)
    for kind, path in written:
        console.print(f"{kind} report: {path}", highlight=False)
    _stop_on_failures(stores, runs, comparison.cards)  # the comparison's own scorecards, not new ones


#: `--seeds` at most: a run's parameters go to the Prefect API, which refuses a body of millions of seeds.
MAX_SEEDS = 100_000


@friendly
def demo(seeds: Annotated[int | None, typer.Option(min=1, max=MAX_SEEDS,
                                                   help="seeds per scenario (default: the suite's)")] = None,
         json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
         caller_model: Annotated[str | None, typer.Option(help=_model_help("simulated caller"))] = None,
         judge_model: Annotated[str | None, typer.Option(help=_model_help("judge"))] = None,
         probe_model: Annotated[str | None, typer.Option(help=_model_help("probe answerer"))] = None,
         output: Annotated[list[Path] | None, typer.Option("--output", "-o", help=OUTPUT_HELP)] = None,
         voice: Annotated[bool, typer.Option(
             "--voice", help="every conversation as a call through Polygon's offline voice stack on a phone "
             "line (needs the voice extra)")] = False,
         ) -> None:
    """Run the bundled demo suite with both demo agents (offline by default) and compare them.

    The demo agents are Python callables; the caller, judge and probe answerer can be real models.
    With --voice the conversations are calls (eSpeak NG, the phone preset, Whisper tiny.en) and the
    run says where their WAVs are."""
    from polygon_core.demo import demo_dir

    check_outputs(output or [])
    base = demo_dir()
    agents = [base / "agents" / "agent_v1.yaml", base / "agents" / "agent_v2.yaml"]
    flags = {"caller": caller_model, "judge": judge_model, "probe": probe_model}
    line = line_request("voice", "phone", None) if voice else None
    runs = execute(base / "suite", agents, seeds, None, None, not json_out, flags=flags, line=line)
    if not json_out:
        _demo_legend(runs)
    report(runs, json_out, output)
    if not json_out:
        _demo_next_steps(runs)


#: What each demo agent is, in the order `demo` runs them (polygon_core/demo/agents/).
_DEMO_AGENTS = (("v1", "careful: verifies identity first"), ("v2", "hasty: refunds before verifying"))


def _demo_legend(runs: list[Run]) -> None:
    """Which version is which: the tables name the agents by their hashes only."""
    console.print("The demo compares two versions of one agent (polygon_core/demo/agents/):", highlight=False)
    for run, (version, what) in zip(runs, _DEMO_AGENTS, strict=False):
        console.print(f"  {version} = {run.agent_name}@{run.agent_version[:6]} ({what})", highlight=False,
                      soft_wrap=True)


def polygon_command() -> str:
    """The command that runs this `polygon`, as the user can type it from here: `polygon` when the
    shell finds this very script on PATH, else its path (`.venv/bin/polygon` after `make demo`)."""
    import shutil
    import sys

    script = Path(sys.argv[0])
    found = shutil.which("polygon")
    if script.name != "polygon" or (found is not None and Path(found).resolve() == script.resolve()):
        return "polygon"
    try:
        relative = script.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(script.resolve())
    return str(relative)


def _demo_next_steps(runs: list[Run]) -> None:
    """The demo's last lines: what to type next, as typed from here."""
    from polygon import usecases

    if len(runs) < 2:
        return
    v1, v2 = runs[0], runs[1]
    records = usecases.conversation_records(usecases.open_stores(), v2.id)
    failed = next((r for r in records if r.scenario_id == "billing-dispute-v3"), records[0] if records else None)
    exe = polygon_command()
    # A conversation id's unique prefix (scenario and seed) keeps each command on an 80-column line.
    short = None if failed is None else f"{failed.scenario_id}-s{failed.seed}"
    steps = [("a v2 conversation turn by turn (it refunds before verifying):",
              f"{exe} show {v2.id} {short}") if short else None,
             ("every difference and pair:", f"{exe} compare {v1.id} {v2.id}"),
             ("your own agent: docs/agents.md, then", f"{exe} run my-suite/ --agent my-agent.yaml")]
    console.print("\nNext steps:", highlight=False)
    for why, command in (s for s in steps if s is not None):
        console.print(f"# {why}\n{command}", highlight=False, soft_wrap=True)  # never broken: copied whole
    if exe != "polygon":  # the shell would not find a bare `polygon` here
        console.print(f"(or `source {Path(exe).parent}/activate` first, then type `polygon …`)",
                      highlight=False, soft_wrap=True)


@friendly
def run(suite: Annotated[Path, typer.Argument(help="suite folder")],
        agent: Annotated[list[Path], typer.Option("--agent", "-a", help="agent YAML (repeat to compare)")],
        seeds: Annotated[int | None, typer.Option(min=1, max=MAX_SEEDS, help="seeds 0..N-1 per scenario")] = None,
        rubric: Annotated[str | None, typer.Option(help="rubric version (default: the suite's)")] = None,
        run_id: Annotated[str | None, typer.Option(help="resume or name the run")] = None,
        json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
        probes: Annotated[Path | None, typer.Option(help="probe library YAML (default: the bundled one)")] = None,
        agent_model: Annotated[str | None, typer.Option(help=_model_help("agent (model-backed)"))] = None,
        caller_model: Annotated[str | None, typer.Option(help=_model_help("simulated caller"))] = None,
        judge_model: Annotated[str | None, typer.Option(help=_model_help("judge"))] = None,
        probe_model: Annotated[str | None, typer.Option(help=_model_help("probe answerer"))] = None,
        personas: Annotated[bool, typer.Option("--personas", help="run the agent's generated personas")] = False,
        allow_stale: Annotated[bool, typer.Option("--allow-stale", help="with --personas: use stale ones")] = False,
        batch_judging: Annotated[bool, typer.Option(
            "--batch-judging", help="judge and probe through the provider's batch API (half price; "
            "waits for the batch, polling every POLYGON_BATCH_POLL_SECONDS)")] = False,
        scenario: Annotated[list[str] | None, typer.Option("--scenario", help=_SCENARIO_HELP)] = None,
        output: Annotated[list[Path] | None, typer.Option("--output", "-o", help=OUTPUT_HELP)] = None,
        concurrency: Annotated[int | None, typer.Option(
            help="conversations in flight at once (default: the suite's `concurrency`, else "
            "POLYGON_CONCURRENCY)")] = None,
        channel: Annotated[str | None, typer.Option(
            help="text or voice: every scenario as a chat or as a call (default: each scenario's "
            "`channel`, else the suite's, else text)")] = None,
        conditions: Annotated[str | None, typer.Option(
            help=f"a call's line conditions: {', '.join(CONDITION_PRESETS)}, optionally @INTENSITY from 0 "
            "to 1 (street@0.8) (default: each scenario's `conditions`, else the suite's, else phone)")] = None,
        stt_model: Annotated[str | None, typer.Option(
            help="the recogniser model the agent hears calls with: a CTranslate2 Whisper folder, or "
            "tiny.en / base (default: the agent config's `voice.stt_model`, else the bundled one)")] = None,
        ) -> None:
    """Run a suite against one or more agents."""
    check_outputs(output or [])
    flags = {"agent": agent_model, "caller": caller_model, "judge": judge_model, "probe": probe_model}
    line = line_request(channel, conditions, stt_model)
    report(execute(suite, agent, seeds, rubric, run_id, not json_out, probes=probes, flags=flags,
                   personas=personas, allow_stale=allow_stale, batch_judging=batch_judging,
                   scenarios=scenario or (), concurrency=concurrency, line=line), json_out, output)


def line_request(channel: str | None, conditions: str | None, stt_model: str | None) -> Any:
    """`--channel`, `--conditions` and `--stt-model` as a `usecases.LineRequest` (None when none is
    given); a bad value is a one-line ValueError naming the option. A folder given as the model is
    recorded as its absolute path, so a resumed run or a replay finds it from anywhere."""
    if channel is None and conditions is None and stt_model is None:
        return None
    from polygon import usecases

    if channel is not None and channel not in ("text", "voice"):
        raise ValueError(f"--channel {channel!r}: expected text or voice")
    parsed = usecases.parse_conditions(conditions) if conditions is not None else None
    if stt_model is not None and Path(stt_model).expanduser().exists():
        stt_model = str(Path(stt_model).expanduser().resolve())
    return usecases.LineRequest(channel=cast("Channel | None", channel), conditions=parsed, stt_model=stt_model)
