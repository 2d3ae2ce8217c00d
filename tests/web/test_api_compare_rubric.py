"""`/api/compare?rubric=V&judge=M` follows `polygon compare --rubric --judge`: one rule for both."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from polygon.cli import app
from polygon.web import create_app
from polygon_core.adapters.settings import load_settings
from tests.cli.test_compare_rubric import AGENT, _stored_run
from tests.verdicts._files import scenario, write_suite

from .conftest import LOOPBACK


@pytest.fixture
def files(tmp_path: Path, polygon_home: Path) -> tuple[Path, Path]:
    return write_suite(tmp_path, scenario(), AGENT)


def test_api_compare_takes_the_rubric_and_judge_the_cli_takes(files: tuple[Path, Path], polygon_home: Path) -> None:
    old = _stored_run(files, "run-made-v2", "v2")
    new = _stored_run(files, "run-made-v3", "v3")
    client = TestClient(create_app(load_settings(home=polygon_home)), client=LOOPBACK)

    refused = client.get("/api/compare", params={"runs": [old, new]})
    assert refused.status_code == 422
    assert refused.json()["detail"].startswith("cannot compare runs judged under different rubric versions "
                                               "(v2 and v3): run-made-v2: v2, run-made-v3: v3; --rubric v3")
    missing = client.get("/api/compare", params={"runs": [old, new], "rubric": "v3"})
    assert (missing.status_code, missing.json()["detail"]) == (
        422, "run run-made-v2 has no judgments under rubric v3 (it has: v2); "
             "`polygon rescore run-made-v2 --rubric v3` makes them")

    assert CliRunner().invoke(app, ["rescore", old, "--rubric", "v3"]).exit_code == 0
    compared = client.get("/api/compare", params={"runs": [old, new], "rubric": "v3"})
    assert compared.status_code == 200, compared.text
    cards = [(c["run_id"], c["rubric_version"], c["judge_model"]) for c in compared.json()["cards"]]
    assert cards == [(old, "v3", "offline-heuristic"), (new, "v3", "offline-heuristic")]
    by_judge = client.get("/api/compare", params={"runs": [old, new], "rubric": "v3", "judge": "openai:x"})
    assert by_judge.status_code == 422 and by_judge.json()["detail"].startswith(
        "run run-made-v2 has no judgments by openai:x under rubric v3 (judged by: offline-heuristic)")
    pair = client.get("/api/compare/pair", params={"a": old, "b": new, "scenario": "check-account"})
    assert pair.status_code == 422 and pair.json()["detail"].endswith("`rubric` names the one to compare")
    pair = client.get("/api/compare/pair", params={"a": old, "b": new, "scenario": "check-account", "rubric": "v3"})
    assert (pair.status_code, pair.json()["seeds"]) == (200, [0])
