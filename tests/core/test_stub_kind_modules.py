"""A new stub kind is one module: a `_tool_kind*` module of polygon_core/models/ is a member of the
`ToolDef` union. The union is built when the package is imported, so this runs in a fresh
interpreter whose `polygon_core.models` also searches a temporary folder (the tree stays untouched)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

SCRIPT = '''
import importlib.util, json, sys
spec = importlib.util.find_spec("polygon_core.models")
spec.submodule_search_locations.append(sys.argv[1])  # as if the module were in polygon_core/models/
package = importlib.util.module_from_spec(spec)
sys.modules["polygon_core.models"] = package
spec.loader.exec_module(package)

from polygon_core.files import FileErrors, load_tool_library
from polygon_core.stubs import ToolEnvironment

library = load_tool_library(sys.argv[2])
tool = library.tools["order"]
env = ToolEnvironment(library.tools, {}, conversation_id="c", seed=1)
found, missing = env.call("order", {"order_id": "A1"}, turn=0), env.call("order", {"order_id": "Z9"}, turn=1)
try:
    load_tool_library(sys.argv[3])
    errors = []
except FileErrors as exc:
    errors = [[e.line, e.field, e.message] for e in exc.errors]
print(json.dumps({"kinds": list(package.TOOL_KINDS), "class": type(tool).__name__,
                  "found": found.result, "missing": missing.result, "errors": errors}))
'''


def docs_example(first_line: str) -> str:
    """The ```python block of docs/design.md that starts with `first_line`."""
    text = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}") + len("```python\n")
    return text[start:text.index("```\n", start)]


def test_a_kind_module_dropped_into_the_package_is_a_stub_kind(tmp_path: Path) -> None:
    kinds = tmp_path / "kinds"
    kinds.mkdir()
    (kinds / "_tool_kind_lookup.py").write_text(docs_example("# polygon_core/models/_tool_kind_lookup.py"),
                                                encoding="utf-8")
    good, bad = tmp_path / "tools.yaml", tmp_path / "bad.yaml"
    good.write_text("tools:\n  order:\n    kind: lookup\n    key: '{{ args.order_id }}'\n"
                    "    table: {A1: {status: shipped}}\n", encoding="utf-8")
    bad.write_text("tools:\n  order:\n    kind: lookp\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(kinds), str(good), str(bad)], cwd=REPO,
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == {
        "kinds": ["fixed", "template", "rules", "state", "lookup"],
        "class": "LookupTool",
        "found": {"status": "shipped"},
        "missing": {"error": "not_found"},
        "errors": [[3, "tools.order.kind", "expected 'fixed', 'template', 'rules', 'state' or 'lookup', "
                                           "got 'lookp'; did you mean 'lookup'?"]],
    }
