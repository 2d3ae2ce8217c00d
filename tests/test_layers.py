"""Layering: polygon_core outside its adapters imports no SDK, database or orchestration package."""

from __future__ import annotations

import ast
import inspect
import itertools
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

FORBIDDEN = ("prefect", "sqlmodel", "sqlalchemy", "boto3", "botocore", "openai", "anthropic", "psycopg", "alembic")
CORE = REPO / "polygon_core"


def _core_files() -> list[Path]:
    return [p for p in CORE.rglob("*.py") if "adapters" not in p.relative_to(CORE).parts]


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and "adapters" in node.module.split("."):
            names.add("polygon_core.adapters")
    return names


def test_core_sources_import_nothing_forbidden() -> None:
    offenders = {str(p.relative_to(REPO)): sorted(_imported(p) & {*FORBIDDEN, "polygon_core.adapters"})
                 for p in _core_files()}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(_core_files()) > 30  # the scan really covered the package


def test_importing_core_loads_no_forbidden_module() -> None:
    modules = sorted({".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
                      for p in _core_files()})
    code = ("import importlib, sys, json\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            f"print(json.dumps(sorted({{n.split('.')[0] for n in sys.modules}} & set({list(FORBIDDEN)!r}))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _module_name(path: Path) -> str:
    """The dotted name `path` is imported as (`tasks/` and `flows/` are installed as `polygon.tasks`, `polygon.flows`)."""
    parts = path.relative_to(REPO).with_suffix("").parts
    if parts[0] in ("tasks", "flows"):
        parts = ("polygon", *parts)
    return ".".join(parts).removesuffix(".__init__")


def _import_sites(path: Path) -> list[tuple[str, int]]:
    """(name, line) for every module or name an import statement in `path` names, at any depth (a function's
    imports and `if TYPE_CHECKING:` ones included), relative ones resolved against its package."""
    module_name = _module_name(path)
    package = module_name if path.name == "__init__.py" else module_name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    sites: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            sites += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            module = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            sites += [(module, node.lineno), *((f"{module}.{a.name}", node.lineno) for a in node.names)]
    return sites


def _absolute_imports(path: Path) -> set[str]:
    """Every module an import statement in `path` names, relative ones resolved against its package."""
    return {name for name, _ in _import_sites(path)}


def _files(*roots: str) -> list[Path]:
    return [p for root in roots for p in (REPO / root).rglob("*.py") if "__pycache__" not in p.parts]


def test_the_domain_and_its_adapters_never_import_the_layers_above() -> None:
    # polygon_core (adapters included) is below the use cases: nothing in it may reach up.
    offenders = {str(p.relative_to(REPO)): sorted(n for n in _absolute_imports(p) if n.split(".")[0] == "polygon")
                 for p in _files("polygon_core")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_use_cases_import_no_front_end_task_or_flow() -> None:
    above = ("polygon.cli", "polygon.web", "polygon.tasks", "polygon.flows", "prefect")
    offenders = {str(p.relative_to(REPO)): sorted(n for n in _absolute_imports(p) if n.startswith(above))
                 for p in _files("polygon/usecases")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_front_ends_tasks_and_flows_call_only_the_use_cases_face() -> None:
    # `polygon.usecases` is the curated face; its private modules are not part of it.
    offenders = {str(p.relative_to(REPO)): sorted(n for n in _absolute_imports(p) if n.startswith("polygon.usecases._"))
                 for p in _files("polygon/cli", "polygon/web", "tasks", "flows")}
    assert {k: v for k, v in offenders.items() if v} == {}


def _polygon_variables_read(source: str) -> list[str]:
    """`POLYGON_*` names `source` reads from the environment: `os.environ[...]`, `os.environ.get(...)`,
    `os.getenv(...)` (or `environ`/`getenv` imported from os), and `"POLYGON_…" in os.environ`."""
    def is_environ(node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
            isinstance(node, ast.Name) and node.id == "environ")

    def polygon_literal(node: ast.expr | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("POLYGON_"):
            return node.value
        if isinstance(node, ast.JoinedStr) and node.values and polygon_literal(node.values[0]):
            return polygon_literal(node.values[0])
        return None

    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and is_environ(node.value):
            key = node.slice
        elif isinstance(node, ast.Call) and node.args and (
                (isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop", "setdefault")
                 and is_environ(node.func.value))
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "getenv")
                or (isinstance(node.func, ast.Name) and node.func.id == "getenv")):
            key = node.args[0]
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            key = node.left
        if (name := polygon_literal(key)) is not None:
            found.append(f"{name} (line {node.lineno})")
    return found


def test_only_the_settings_module_reads_polygon_variables() -> None:
    # adapters/settings.py says it is the only place POLYGON_* variables are read: hold it to that.
    settings = REPO / "polygon_core" / "adapters" / "settings.py"
    scanned = [p for p in _files("polygon_core", "polygon", "tasks", "flows") if p != settings]
    offenders = {str(p.relative_to(REPO)): found for p in scanned
                 if (found := _polygon_variables_read(p.read_text(encoding="utf-8")))}
    assert offenders == {}
    assert len(scanned) > 200  # the scan really covered the packages
    # ... and sees every way of reading one (and not a variable named at run time).
    reads = ("import os\nfrom os import environ, getenv\n"
             "a = os.environ['POLYGON_A']\nb = os.environ.get('POLYGON_B', '')\nc = os.getenv('POLYGON_C')\n"
             "d = environ.get(f'POLYGON_{x}_D')\ne = getenv('POLYGON_E')\nf = 'POLYGON_F' in os.environ\n"
             "g = os.environ.get(name)\nh = os.environ.get('OPENAI_API_KEY')\n")
    assert sorted(_polygon_variables_read(reads)) == [
        "POLYGON_ (line 6)", "POLYGON_A (line 3)", "POLYGON_B (line 4)", "POLYGON_C (line 5)",
        "POLYGON_E (line 7)", "POLYGON_F (line 8)"]


def _parameters(path: str, function: str) -> list[str]:
    """The parameter names of `function` as defined in `path` (read from the source, not imported)."""
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    (found,) = [n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef | ast.FunctionDef) and n.name == function]
    return [a.arg for a in (*found.args.posonlyargs, *found.args.args, *found.args.kwonlyargs)] + (
        ["*" + found.args.vararg.arg] if found.args.vararg else []) + (
        ["**" + found.args.kwarg.arg] if found.args.kwarg else [])


def test_a_conversation_is_evaluated_from_its_run_id_scenario_seed_and_stages_alone() -> None:
    # One carrier of run settings (docs/design.md, "Run settings: one precedence"): the evaluate task
    # and its use case take no file path, rubric, repeats or probe library beside the run id.
    assert _parameters("tasks/_evaluate.py", "evaluate_conversation_task") == ["run_id", "scenario_id", "seed", "stages"]
    assert _parameters("polygon/usecases/_evaluate.py", "evaluate_conversation") == [
        "stores", "run_id", "scenario_id", "seed", "stages"]
    from polygon.tasks import evaluate_conversation_task  # the registered task is that function

    assert list(inspect.signature(evaluate_conversation_task.fn).parameters) == ["run_id", "scenario_id", "seed",
                                                                                "stages"]


def _core_node(name: str) -> str | None:
    """The node of polygon_core's package graph that a dotted name belongs to: a package
    (`polygon_core/judging/...`: `judging`; all of `adapters` is one, the edges' layer) or a top-level
    module (`loops`, `_hashing`); a name the root package exports is the root's (`polygon_core`)."""
    parts = name.split(".")
    if parts[0] != "polygon_core":
        return None
    if len(parts) > 1 and ((CORE / parts[1]).is_dir() or (CORE / f"{parts[1]}.py").is_file()):
        return parts[1]
    return "polygon_core"


def _core_graph() -> dict[str, dict[str, list[str]]]:
    """node -> imported node -> the import sites (`file:line name`) that make the edge."""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in _files("polygon_core"):
        source = _core_node(_module_name(path))
        assert source is not None
        edges = graph.setdefault(source, {})
        for name, line in _import_sites(path):
            target = _core_node(name)
            if target is not None and target != source:
                edges.setdefault(target, []).append(f"{path.relative_to(REPO)}:{line} {name}")
    return graph


def _a_cycle(graph: dict[str, dict[str, list[str]]]) -> list[str]:
    """One cycle of `graph` as its nodes, the first repeated at the end; [] when there is none."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" after

    def visit(path: list[str]) -> list[str]:  # path: the open nodes, the one visited last
        state[path[-1]] = "open"
        for target in sorted(graph.get(path[-1], {})):
            if state.get(target) == "open":
                return [*path[path.index(target):], target]
            if target not in state and (found := visit([*path, target])):
                return found
        state[path[-1]] = "done"
        return []

    for start in sorted(graph):
        if start not in state and (found := visit([start])):
            return found
    return []


def test_a_cycle_is_found_and_named() -> None:
    # The checker itself: a cycle two steps long is reported as its nodes in order, none is [].
    sites = {"x": {"y": ["a.py:1 y"]}, "y": {"z": ["b.py:2 z"]}, "z": {"x": ["c.py:3 x"]}}
    assert _a_cycle(sites) == ["x", "y", "z", "x"]
    assert _a_cycle({"x": {"y": []}, "y": {}}) == []


def test_polygon_core_packages_import_one_another_without_a_cycle() -> None:
    # docs/design.md, "Layers": the packages of the domain form a graph without a circle, every import
    # counted (a function-level or TYPE_CHECKING import is still a dependency), adapters one node above.
    graph = _core_graph()
    cycle = _a_cycle(graph)
    where = [f"{a} -> {b}: {graph[a][b][0]}" for a, b in itertools.pairwise(cycle)]
    assert cycle == [], "a cycle between polygon_core packages: " + " -> ".join(cycle) + "\n" + "\n".join(where)
    # The graph really covers the packages, their function-level imports included.
    assert {"documents", "files", "probes", "judging", "adapters", "loops"} <= set(graph)
    assert "polygon_core/files/_check.py" in " ".join(graph["files"]["sweeps"])
    assert "documents" in graph["probes"] and "files" not in graph["probes"]


def _owner(name: str) -> str | None:
    """The package a private module or name belongs to (`polygon_core.documents._yaml`: `polygon_core.documents`)."""
    parts = name.split(".")
    if parts[0] not in ("polygon", "polygon_core"):
        return None
    private = next((i for i, part in enumerate(parts) if part.startswith("_") and not part.startswith("__")), None)
    return ".".join(parts[:private]) if private is not None else None


def test_no_module_imports_another_packages_private_module() -> None:
    # `polygon_core.x._y` is `polygon_core.x`'s own: anyone outside imports what `polygon_core.x` exports.
    offenders: dict[str, list[str]] = {}
    for path in _files("polygon_core", "polygon", "tasks", "flows"):
        me = _module_name(path)
        for name, line in _import_sites(path):
            owner = _owner(name)
            if owner is not None and me != owner and not me.startswith(f"{owner}."):
                offenders.setdefault(str(path.relative_to(REPO)), []).append(f"{line}: {name}")
    assert offenders == {}
    assert _owner("polygon_core.documents._yaml.read_yaml") == "polygon_core.documents"
    assert _owner("polygon_core._hashing") == "polygon_core" and _owner("polygon_core.files.read_yaml") is None

# -- the door: front ends, tasks and flows reach storage only through `polygon.usecases` ---------

ABOVE = ("polygon/cli", "polygon/web", "tasks", "flows")

#: All that a front end, task or flow may import from `polygon_core.adapters`: settings, and the
#: named errors it turns into one line (CLI, exit 2) or a status (web). Everything else goes
#: through `polygon.usecases`.
ADAPTER_NAMES_ABOVE: dict[str, str] = {
    "polygon_core.adapters.settings.PolygonSettings": "the settings the web app and server are built from",
    "polygon_core.adapters.settings.load_settings": "settings are read in the process that runs (the edge)",
    "polygon_core.adapters.settings.prefect_startup_variable": "the CLI's Prefect start-up wait (a POLYGON_ variable)",
    "polygon_core.adapters.settings.runner_variables": "the task runner a flow picks (POLYGON_TASK_RUNNER, DASK_*)",
    "polygon_core.adapters.agents.AgentConfigError": "a callable agent that cannot be loaded: one line, exit 2",
    "polygon_core.adapters.artifacts.ArtifactNotFoundError": "a transcript missing from the artifact store: 404",
    "polygon_core.adapters.artifacts.ArtifactStoreError": "an artifact store that does not answer: one line",
    "polygon_core.adapters.storage.DatabaseNotReadyError": "a database not migrated to head: one line",
}
#: Attributes that are storage itself: a `Stores`' repository and artifact store, an engine.
STORAGE_ATTRIBUTES = ("repo", "artifacts", "engine")


def _door_offences(source: str) -> list[str]:
    """What `source` takes from the adapters beyond `ADAPTER_NAMES_ABOVE`, and its reaches into
    storage, in source order."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names
                      if a.name.startswith("polygon_core.adapters")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "polygon_core" and any(a.name == "adapters" for a in node.names):
                found.append((node.lineno, "polygon_core.adapters"))
            elif node.module.startswith("polygon_core.adapters"):
                found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names
                          if f"{node.module}.{a.name}" not in ADAPTER_NAMES_ABOVE]
        elif isinstance(node, ast.Attribute) and node.attr in STORAGE_ATTRIBUTES:
            found.append((node.lineno, f".{node.attr}"))
    return [f"{text} (line {line})" for line, text in sorted(found)]


def test_front_ends_tasks_and_flows_reach_storage_only_through_the_use_cases() -> None:
    scanned = _files(*ABOVE)
    offenders = {str(p.relative_to(REPO)): found for p in scanned
                 if (found := _door_offences(p.read_text(encoding="utf-8")))}
    assert offenders == {}
    assert len(scanned) > 60  # the scan really covered the four folders
    # ... and it sees each way through the wall.
    sample = ("from polygon_core.adapters.storage import Repository, DatabaseNotReadyError\n"
              "import polygon_core.adapters.stores\nfrom polygon_core import adapters\n"
              "from polygon_core.adapters.settings import load_settings\n"
              "x = stores.repo.get_run('r')\ny = stores.artifacts\nz = repo.engine\n")
    assert _door_offences(sample) == [
        "polygon_core.adapters.storage.Repository (line 1)", "import polygon_core.adapters.stores (line 2)",
        "polygon_core.adapters (line 3)", ".repo (line 5)", ".artifacts (line 6)", ".engine (line 7)"]


#: The adapters' modules, each an edge: every new one is added here on purpose, named with its edge.
ADAPTER_MODULES: dict[str, str] = {
    "agents": "the agent under test, behind its Protocol (callable, HTTP, model)",
    "artifacts": "artifact stores (local, S3)",
    "providers": "model providers (SDKs, batch APIs, prices, usage ledgers)",
    "storage": "SQL storage (tables, migrations, repository, ledgers)",
    "settings.py": "settings: the only reader of the environment",
    "stores.py": "the bundle of stores a use case works on",
    "file_cache.py": "loaded files, re-read when they change",
    "callers.py": "the model caller (a ChatModel playing the persona)",
    "persona_store.py": "personas as YAML files in the artifact store",
    "analysis_store.py": "prompt analyses in the artifact store",
    "fitted_judges.py": "fitted judges' artifacts in the artifact store",
    "provenance.py": "the installed versions of the packages a run used (importlib.metadata)",
    "speech": "speech engines: synthesis, recognition, voice activity detection (lazy imports)",
    "stub_server": "a voice bot's tools: the conversation's stubs served over HTTP and MCP on loopback",
    "transports": "the line to a voice bot: Twilio Media Streams over a WebSocket, paced frames (lazy imports)",
    "voice_bot": "a deployed voice bot on a real-time line: the engine's agent and line in one call (lazy imports)",
}
#: Use cases that once lived in adapters: they are `polygon.usecases`' now, and only theirs.
MOVED_USE_CASES = ("generate_for_agent", "store_generation", "GenerationReport", "agent_prompt",
                   "analyze_and_store", "judge_model_for", "fit_and_store")


def _defined(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def test_adapters_hold_edges_and_no_use_case() -> None:
    adapters = CORE / "adapters"
    assert {p.name for p in adapters.iterdir() if p.name not in ("__init__.py", "__pycache__")} == set(ADAPTER_MODULES)
    defined_below = {str(p.relative_to(REPO)): sorted(_defined(p) & set(MOVED_USE_CASES)) for p in _files("polygon_core")}
    assert {k: v for k, v in defined_below.items() if v} == {}
    from polygon import usecases

    assert [n for n in MOVED_USE_CASES if n not in ("agent_prompt", "judge_model_for")] == [
        n for n in MOVED_USE_CASES if n in usecases.__all__]


# -- tasks: each wraps one use case ----------------------------------------------------------------

#: What a task body may call besides its one use case: the process's stores, Prefect's logger and
#: artifacts (publishing is the task's job: the use cases import no Prefect), the pure renderers of
#: `polygon_core.reports`, and builtins. A method call on a value (`.model_dump()`, `logger.info`)
#: is the value's own; the storage attributes are refused by the door test above.
TASK_CALLEES_FROM = ("prefect", "polygon_core.reports", "dataclasses")
TASK_HELPERS = {"task_stores"}


def _task_calls(source: str) -> dict[str, tuple[int, list[str]]]:
    """Per `@task` function: how many `polygon.usecases` calls it makes, and its calls of anything
    else that is neither allowed (`TASK_CALLEES_FROM`, `TASK_HELPERS`, builtins) nor a method."""
    import builtins

    tree = ast.parse(source)
    doors, allowed = set(), set(TASK_HELPERS) | set(dir(builtins))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "polygon":
            doors |= {a.asname or a.name for a in node.names if a.name == "usecases"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(TASK_CALLEES_FROM):
            allowed |= {a.asname or a.name for a in node.names}
    out: dict[str, tuple[int, list[str]]] = {}
    for fn in tree.body:
        if not (isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                ast.unparse(d).split("(")[0] == "task" for d in fn.decorator_list)):
            continue
        uses, other = 0, []
        for call in (n for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            f = call.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in doors:
                uses += 1
            elif isinstance(f, ast.Name) and f.id not in allowed:
                other.append(f.id)
        out[fn.name] = (uses, other)
    return out


def test_each_task_makes_one_use_case_call() -> None:
    # A task's body calls exactly one use case and nothing else of Polygon's: the work is the use
    # case's, so the CLI and web run the same.
    found = {f"{p.name}:{name}": calls for p in _files("tasks")
             for name, calls in _task_calls(p.read_text(encoding="utf-8")).items()}
    assert {k: v for k, v in found.items() if v != (1, [])} == {}
    from polygon import tasks

    assert sorted(k.split(":")[1] for k in found) == sorted(tasks.__all__)  # every task was seen
    sample = ("from polygon import usecases as u\nfrom polygon_core.sweeps import rank\n"
              "from polygon_core.reports import md_text\n@task(name='t')\n"
              "def t(x):\n    rows = u.a(x)\n    u.b(rows)\n    return md_text(rank(len(rows)))\n")
    assert _task_calls(sample) == {"t": (2, ["rank"])}
