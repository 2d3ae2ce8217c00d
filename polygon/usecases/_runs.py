"""Creating runs, and the manifest that lets any step (replay, rescore, resume) find their inputs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from polygon_core import content_hash
from polygon_core.adapters.provenance import DEFAULT_GROUPS, current_provenance
from polygon_core.models import LineConditions, Run

from ._call_plan import LineRequest, conditions_label, line_summary
from ._common import FileCaches, Stores, agent_identity, agent_label


def manifest_key(run_id: str) -> str:
    """Where a run's manifest lives in the artifact store."""
    return f"runs/{run_id}/manifest.json"


def create_run(stores: Stores, run: Run, *, suite_path: str | None = None,
               agent_path: str | None = None, repeats: int = 1, probes_path: str | None = None,
               line: LineRequest | None = None, scenarios: Sequence[str] | None = None) -> Run:
    """Record a run before any conversation starts (kept as-is when resuming).

    A local artifact store is first cleared of temporary files that killed writes left behind.

    The run records its provenance (`current_provenance`: Polygon's and its packages' versions,
    the formats it writes); a resumed run keeps the provenance it was created with.

    The manifest records the suite and agent files the run was made from, and the judge's repeats
    and the probe library (`resolve_probes`: `probes_path`, else the suite's), so one conversation
    can be replayed, re-judged or resumed later without the caller repeating them (`run_settings`);
    and the parts its agent version hashes (`agent_version_parts`: prompt, settings, tools, a Python
    agent's modules and packages), so `show` says what the version is and a refused replay names
    the part that changed. Repeats and the probe library are validated here, once, before any
    conversation.

    It also records the line the run was asked for (`line`: `--channel`, `--conditions`,
    `--stt-model`, under `channel`, `conditions` and `stt_model`; null when not asked), which
    `call_plan` resolves per scenario, and `line`, that line resolved over the run's scenarios
    (`scenarios`; None: the suite's) for `show` (`line_summary`).
    """
    sweep = getattr(stores.artifacts, "sweep_temporaries", None)
    if sweep is not None:  # a local store: clear what a killed process left half-written
        sweep()
    existing = stores.repo.get_run(run.id, exact=True)
    if existing is not None:
        if existing.status in ("failed", "interrupted"):  # resumed: running again
            stores.repo.set_run_status(existing.id, "running")
            existing = existing.model_copy(update={"status": "running"})
        return existing
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    probes_path = resolve_probes(probes_path, suite_path, caches=stores.caches)
    manifest: dict[str, Any] = {"run_id": run.id, "suite_path": suite_path, "agent_path": agent_path,
                                "seeds": run.seeds, "rubric_version": run.rubric_version, "models": run.models,
                                "repeats": repeats, "probes_path": probes_path,
                                **(line or LineRequest()).manifest_fields()}
    if suite_path and Path(suite_path).is_dir():
        agent = stores.caches.agent(agent_path)[0] if agent_path else None
        manifest["line"] = line_summary(stores.caches.suite(suite_path), line or LineRequest(), scenarios, agent)
    if suite_path and agent_path:
        from ._versions import MANIFEST_KEY, run_parts

        parts = run_parts(agent_path, suite_path, run, caches=stores.caches)
        if parts is not None:
            manifest[MANIFEST_KEY] = [part.model_dump(mode="json", exclude_none=True) for part in parts]
    stores.artifacts.put_text(manifest_key(run.id), json.dumps(manifest, indent=2, sort_keys=True))
    # Where the run is created (the worker of its create-run task): the versions its numbers come from.
    # A run with calls also records its speech engines' packages (eSpeak, faster-whisper, the models).
    calls = bool((manifest.get("line") or {}).get("channels", {}).get("voice"))
    groups = (*DEFAULT_GROUPS, "speech") if calls else DEFAULT_GROUPS
    return stores.repo.save_run(run.model_copy(update={"provenance": run.provenance or current_provenance(groups)}))


@dataclass(frozen=True)
class RunSettings:
    """Everything a run's steps need, read from the stored run and its manifest (by run id).

    After `create_run` this is the one carrier of a run's rubric version, seeds, models, judge
    repeats and probe library: a task given the run id reads them here rather than from its own
    arguments. Runs made before repeats and probes were recorded read as 1 and the bundled library.
    """

    run: Run
    suite_path: str | None
    agent_path: str | None
    repeats: int
    probes_path: str | None

    @property
    def rubric_version(self) -> str:
        """The rubric version the run is judged under."""
        return self.run.rubric_version


