"""Layering: polygon_core outside its adapters imports no SDK, database or orchestration package."""

from __future__ import annotations

import ast
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
