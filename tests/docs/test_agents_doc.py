"""docs/agents.md runs as written: every file it shows (a fenced block whose first line is
`# <file name>`) is written out, and `polygon run` plays each agent kind on the demo suite, offline:
the function, the class and the prompt + model agent in one run, the HTTP agent against its own
server. Every conversation is scored (no agent_error)."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir
from tests.cli.test_cli_probe_and_agent_files import polygon
from tests.conftest import REPO

DOC = REPO / "docs" / "agents.md"
BLOCK = re.compile(r"```(\w+)\n# ([\w.]+)\n(.*?)```", re.S)


def doc_files() -> dict[str, str]:
    """File name → content, for every block of the doc that names its file."""
    return {name: body for _lang, name, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, body in doc_files().items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    shutil.copytree(demo_dir() / "suite", tmp_path / "my-suite")
    return tmp_path


def test_the_doc_shows_every_kind_with_its_files() -> None:
    assert sorted(doc_files()) == ["billing_agent.py", "billing_agent.yaml", "echo_agent.py", "echo_agent.yaml",
                                   "http_agent.py", "http_agent.yaml", "model_agent.yaml", "prompt.txt"]
    text = DOC.read_text(encoding="utf-8")
    for agent in ("echo_agent.yaml", "billing_agent.yaml", "model_agent.yaml", "http_agent.yaml"):
        assert f".venv/bin/polygon run my-suite/ --agent {agent}" in text


def _scored(out: subprocess.CompletedProcess[str], agents: int) -> list[dict[str, object]]:
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    runs: list[dict[str, object]] = json.loads(out.stdout)["runs"]
    assert len(runs) == agents
    for run in runs:
        assert (run["conversations"], run["agent_failures"], run["simulator_errors"]) == (6, 0, 0), run
        assert sum(dict(run["verdicts"]).values()) == 6  # type: ignore[call-overload]
    return runs


def test_the_function_class_and_model_examples_run_on_the_demo_suite(folder: Path) -> None:
    out = polygon("run", "my-suite/", "--agent", "echo_agent.yaml", "--agent", "billing_agent.yaml",
                  "--agent", "model_agent.yaml", "--seeds", "1", "--json", cwd=folder)
    runs = _scored(out, 3)
    assert [r["agent"] for r in runs] == ["echo", "billing", "ava"]


def test_the_class_example_verifies_the_caller_with_its_tool(folder: Path) -> None:
    out = polygon("run", "my-suite/", "--agent", "billing_agent.yaml", "--seeds", "1", "--scenario", "address-change",
                  "--json", cwd=folder)
    assert out.returncode == 0, out.stderr
    [run] = json.loads(out.stdout)["runs"]
    home = folder / "home" / "artifacts" / "runs" / str(run["run_id"]) / "conversations"
    [stored] = home.glob("*.json")
    conversation = json.loads(stored.read_text(encoding="utf-8"))
    calls = [c for t in conversation["turns"] for c in t["tool_calls"]]
    assert [(c["name"], c["arguments"], c["result"]["verified"]) for c in calls] == [
        ("lookup_account", {"account_id": "5530", "postcode": "M1 4BT"}, True)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_http_example_runs_against_its_server(folder: Path) -> None:
    port = _free_port()
    yaml_file = folder / "http_agent.yaml"
    yaml_file.write_text(yaml_file.read_text(encoding="utf-8").replace(":8000/", f":{port}/"), encoding="utf-8")
    server = subprocess.Popen([sys.executable, "http_agent.py", str(port)], cwd=folder,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30  # a hang guard, not a timing assertion
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        out = polygon("run", "my-suite/", "--agent", "http_agent.yaml", "--seeds", "1", "--json", cwd=folder)
        _scored(out, 1)
    finally:
        server.terminate()
        server.wait(timeout=10)
