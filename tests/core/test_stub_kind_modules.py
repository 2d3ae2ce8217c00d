"""A new stub kind is one module: a `_tool_kind*` module of polygon_core/models/ is a member of the
`ToolDef` union. The union is built when the package is imported, so this runs in a fresh
interpreter whose `polygon_core.models` also searches a temporary folder (the tree stays untouched)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests._plugins import install_plugin
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


def test_an_entry_point_adds_a_stub_kind_kept_outside_polygon(tmp_path: Path) -> None:
    # The same module in its own distribution, named by a `polygon.stub_kinds` entry point: found when
    # the union is built, in a fresh interpreter whose path holds the distribution.
    source = docs_example("# polygon_core/models/_tool_kind_lookup.py").replace(
        "from ._tool_base", "from polygon_core.models._tool_base")
    site = install_plugin(tmp_path / "site", distribution="acme-kinds", group="polygon.stub_kinds", name="lookup",
                          module="acme_kinds", source=source)
    good = tmp_path / "tools.yaml"
    good.write_text("tools:\n  order:\n    kind: lookup\n    key: '{{ args.order_id }}'\n"
                    "    table: {A1: {status: shipped}}\n", encoding="utf-8")
    script = ("import json, sys\nsys.path.insert(0, sys.argv[1])\n"
              "from polygon_core.files import load_tool_library\nfrom polygon_core.models import TOOL_KINDS\n"
              "from polygon_core.stubs import ToolEnvironment\n"
              "tools = load_tool_library(sys.argv[2]).tools\n"
              "env = ToolEnvironment(tools, {}, conversation_id='c', seed=1)\n"
              "print(json.dumps({'kinds': list(TOOL_KINDS), 'class': type(tools['order']).__name__,\n"
              "                  'found': env.call('order', {'order_id': 'A1'}, turn=0).result}))\n")
    out = subprocess.run([sys.executable, "-c", script, str(site), str(good)], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout) == {"kinds": ["fixed", "template", "rules", "state", "lookup"],
                                      "class": "LookupTool", "found": {"status": "shipped"}}
