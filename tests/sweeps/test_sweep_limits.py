"""A sweep's points are counted before they are made, and a spec over the limit is refused.

Issue 32 item 4: a grid of 2×10^10 points, or a range stepped by 1e-9, validated, and then
`polygon sweep` hung making the points (or ran out of memory). Now the count comes from the spec's
numbers alone, `validate` and `sweep` refuse more than MAX_SWEEP_POINTS with one line naming the
field and the count, and a random draw never makes the grid it draws from.
"""

from __future__ import annotations

import itertools
import random
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core import stable_seed
from polygon_core.demo import demo_dir
from polygon_core.files import validate_paths
from polygon_core.sweeps import MAX_SWEEP_POINTS, Range, SweepSpec, expand_points

runner = CliRunner()


def spec(parameters: dict[str, Any], **kw: object) -> SweepSpec:
    return SweepSpec.model_validate({"name": "s", "agent": "a.yaml", "suite": "suite",
                                     "parameters": parameters, **kw})


@pytest.mark.parametrize(("start", "stop", "step", "count"), [
    (0, 1, 0.1, 11),
    (0, 1, 0.3, 4),         # 0, 0.3, 0.6, 0.9: the last step would pass `stop`
    (0.5, 1.0, 0.25, 3),
    (0, 0.7, 0.1, 8),       # 0.7 / 0.1 is 6.999…: `stop` still counts
    (2, 2, 1, 1),
    (1, 0, 0.5, 0),
])
def test_a_range_counts_exactly_the_values_it_makes(start: float, stop: float, step: float, count: int) -> None:
    r = Range(start=start, stop=stop, step=step)
    assert r.count() == count == len(r.values())


def test_a_fine_range_is_counted_without_making_it() -> None:
    r = Range(start=0, stop=1, step=1e-9)
    assert r.count() == 1_000_000_001
    assert (r.value_at(0), r.value_at(123_456_789), r.value_at(1_000_000_000)) == (0.0, 0.123456789, 1.0)


@pytest.mark.parametrize(("strategy", "extra", "planned", "made"), [
    ("one_at_a_time", {}, 1 + 3 + 4, 1 + 2 + 3),   # the base's own values (0.0 and 1.0) are not run again
    ("grid", {}, 3 * 4, 12),
    ("random", {"points": 5}, 5, 5),
    ("random", {"points": 50}, 12, 12),            # never more than the grid holds
])
def test_planned_points_are_counted_before_expanding(
    strategy: str, extra: dict[str, Any], planned: int, made: int
) -> None:
    s = spec({"temperature": [0.0, 0.5, 1.0], "top_p": {"range": {"start": 0.7, "stop": 1.0, "step": 0.1}}},
             strategy=strategy, **extra)
    assert s.planned_points() == planned
    assert len(expand_points(s, {"sampling.temperature": 0.0, "sampling.top_p": 1.0})) == made


@pytest.mark.parametrize("seed", [0, 1, 7, 42])
def test_random_draws_the_same_points_as_drawing_from_the_whole_grid(seed: int) -> None:
    # What `expand_points` did before it stopped making the grid: the same seed keeps its points.
    s = spec({"temperature": [0.0, 0.25, 0.5, 0.75, 1.0], "top_p": {"range": {"start": 0.5, "stop": 1.0, "step": 0.1}},
              "max_tokens": [128, 256]}, strategy="random", points=8, seed=seed)
    names = sorted(s.parameters)
    grid = [dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(s.parameters[n].all_values() for n in names))]
    before = random.Random(stable_seed("sweep", s.name, s.seed)).sample(grid, k=8)
    assert [p.values for p in expand_points(s, {})] == before


def test_random_over_a_fine_range_makes_only_its_points() -> None:
    s = spec({"temperature": {"range": {"start": 0, "stop": 1, "step": 1e-9}}, "top_p": [0.5, 0.9]},
             strategy="random", points=3, seed=4)
    assert s.combinations() == 2_000_000_002
    tracemalloc.start()
    try:
        points = expand_points(s, {})
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # the grid's 2×10^9 combinations were never made
    assert len(points) == 3
    for point in points:
        assert 0 <= point.values["sampling.temperature"] <= 1 and point.values["sampling.top_p"] in (0.5, 0.9)


