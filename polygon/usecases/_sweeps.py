"""Running sweeps: each point materialised as immutable files, run as a normal evaluation.

A point's agent config and suite are written under `$POLYGON_HOME/sweeps/<name>/points/<profile>/`,
where `profile` hashes the configuration the point runs (`point_profile`: the effective agent and
world, not how the values are written). The point's run id is `sweep-<name>-<profile>`: two points
of one configuration are one run, running a finished sweep again finds its completed runs and makes
no new model calls, and a half-finished one resumes conversation by conversation.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from polygon_core import content_hash
from polygon_core.compare import ResultRow
from polygon_core.files import (
    FileErrors,
    agent_version,
    load_agent,
    load_suite,
    read_yaml,
    sweep_path_errors,
    validate_document,
)
from polygon_core.models import AgentConfig
from polygon_core.sweeps import SweepPoint, SweepSpec

from ._common import Stores, load_conversation
from ._results import result_rows


@dataclass(frozen=True)
class LoadedSweep:
    """A sweep spec with its paths resolved."""

    spec: SweepSpec
    path: Path
    agent_path: Path
    suite_path: Path


def load_sweep(path: Path | str) -> LoadedSweep:
    """Read a sweep spec; errors name the file, line and field (FileErrors)."""
    path = Path(path).resolve()
    doc = read_yaml(path)
    spec = validate_document(doc, SweepSpec)
    outside = sweep_path_errors(doc, path)  # a prompt file is copied into each point and sent to a model
    if outside:
        raise FileErrors(outside)
    base = path.parent
    return LoadedSweep(spec=spec, path=path, agent_path=(base / spec.agent).resolve(),
                       suite_path=(base / spec.suite).resolve())


def base_values(sweep: LoadedSweep) -> dict[str, Any]:
    """The base agent's value of every parameter the sweep varies."""
    config = load_agent(sweep.agent_path).config
    values: dict[str, Any] = {}
    for name in sweep.spec.parameters:
        if name.startswith("sampling."):
            values[name] = getattr(config.sampling, name.split(".", 1)[1])
        elif name == "model":
            values[name] = config.model
        elif name == "prompt_file":
            values[name] = config.prompt_file
        elif name == "noise" or name == "stub_error_rate":
            values[name] = None
    return values


def point_profile(sweep: LoadedSweep, point: SweepPoint) -> str:
    """The point's configuration profile: a hash of what the point runs, not of how it is written.

    Hashed: the effective agent (its version: prompt text, model, sampling, …), the effective world
    (each chosen scenario with its noise, each tool with its fault injection; a fault rate of 0 is no
    fault) and the base suite's files. So a point that sets a parameter to what the base already
    has (`noise: 0.0` where the scenarios have none, `temperature: 0` for 0.0, the base prompt named
    by another path) has the base's profile, and a sweep runs that configuration once.
    """
    values = point.values
    agent = yaml.safe_load(sweep.agent_path.read_text(encoding="utf-8"))
    _apply_agent(agent, values, sweep.agent_path.parent, sweep.path.parent)
    prompt = Path(agent["prompt_file"]).read_text(encoding="utf-8") if agent.get("prompt_file") else None
    config = AgentConfig.model_validate(agent)
    version = agent_version(config, prompt if prompt is not None else config.prompt or "")
    suite = load_suite(sweep.suite_path)
    scenarios = []
    for scenario in suite.scenarios:
        if sweep.spec.scenarios is None or scenario.id in sweep.spec.scenarios:
            body = scenario.model_dump(mode="json")
            if "noise" in values:
                body["noise"] = float(values["noise"])
            scenarios.append(body)
    tools = {}
    for name, tool in sorted(suite.tools.items()):
        body = tool.model_dump(mode="json")
        if "stub_error_rate" in values and suite.tools_file is not None:
            body["errors"] = {"rate": float(values["stub_error_rate"]), "kind": "server_error", "payload": None}
        if body.get("errors") and float(body["errors"].get("rate") or 0.0) <= 0.0:
            body["errors"] = None  # draw_fault: a rate of 0 never faults, exactly like no `errors`
        tools[name] = body
    suite_files = sorted(p for p in sweep.suite_path.rglob("*.yaml"))
    suite_hash = content_hash([p.read_text(encoding="utf-8") for p in suite_files])
    return content_hash([version, suite_hash, scenarios, tools], 10)