def _settings_memo(stores: Stores) -> dict[str, RunSettings]:
    # Kept in the stores' own caches: two stores never share it, and nothing global needs a reset.
    memo: dict[str, RunSettings] = stores.caches.memo.setdefault("run_settings", {})
    return memo


def cached_run_settings(stores: Stores, run_id: str) -> RunSettings | None:
    """`run_settings` when these stores have read them already (no I/O), else None."""
    return _settings_memo(stores).get(run_id)


def run_settings(stores: Stores, run_id: str) -> RunSettings:
    """The stored run's settings (`RunSettings`); read once per `Stores`, since they never change
    after the run is created (a resumed run keeps its own)."""
    found = cached_run_settings(stores, run_id)
    if found is not None:
        return found
    run = stores.repo.get_run(run_id, exact=True)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored; create it before its conversations")
    manifest = run_manifest(stores, run_id)
    found = RunSettings(run=run, suite_path=manifest.get("suite_path"), agent_path=manifest.get("agent_path"),
                        repeats=int(manifest.get("repeats", 1)), probes_path=manifest.get("probes_path"))
    memo = _settings_memo(stores)
    if len(memo) >= 256:
        memo.clear()
    memo[run_id] = found
    return found


def run_manifest(stores: Stores, run_id: str) -> dict[str, Any]:
    """The manifest of a stored run ({} for runs made without one, e.g. imported calls)."""
    key = manifest_key(run_id)
    if not stores.artifacts.exists(key):
        return {}
    return json.loads(stores.artifacts.get_text(key))


def resolve_rubric(flag: str | None, suite_config: Any = None, settings: Any = None) -> str:
    """A run's rubric version, in one precedence: `--rubric`, else the suite's `rubric` (suite.yaml,
    when it sets one), else `POLYGON_RUBRIC` (when set), else `DEFAULT_RUBRIC_VERSION` (v1).
    Validated here, once: an unknown version names where it came from."""
    from polygon_core.scoring import DEFAULT_RUBRIC_VERSION, get_rubric

    if flag:
        value, source = flag, "--rubric"
    elif suite_config is not None and "rubric" in suite_config.model_fields_set:
        value, source = suite_config.rubric, "suite.yaml `rubric`"
    elif settings is not None and "rubric" in settings.model_fields_set:
        value, source = settings.rubric, "POLYGON_RUBRIC"
    else:
        value, source = DEFAULT_RUBRIC_VERSION, "the default"
    try:
        get_rubric(value)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    return str(value)


def resolve_probes(flag: str | None, suite_path: str | None, *, caches: FileCaches | None = None) -> str | None:
    """A run's probe library file, in one precedence: `--probes`, else the suite's `probes`
    (suite.yaml, relative to the suite folder), else None (the bundled library). The file is
    loaded here, once, so a bad library fails before anything runs; an error names where it came from."""
    caches = caches or FileCaches()
    if flag:
        path, source = flag, "--probes"
    else:
        suite = caches.suite(suite_path) if suite_path and Path(suite_path).is_dir() else None
        if suite is None or suite.config.probes is None:
            return None
        path, source = str((suite.path / suite.config.probes).resolve()), "suite.yaml `probes`"
    try:
        caches.probes(path)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    return path


ROLES = ("agent", "caller", "judge", "probe")


