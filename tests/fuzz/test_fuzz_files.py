"""Fuzzing the file loaders: any text or tree is valid, or is refused with FileErrors/PolygonFileError.

Anything else raised (a KeyError, a RecursionError, a pydantic error escaping) is a bug: `polygon
validate` would print a traceback instead of one line naming the file and the line.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from polygon_core.demo import demo_dir
from polygon_core.files import (
    FileErrors,
    PolygonFileError,
    load_agent,
    load_scenario,
    load_suite_config,
    load_tool_library,
    parse_yaml,
    validate_paths,
)

from ._settings import fuzz
from .strategies import mappings, trees, yaml_texts

LOADERS = {"scenario.yaml": load_scenario, "agent.yaml": load_agent,
           "tools.yaml": load_tool_library, "suite.yaml": load_suite_config}


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def _load_everywhere(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, load in LOADERS.items():
            path = root / name
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            try:
                load(path)
            except FileErrors as exc:
                assert all(isinstance(e, PolygonFileError) and e.file for e in exc.errors)
        errors = validate_paths([root / name for name in LOADERS] + [root])
        assert all(isinstance(e, PolygonFileError) for e in errors)
        assert all("\n" not in str(e) for e in errors)  # one line each


@fuzz(300)
@given(st.text(max_size=200))
def test_parse_yaml_any_text(text: str) -> None:
    try:
        parse_yaml(text, "x.yaml")
    except PolygonFileError as exc:
        assert str(exc).startswith("x.yaml")


@fuzz(300)
@given(yaml_texts())
def test_parse_yaml_yaml_punctuation(text: str) -> None:
    try:
        parse_yaml(text, "x.yaml")
    except PolygonFileError as exc:
        assert str(exc).startswith("x.yaml")


@fuzz(40)
@given(yaml_texts())
def test_every_loader_on_hostile_text(text: str) -> None:
    _load_everywhere(text)


@fuzz(40)
@given(mappings())
def test_every_loader_on_yaml_ish_trees(data: dict[Any, Any]) -> None:
    _load_everywhere(_dump(data))


DEMO_SCENARIO = yaml.safe_load((demo_dir() / "suite" / "scenarios" / "01_billing_dispute.yaml").read_text())
DEMO_TOOLS = yaml.safe_load((demo_dir() / "suite" / "tools.yaml").read_text())


@fuzz(40)
@given(st.sampled_from(sorted(DEMO_SCENARIO)), trees(10), st.sampled_from(sorted(DEMO_TOOLS["tools"])),
       st.sampled_from(["parameters", "rules", "response", "state", "kind", "errors", "latency"]), trees(10))
def test_a_suite_with_one_field_replaced(scenario_key: str, scenario_value: Any, tool: str,
                                         tool_key: str, tool_value: Any) -> None:
    # Near-valid files reach deep into validation: one field of the demo's scenario and of one of
    # its tools is replaced by an arbitrary tree.
    scenario = {**DEMO_SCENARIO, scenario_key: scenario_value}
    tools = {"tools": {**DEMO_TOOLS["tools"], tool: {**DEMO_TOOLS["tools"][tool], tool_key: tool_value}}}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "scenarios").mkdir()
        (root / "scenarios" / "s.yaml").write_text(_dump(scenario), encoding="utf-8")
        (root / "tools.yaml").write_text(_dump(tools), encoding="utf-8")
        errors = validate_paths([root, root / "scenarios" / "s.yaml"])
        assert all(isinstance(e, PolygonFileError) and e.file for e in errors)