def materialise_point(sweep: LoadedSweep, point: SweepPoint, home: Path) -> tuple[Path, Path, str]:
    """Write the point's agent config and suite (once; never edited in place)."""
    profile = point_profile(sweep, point)
    root = home / "sweeps" / sweep.spec.name / "points" / profile
    agent_file, suite_dir = root / "agent.yaml", root / "suite"
    if agent_file.exists() and suite_dir.exists():
        return agent_file, suite_dir, profile
    tmp = root.with_name(profile + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(sweep.suite_path, tmp / "suite")
    _apply_world(tmp / "suite", point.values, sweep.spec.scenarios)
    agent = yaml.safe_load(sweep.agent_path.read_text(encoding="utf-8"))
    _apply_agent(agent, point.values, sweep.agent_path.parent, sweep.path.parent)
    _copy_prompt(agent, tmp)
    (tmp / "agent.yaml").write_text(yaml.safe_dump(agent, sort_keys=True), encoding="utf-8")
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)  # appears whole or not at all
    return agent_file, suite_dir, profile


def _apply_agent(agent: dict[str, Any], values: dict[str, Any], agent_dir: Path, spec_dir: Path) -> None:
    if agent.get("prompt_file"):
        agent["prompt_file"] = str((agent_dir / agent["prompt_file"]).resolve())
    for name, value in values.items():
        if name.startswith("sampling."):
            agent.setdefault("sampling", {})[name.split(".", 1)[1]] = value
        elif name == "model":
            agent["model"] = value
        elif name == "prompt_file":
            agent.pop("prompt", None)
            agent["prompt_file"] = str((spec_dir / value).resolve())


def _copy_prompt(agent: dict[str, Any], point_dir: Path) -> None:
    # A prompt file must lie inside its agent file's folder (files/_agent_checks.py), so the point
    # keeps its own copy beside its agent.yaml: the profile is self-contained as well as immutable.
    if agent.get("prompt_file"):
        source = Path(agent["prompt_file"])
        shutil.copyfile(source, point_dir / source.name)
        agent["prompt_file"] = source.name


def _apply_world(suite: Path, values: dict[str, Any], scenarios: list[str] | None) -> None:
    for path in sorted(suite.rglob("*.yaml")):
        if path.name in ("suite.yaml", "tools.yaml"):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if scenarios is not None and data.get("id") not in scenarios:
            path.unlink()
            continue
        if "noise" in values:
            data["noise"] = values["noise"]
            path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    if "stub_error_rate" in values and (suite / "tools.yaml").exists():
        lib = yaml.safe_load((suite / "tools.yaml").read_text(encoding="utf-8"))
        for body in lib.get("tools", {}).values():
            body["errors"] = {"rate": values["stub_error_rate"], "kind": "server_error"}
        (suite / "tools.yaml").write_text(yaml.safe_dump(lib, sort_keys=False), encoding="utf-8")


def point_measurements(stores: Stores, run_id: str) -> tuple[list[ResultRow], list[float], int]:
    """A finished point's rows, latency per turn of each conversation, and total turns."""
    rows = result_rows(stores, run_id)
    latencies, turns = [], 0
    for rec in stores.repo.list_conversations(run_id):
        conv = load_conversation(stores, run_id, rec.conversation_id)
        n = max(1, len(conv.turns))
        turns += len(conv.turns)
        latencies.append(conv.clock_ms / n)
    return rows, latencies, turns


def planned_conversations(sweep: LoadedSweep) -> tuple[int, int]:
    """(conversations per point, default utterances per conversation) from the suite and seeds."""
    suite = load_suite(sweep.suite_path)
    chosen = [s for s in suite.scenarios if sweep.spec.scenarios is None or s.id in sweep.spec.scenarios]
    if sweep.spec.scenarios is not None:
        missing = sorted(set(sweep.spec.scenarios) - {s.id for s in chosen})
        if missing:
            raise ValueError(f"{sweep.path}: scenarios: unknown scenario id(s) {', '.join(missing)}")
    turns = sweep.spec.turns_estimate or max(1, round(sum(2 * s.max_turns for s in chosen) / max(1, len(chosen))))
    return len(chosen) * len(sweep.spec.seeds), turns


def point_cost(stores: Stores, run_id: str) -> float | None:
    """Estimated cost of a point's run from the provider usage ledgers (None when nothing priced)."""
    from polygon_core.adapters.providers import run_usage

    usage = run_usage(stores.artifacts, run_id)
    return usage["cost_usd"] if usage.get("roles") else None


def top_matrix(stores: Stores, points: list[tuple[str, str]]) -> list[Any]:
    """The scenario matrix (ordered by spread) over the given (label, run id) points."""
    from polygon_core.compare import scenario_matrix

    return scenario_matrix({label: result_rows(stores, run_id) for label, run_id in points})
