"""Layering: polygon_core outside its adapters imports no SDK, database or orchestration package."""

from __future__ import annotations

import ast
import inspect
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


def _absolute_imports(path: Path) -> set[str]:
    """Every module an import statement in `path` names, relative ones resolved against its package."""
    package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            module = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            names.update({module, *(f"{module}.{a.name}" for a in node.names)})
    return names


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
