"""A new import format is one module: dropped into polygon_core/imports/, or installed elsewhere and
named by a `polygon.import_formats` entry point; either is found on the first lookup, with no list
to add it to."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import polygon_core.imports as imports_package
from polygon_core.imports import FORMATS, ImportedCall, format_for, get_format, import_format, read_calls
from polygon_core.imports._format import REGISTRY
from tests.conftest import REPO


def docs_example(doc: str, first_line: str) -> str:
    """The ```python block of `doc` that starts with `first_line` (so the docs' example is what runs)."""
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}") + len("```python\n")
    return text[start:text.index("```\n", start)]

# The worked example of docs/design.md ("An import format"), the same as docs/import-formats.md's.
TINY_MODULE = docs_example("design.md", "# polygon_core/imports/_tiny.py")
CALL = {"ref": 7, "steps": [{"who": "customer", "said": "balance?"}, {"tool": {"id": "t1", "name": "balance"}},
                            {"output": {"id": "t1", "value": 12}}, {"who": "bot", "said": "12 euros"}]}
BUILT_INS = ("csv", "openai", "polygon", "retell", "vapi")


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry as before its first lookup (the built-ins' modules stay imported, and registered)."""
    before = set(sys.modules)
    monkeypatch.setattr(REGISTRY, "entries", dict(REGISTRY.loaded()))
    monkeypatch.setattr(REGISTRY, "_builtins_loaded", False)
    yield
    for name in set(sys.modules) - before:
        if name.endswith(("_tiny", "acme_format")):
            del sys.modules[name]
    if hasattr(imports_package, "_tiny"):
        delattr(imports_package, "_tiny")


def _read(fmt: str) -> list[tuple[str, list[Any]]]:
    text = json.dumps(CALL) + "\n"
    found = []
    for item in read_calls(io.StringIO(text), fmt, name="calls-tiny.jsonl"):
        assert isinstance(item, ImportedCall)
        found.append((item.external_id, [(t.speaker, t.text, [(c.name, c.result) for c in t.tool_calls])
                                         for t in item.turns]))
    return found


def test_both_documents_show_the_same_example() -> None:
    assert docs_example("import-formats.md", "# polygon_core/imports/_tiny.py") == TINY_MODULE


def test_a_module_dropped_into_the_package_is_a_format(fresh_registry: None, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "_tiny.py").write_text(TINY_MODULE, encoding="utf-8")
    # As if the file were in polygon_core/imports/ (the tree itself stays untouched).
    monkeypatch.setattr(imports_package, "__path__", [*imports_package.__path__, str(tmp_path)])
    assert tuple(FORMATS) == (*BUILT_INS, "tiny")
    assert format_for("exports/calls-tiny.jsonl") == "tiny"
    assert _read("tiny") == [("7", [("caller", "balance?", []), ("agent", "12 euros", [("balance", 12)])])]
    with pytest.raises(ValueError, match="import format 'csv' is registered twice"):
        import_format("csv", "again")(get_format("tiny").parse)


def test_an_entry_point_adds_a_format_kept_outside_polygon(fresh_registry: None, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "acme_format.py").write_text(TINY_MODULE.replace("from ._", "from polygon_core.imports._"),
                                             encoding="utf-8")
    info = tmp_path / "acme_format-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-format\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[polygon.import_formats]\ntiny = acme_format\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert get_format("tiny").description == "Tiny call logs: {ref, steps: [...]}, JSON Lines"
    assert _read("tiny")[0][0] == "7"
    assert tuple(FORMATS) == (*BUILT_INS, "tiny")


def test_in_a_fresh_process_the_built_ins_lead_whatever_a_new_module_is_called(tmp_path: Path) -> None:
    # `_tiny` sorts between `_retell` and `_vapi`: still after every built-in.
    (tmp_path / "_tiny.py").write_text(TINY_MODULE, encoding="utf-8")
    code = ("import sys\nimport polygon_core.imports as package\n"
            "package.__path__.append(sys.argv[1])\n"
            "from polygon_core.imports import FORMATS\nprint(','.join(FORMATS))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ",".join((*BUILT_INS, "tiny"))


def test_registering_a_format_does_not_load_the_built_ins(tmp_path: Path) -> None:
    # A plugin imported on its own registers while its module is being imported: loading the
    # built-ins from there would take the registry's lock under the import lock.
    (tmp_path / "acme_format.py").write_text(TINY_MODULE.replace("from ._", "from polygon_core.imports._"),
                                             encoding="utf-8")
    code = ("import sys\nsys.path.insert(0, sys.argv[1])\n"
            "from polygon_core.imports._format import REGISTRY\nimport acme_format\n"
            "print(REGISTRY._builtins_loaded, list(REGISTRY.entries))\n"
            "print(','.join(sorted(REGISTRY.names())))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines() == ["False ['tiny']", "csv,openai,polygon,retell,tiny,vapi"]