def test_the_limit_itself_is_accepted() -> None:
    s = spec({"temperature": {"range": {"start": 0, "stop": 0.999, "step": 0.001}}}, strategy="grid")
    assert s.planned_points() == MAX_SWEEP_POINTS == 1_000
    assert len(expand_points(s, {})) == 1_000


@pytest.mark.parametrize(("parameters", "extra", "message"), [
    ({"temperature": {"range": {"start": 0, "stop": 0.999, "step": 0.001}}}, {},
     "these parameters make 1,001 points one at a time (1 base + sampling.temperature 1,000), more than "
     "the limit of 1,000 points per sweep"),
    ({"temperature": {"range": {"start": 0, "stop": 1, "step": 1e-9}}}, {},
     "these parameters make 1,000,000,002 points one at a time (1 base + sampling.temperature "
     "1,000,000,001), more than the limit of 1,000 points per sweep"),
    ({"temperature": {"range": {"start": 0, "stop": 1, "step": 1e-5}},
      "top_p": {"range": {"start": 0, "stop": 1, "step": 5e-6}}}, {"strategy": "grid"},
     "these parameters make 20,000,300,001 points as a grid (sampling.temperature 100,001 × sampling.top_p "
     "200,001), more than the limit of 1,000 points per sweep"),
    ({"temperature": {"range": {"start": 0, "stop": 1, "step": 1e-9}}}, {"strategy": "random", "points": 5000},
     "5,000 points are more than the limit of 1,000 points per sweep"),
    ({"temperature": {"range": {"start": 0, "stop": 1, "step": 1e-12}},
      "top_p": {"range": {"start": 0, "stop": 1, "step": 1e-12}}}, {"strategy": "random", "points": 5},
     "these parameters make 1,000,000,000,002,000,000,000,001 combinations (sampling.temperature "
     "1,000,000,000,001 × sampling.top_p 1,000,000,000,001), more than a random draw can index "
     "(9,223,372,036,854,775,807)"),
    ({"temperature": {"range": {"start": 0, "stop": float("inf"), "step": 0.1}}}, {},
     "start, stop and step must be finite numbers"),
])
def test_a_spec_over_the_limit_is_refused(parameters: dict[str, Any], extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        spec(parameters, **extra)
    assert [e["msg"] for e in caught.value.errors()] == [f"Value error, {message}"]


GRID_SPEC = """name: huge-grid
agent: ../agents/agent_v1.yaml
suite: ../suite
strategy: grid
parameters:
  temperature: {range: {start: 0, stop: 1, step: 0.00001}}
  top_p: {range: {start: 0, stop: 1, step: 0.000005}}
"""
GRID_ERROR = ("sweeps/grid.yaml:5: parameters: these parameters make 20,000,300,001 points as a grid "
              "(sampling.temperature 100,001 × sampling.top_p 200,001), more than the limit of 1,000 points "
              "per sweep")
FINE_SPEC = """name: fine-range
agent: ../agents/agent_v1.yaml
suite: ../suite
parameters:
  temperature:
    range: {start: 0, stop: 1, step: 1e-9}
"""
FINE_ERROR = ("sweeps/fine.yaml:4: parameters: these parameters make 1,000,000,002 points one at a time "
              "(1 base + sampling.temperature 1,000,000,001), more than the limit of 1,000 points per sweep")


@pytest.fixture
def sweep_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    (tmp_path / "agents").mkdir()
    for name in ("agent_v1.yaml", "prompt_v1.txt"):
        shutil.copy(demo_dir() / "agents" / name, tmp_path / "agents" / name)
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "grid.yaml").write_text(GRID_SPEC, encoding="utf-8")
    (tmp_path / "sweeps" / "fine.yaml").write_text(FINE_SPEC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("file", "error"), [("grid", GRID_ERROR), ("fine", FINE_ERROR)])
def test_validate_and_sweep_refuse_the_spec_in_one_line(
    file: str, error: str, sweep_folder: Path, polygon_home: Path
) -> None:
    path = Path("sweeps") / f"{file}.yaml"
    assert [str(e) for e in validate_paths([path])] == [error]
    # `sweep` names the spec by the absolute path it reads it from.
    absolute = error.replace(str(path), str((sweep_folder / path).resolve()), 1)
    for command, expected in ((["validate", str(path)], error), (["sweep", str(path)], absolute)):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [f"error: {expected}"]
        assert "Traceback" not in result.output
    assert not (polygon_home / "sweeps").exists()  # nothing of the sweep was started