def role_models(settings: Any, suite_config: Any, agent_config: Any,
                flags: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """Each role's model: command line, then suite config (agent config for the agent), then settings.

    Every name is checked (and every provider's key) before anything runs; an error names the role and
    where its model came from.
    """
    from polygon_core.adapters.providers import make_chat_model, parse_model_name

    from ._dispatch import FITTED_PREFIX

    flags = flags or {}
    roles: dict[str, str] = {}
    for role in ROLES:
        if role == "agent":
            configured = agent_config.model if agent_config.model != "offline" else None
        else:
            configured = getattr(suite_config, f"{role}_model", None)
        name = flags.get(role) or configured or getattr(settings, f"{role}_model")
        source = (f"--{role}-model" if flags.get(role) else
                  ("agent config `model`" if role == "agent" else f"suite.yaml `{role}_model`") if configured
                  else f"POLYGON_{role.upper()}_MODEL={name!r}")
        try:
            if name.startswith(FITTED_PREFIX):
                roles[role] = _fitted_role(role, name, settings)
                continue
            spec = parse_model_name(name)
            if spec.style == "compact" and role not in ("judge", "probe"):
                raise ValueError(f"{name!r} names the compact judge format: it can judge and answer "
                                 f"probes, not play the {role}")
            if spec.provider != "offline":
                make_chat_model(name, settings)
        except ValueError as exc:
            raise ValueError(f"{role} model ({source}): {exc}") from None
        roles[role] = spec.name
    return roles


def _fitted_role(role: str, name: str, settings: Any) -> str:
    """A fitted judge (`fitted:<name>@<hash>`) may judge; it must be stored; it answers no probes."""
    if role != "judge":
        raise ValueError(f"{name!r} is a fitted judge: it can judge, not play the {role}")
    from polygon_core.adapters.stores import open_stores

    from ._dispatch import load_fitted_judge

    load_fitted_judge(open_stores(settings), name)
    return name


def mark_unfinished(stores: Stores, run_ids: Iterable[str], status: str) -> list[str]:
    """Mark each of `run_ids` still `running` as `status` (`interrupted` or `failed`): its flow run
    ended without finishing it. Complete runs are left alone; `create_run` sets a resumed one
    running again. Returns the ids marked."""
    marked = []
    for run_id in run_ids:
        run = stores.repo.get_run(run_id, exact=True)
        if run is not None and run.status == "running":
            stores.repo.set_run_status(run_id, status)
            marked.append(run_id)
    return marked


_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def check_run_id(run_id: str) -> None:
    """A run id names a folder in the artifact store and a Prefect artifact: ASCII letters, digits,
    `.`, `_` and `-`, starting with a letter or digit, at most 200 characters; else a ValueError."""
    if not _RUN_ID.fullmatch(run_id):
        raise ValueError(f"run id {run_id!r}: expected ASCII letters, digits, '.', '_' and '-' (starting with a "
                         "letter or digit, at most 200 characters)")


def new_run(agent_path: str, suite_path: str, *, seeds: Sequence[int] | None = None,
            rubric: str | None = None, run_id: str | None = None, roles: Mapping[str, str] | None = None,
            settings: Any = None, caches: FileCaches | None = None) -> Run:
    """The Run record of one agent on one suite (not stored: `create_run` stores it).

    `roles` are the resolved role models (`role_models`); without them they are resolved here from
    the suite config, the agent config and `settings`. Another agent model is another agent version,
    since the model is part of what is under test. The clock is read here, at the edge. `caches`
    (a `Stores`' own) saves parsing files read before.
    """
    from polygon_core.adapters.settings import load_settings
    from polygon_core.files import load_agent

    from ._versions import run_agent_version

    if seeds is not None and (not seeds or len(set(seeds)) != len(seeds)):  # as suite.yaml's are checked
        raise ValueError(f"a run's seeds must be one or more, each once; got {list(seeds)}")
    if run_id is not None:
        check_run_id(run_id)
    caches = caches or FileCaches()
    config, _prompt, version = agent_identity(agent_path, suite_path, caches=caches)
    suite = caches.suite(suite_path)
    settings = settings or load_settings()
    rubric_version = resolve_rubric(rubric, suite.config, settings)
    if roles is None:
        roles = role_models(settings, suite.config, load_agent(agent_path).config)
    agent_model = roles.get("agent") or config.model
    version = run_agent_version(config, version, agent_model)
    now = datetime.now(UTC)
    rid = run_id or f"run-{now:%Y%m%d-%H%M%S}-{content_hash([agent_path, version, now.isoformat()], 6)}"
    judge, probe = roles.get("judge", "offline"), roles.get("probe", "offline")
    models = {"agent": agent_label(config, agent_model),
              "caller": roles.get("caller", "offline"),
              "judge": "offline-heuristic" if judge == "offline" else judge,
              "probe": "offline-heuristic" if probe == "offline" else probe}
    return Run(id=rid, suite=suite.name, agent_name=config.name, agent_version=version,
               rubric_version=rubric_version,
               seeds=list(seeds) if seeds is not None else list(suite.config.seeds),
               models=models, created_at=now.isoformat())


def resumed_run(stores: Stores, fresh: Run, *, asked: Iterable[str] = (), line: LineRequest | None = None) -> Run:
    """The stored run of `fresh.id` when there is one (a resumed run keeps the settings it was
    created with), else `fresh`.

    `asked` names what the command line set explicitly (`seeds`, `rubric_version`, `agent_version`,
    or a role as `models.<role>`), and `line` the line it asked for (`--channel`, `--conditions`,
    `--stt-model`): one of those that differs from the stored run is refused (ValueError, one line
    naming the run and the setting), never applied to part of it.
    """
    stored = stores.repo.get_run(fresh.id, exact=True)
    if stored is None:
        return fresh
    if line is not None:
        _same_line(stored.id, LineRequest.from_manifest(run_manifest(stores, stored.id)), line)
    for name in asked:
        kind, _, role = name.partition(".")
        have = stored.models.get(role) if role else getattr(stored, kind)
        want = fresh.models.get(role) if role else getattr(fresh, kind)
        if have != want:
            label = f"{role} model" if role else kind.replace("_", " ")
            raise ValueError(f"run {stored.id} was created with {label} {have}, not {want}: a resumed run "
                             "keeps its own settings (start a new run for other ones)")
    return stored


def _same_line(run_id: str, stored: LineRequest, asked: LineRequest) -> None:
    """Refuse a line setting the command line asked for that the stored run was not created with."""
    for name, label in (("channel", "channel"), ("conditions", "conditions"), ("stt_model", "stt model")):
        want, have = getattr(asked, name), getattr(stored, name)
        if want is None or want == have:
            continue

        def shown(value: Any) -> str:
            if value is None:
                return "from its files"
            return conditions_label(value) if isinstance(value, LineConditions) else str(value)

        raise ValueError(f"run {run_id} was created with {label} {shown(have)}, not {shown(want)}: a resumed run "
                         "keeps its own settings (start a new run for other ones)")


def run_concurrency(flag: int | None, suite_path: str | None, settings: Any, *,
                    caches: FileCaches | None = None) -> int:
    """How many conversations of a run are in flight at once: `--concurrency`, else the suite's
    `concurrency` (suite.yaml), else `POLYGON_CONCURRENCY` (default 8)."""
    if flag is not None:
        if flag < 1:
            raise ValueError(f"--concurrency must be at least 1, got {flag}")
        return flag
    suite = (caches or FileCaches()).suite(suite_path).config.concurrency if suite_path else None
    return int(suite or settings.concurrency)


def execution_key(run_id: str) -> str:
    """Where how a run was executed (concurrency, peak in flight) lives in the artifact store."""
    return f"runs/{run_id}/execution.json"


def model_limits_below(settings: Any, models: Mapping[str, str], concurrency: int) -> dict[str, int]:
    """The run's provider models whose in-process limit (`POLYGON_MODEL_CONCURRENCY` or
    `POLYGON_MODEL_LIMITS`) holds fewer requests in flight than `concurrency` conversations."""
    from polygon_core.adapters.providers import parse_model_name

    below: dict[str, int] = {}
    for name in sorted(set(models.values())):
        try:
            spec = parse_model_name(name)
        except ValueError:
            continue  # offline-heuristic, callable:…, fitted:… — no provider limit
        if spec.provider == "offline":
            continue
        limit = settings.model_limits.get(spec.short, {}).get("concurrency", settings.model_concurrency)
        if limit is not None and limit < concurrency:
            below[spec.short] = int(limit)
    return below


def record_execution(stores: Stores, run_id: str, flight: Any, concurrency: int,
                     simulated: Sequence[bool]) -> str:
    """Store how a run's conversations were executed and return it as one line for the run's log.

    `flight` is `run_bounded`'s `InFlight`; `simulated` says, per conversation, whether it was run
    now (False: already stored). Nothing here changes a result: it is how the run went, not what
    it found.
    """
    run = stores.repo.get_run(run_id, exact=True)
    below = model_limits_below(stores.settings, run.models if run is not None else {}, concurrency)
    record = {"run_id": run_id, "concurrency": concurrency, "peak_in_flight": flight.peak,
              "conversations": len(simulated), "simulated": sum(simulated),
              "already_stored": len(simulated) - sum(simulated), "seconds": round(flight.seconds, 3),
              "model_limits_below_concurrency": below}
    stores.artifacts.put_text(execution_key(run_id), json.dumps(record, indent=2, sort_keys=True))
    line = (f"{record['conversations']} conversations ({record['simulated']} simulated now, "
            f"{record['already_stored']} already stored), peak {flight.peak} in flight of concurrency "
            f"{concurrency}, {flight.seconds:.1f} s")
    limits = "; ".join(f"{m} limited to {n} requests in flight" for m, n in below.items())
    return line + (f"; {limits} (POLYGON_MODEL_CONCURRENCY / POLYGON_MODEL_LIMITS)" if limits else "")


def run_execution(stores: Stores, run_id: str) -> dict[str, Any] | None:
    """What `record_execution` stored for a run (None for runs made before it, or imported)."""
    key = execution_key(run_id)
    return json.loads(stores.artifacts.get_text(key)) if stores.artifacts.exists(key) else None
