"""Demo results for the web app tests: the demo suite run once per module through the pipeline."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon_core.demo import demo_dir

SUITE = demo_dir() / "suite"
V1 = demo_dir() / "agents" / "agent_v1.yaml"
V2 = demo_dir() / "agents" / "agent_v2.yaml"
LOOPBACK = ("127.0.0.1", 50123)


@dataclass(frozen=True)
class Demo:
    """A POLYGON_HOME holding both demo agents' runs (seed 0)."""

    home: Path
    v1: str
    v2: str


@pytest.fixture(scope="module")
def demo(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """Run `polygon run` on the demo suite with both agents, --seeds 1, in a private home."""
    from polygon.cli import app

    home = tmp_path_factory.mktemp("web") / ".polygon"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("POLYGON_HOME", str(home))
        for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL", "POLYGON_API_TOKENS"):
            mp.delenv(var, raising=False)
        result = CliRunner().invoke(app, ["run", str(SUITE), "--agent", str(V1), "--agent", str(V2),
                                          "--seeds", "1", "--json"])
        assert result.exit_code == 0, result.output
        v1, v2 = (r["run_id"] for r in json.loads(result.stdout)["runs"])
        yield Demo(home=home, v1=v1, v2=v2)
