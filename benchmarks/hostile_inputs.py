"""How long a hostile input takes to be refused, as a ratio to a benign input of the same kind.

The tests assert the bound that stops each hostile input (nodes, depth, bytes, alias expansion,
template output and recursion) and the exact refusal; a stopwatch belongs here, not in a test, since
a loaded machine slows every test alike. For each case: the median time to refuse it over
`--repeats` tries, divided by the median time to load a small benign input of the same kind in the
same process. Prints one JSON object; asserts nothing.

    .venv/bin/python benchmarks/hostile_inputs.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from polygon_core.documents import PolygonFileError, parse_yaml
from polygon_core.models import tool_def
from polygon_core.stubs import StubError, ToolEnvironment
from tests.hardening.test_template_limits import HOSTILE as HOSTILE_TEMPLATES
from tests.hardening.test_yaml_limits import HOSTILE as HOSTILE_YAML


def _median_seconds(action: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _refused(action: Callable[[], object], expected: type[Exception]) -> Callable[[], None]:
    def run() -> None:
        try:
            action()
        except expected:
            return
        raise AssertionError("the hostile input was accepted")
    return run


def _template(template: str) -> Callable[[], object]:
    def run() -> object:
        tool = tool_def(name="quote", kind="template", response=template)
        env = ToolEnvironment({"quote": tool}, {"n": 2}, conversation_id="c", seed=0)
        return env.call("quote", {}, turn=0).result
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    yaml_base = _median_seconds(lambda: parse_yaml("id: ok\npersona: {name: p, goal: g}\n", "ok.yaml"), repeats)
    template_base = _median_seconds(_template("{{ state.n * 2 }}"), repeats)
    report: dict[str, object] = {"repeats": repeats, "yaml_benign_ms": round(yaml_base * 1000, 3),
                                 "template_benign_ms": round(template_base * 1000, 3), "yaml": {}, "templates": {}}
    for name, (text, _) in sorted(HOSTILE_YAML.items()):
        seconds = _median_seconds(_refused(lambda t=text: parse_yaml(t, "x.yaml"), PolygonFileError), repeats)
        report["yaml"][name] = {"ms": round(seconds * 1000, 1), "ratio": round(seconds / yaml_base, 1)}  # type: ignore[index]
    for name, (template, _) in sorted(HOSTILE_TEMPLATES.items()):
        seconds = _median_seconds(_refused(_template(template), StubError), repeats)
        report["templates"][name] = {"ms": round(seconds * 1000, 1),  # type: ignore[index]
                                     "ratio": round(seconds / template_base, 1)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
