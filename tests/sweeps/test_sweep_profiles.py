"""A point's profile hashes the configuration it runs, so equal configurations share one run."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.sweeps import SweepPoint


def _sweep(tmp_path: Path, scenarios: list[str]) -> usecases.LoadedSweep:
    agents = tmp_path / "agents"
    shutil.copytree(demo_dir() / "agents", agents)
    spec = {"name": "p", "agent": "agents/agent_v1.yaml", "suite": str(demo_dir() / "suite"),
            "scenarios": scenarios, "parameters": {"noise": [0.0]}}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return usecases.load_sweep(path)


def _profile(sweep: usecases.LoadedSweep, **values: object) -> str:
    return usecases.point_profile(sweep, SweepPoint(index=0, values=values))


def test_a_value_equal_to_the_base_is_the_base_profile(tmp_path: Path) -> None:
    sweep = _sweep(tmp_path, ["address-change"])  # no noise, and no tool of the suite faults
    base = _profile(sweep)
    assert _profile(sweep, noise=0.0) == _profile(sweep, noise=0) == base
    assert _profile(sweep, stub_error_rate=0.0) == base
    # The base prompt named from the spec's folder rather than the agent's is the same prompt.
    assert _profile(sweep, prompt_file="agents/prompt_v1.txt") == base
    assert len({base, _profile(sweep, noise=0.4), _profile(sweep, stub_error_rate=0.3),
                _profile(sweep, prompt_file="agents/prompt_v2.txt")}) == 4


def test_noise_zero_differs_from_a_base_whose_scenario_is_noisy(tmp_path: Path) -> None:
    sweep = _sweep(tmp_path, ["roaming-charge-explained"])  # noise: 0.5 in its file
    assert _profile(sweep, noise=0.0) != _profile(sweep)
    assert _profile(sweep, noise=0.5) == _profile(sweep)
