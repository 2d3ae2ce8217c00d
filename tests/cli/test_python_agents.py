"""Python agents as a newcomer writes them (issue 31): a class whose `act` returns a dict runs and is
scored; its module is found beside the agent file or in the suite folder without `PYTHONPATH`; a module
that is not there is one line (exit 2) naming the module, the folders searched and the fix."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from polygon_core.demo import demo_dir
from polygon_core.files import agent_folders, agent_import_path, load_agent
from tests.cli.test_cli_probe_and_agent_files import error_lines, polygon

DICT_CLASS = '''\
class Agent:
    """Keeps its own state: one instance per conversation."""

    def __init__(self):
        self.turns = 0

    def act(self, request):
        self.turns += 1
        if request.heard is None:
            return {"say": "Northwind billing, how can I help?"}
        return {"say": f"Reply {self.turns}: you said {request.heard}", "end": "end" if self.turns > 3 else None}
'''


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", suite)
    return suite


def _run_json(tmp_path: Path, agent: str) -> dict[str, object]:
    out = polygon("run", "suite", "--agent", agent, "--seeds", "1", "--scenario", "address-change", "--json",
                  cwd=tmp_path)
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    [run] = json.loads(out.stdout)["runs"]
    return dict(run)


def test_a_class_returning_a_dict_beside_its_agent_file_runs_and_is_scored(tmp_path: Path) -> None:
    _suite(tmp_path)
    (tmp_path / "my_agent.py").write_text(DICT_CLASS, encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: mine\ncallable: my_agent:Agent\n", encoding="utf-8")
    run = _run_json(tmp_path, "agent.yaml")
    assert (run["conversations"], run["agent_failures"], run["simulator_errors"]) == (1, 0, 0)
    assert sum(dict(run["verdicts"]).values()) == 1  # type: ignore[call-overload]
    assert isinstance(run["mean_composite"], float)


def test_a_module_in_the_suite_folder_is_found_for_an_agent_file_elsewhere(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    (suite / "suite_agent.py").write_text(DICT_CLASS, encoding="utf-8")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "agent.yaml").write_text("name: mine\ncallable: suite_agent:Agent\n", encoding="utf-8")
    out = polygon("validate", "suite", "agents/agent.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    run = _run_json(tmp_path, "agents/agent.yaml")
    assert (run["conversations"], run["agent_failures"]) == (1, 0)


def test_a_missing_module_is_one_line_naming_the_module_the_folders_and_the_fix(tmp_path: Path) -> None:
    _suite(tmp_path)
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "agent.yaml").write_text("name: mine\ncallable: nope_agent:Agent\n", encoding="utf-8")
    out = polygon("run", "suite", "--agent", "agents/agent.yaml", "--seeds", "1", cwd=tmp_path)
    assert out.returncode == 2
    agents, suite = (tmp_path / "agents").resolve(), (tmp_path / "suite").resolve()
    assert error_lines(out) == [
        f"agents/agent.yaml:2: callable: callable 'nope_agent:Agent': no module 'nope_agent' in {agents}, "
        f"{suite} and the Python path; put nope_agent.py in {agents} or {suite}, or install its package "
        "or add its folder to PYTHONPATH"]


def test_a_module_importing_a_missing_package_names_that_package(tmp_path: Path) -> None:
    _suite(tmp_path)
    (tmp_path / "broken_agent.py").write_text("import no_such_package_xyz\n\nclass Agent: ...\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: mine\ncallable: broken_agent:Agent\n", encoding="utf-8")
    out = polygon("run", "suite", "--agent", "agent.yaml", "--seeds", "1", cwd=tmp_path)
    assert out.returncode == 2
    assert error_lines(out) == [
        "agent.yaml: callable 'broken_agent:Agent': importing module 'broken_agent' failed: it imports "
        "'no_such_package_xyz', which is not installed or not on the import path"]


def test_the_folders_leave_the_import_path_after_loading(tmp_path: Path) -> None:
    (tmp_path / "leaf_agent.py").write_text("def act(request):\n    return {}\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: a\ncallable: leaf_agent:act\n", encoding="utf-8")
    before = list(sys.path)
    assert load_agent(tmp_path / "agent.yaml").config.callable == "leaf_agent:act"  # found, not imported
    assert sys.path == before
    folder = str(tmp_path.resolve())
    with agent_import_path(agent_folders(tmp_path / "agent.yaml")):
        with agent_import_path([tmp_path]):  # nested: still there after the inner block
            pass
        assert sys.path[0] == folder
    assert sys.path == before
    assert "leaf_agent" not in sys.modules


def test_a_class_without_act_is_refused_before_the_run(tmp_path: Path) -> None:
    _suite(tmp_path)
    (tmp_path / "noact.py").write_text("class BillingAgent:\n    pass\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: b\ncallable: noact:BillingAgent\n", encoding="utf-8")
    out = polygon("run", "suite", "--agent", "agent.yaml", "--seeds", "1", cwd=tmp_path)
    assert out.returncode == 2
    assert error_lines(out) == [
        "agent.yaml: callable 'noact:BillingAgent': class 'BillingAgent' has no `act(self, request)` method"]
    assert not (tmp_path / "home" / "artifacts" / "runs").exists()


def test_an_invalid_action_is_one_line_naming_the_field(tmp_path: Path) -> None:
    _suite(tmp_path)
    (tmp_path / "inv.py").write_text("def act(request):\n    return {'say': 'hi', 'end': 'bye'}\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: b\ncallable: inv:act\n", encoding="utf-8")
    out = polygon("run", "suite", "--agent", "agent.yaml", "--seeds", "1", "--scenario", "address-change",
                  cwd=tmp_path)
    assert out.returncode == 1
    assert error_lines(out)[-1] == (
        "agent b failed on 1 of 1 conversations: agent_error: AgentActionError: the agent returned an invalid "
        "action: end: Input should be 'end', 'transfer' or 'callback' (got dict; expected an AgentAction or a "
        "dict of its fields: say, tool_calls, end, latency_ms, usage)")


def test_a_class_that_needs_arguments_is_refused_before_the_run(tmp_path: Path) -> None:
    # Issue 32 item 8: it passed the check and failed making the agent, outside the conversation:
    # a Prefect traceback of about 400 lines, exit 1 and a run left `failed`.
    _suite(tmp_path)
    (tmp_path / "args_agent.py").write_text(
        "class Agent:\n    def __init__(self, token):\n        self.token = token\n\n"
        "    def act(self, request):\n        return {'say': 'hi'}\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: b\ncallable: args_agent:Agent\n", encoding="utf-8")
    out = polygon("run", "suite", "--agent", "agent.yaml", "--seeds", "1", cwd=tmp_path)
    assert out.returncode == 2
    assert "Traceback" not in out.stdout
    assert error_lines(out) == [
        "agent.yaml: callable 'args_agent:Agent': class 'Agent' cannot be made without arguments (missing a "
        "required argument: 'token'); Polygon makes one per conversation as `Agent()`"]
    assert not (tmp_path / "home" / "artifacts" / "runs").exists()


def test_a_class_whose_init_raises_fails_its_conversations_not_the_run(tmp_path: Path) -> None:
    # Its __init__ runs inside the conversation: the agent's failure (agent_error), as `act` raising is.
    _suite(tmp_path)
    (tmp_path / "init_agent.py").write_text(
        "class Agent:\n    def __init__(self):\n        raise RuntimeError('no token configured')\n\n"
        "    def act(self, request):\n        return {'say': 'hi'}\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("name: b\ncallable: init_agent:Agent\n", encoding="utf-8")
    out = polygon("run", "suite", "--agent", "agent.yaml", "--seeds", "1", "--scenario", "address-change",
                  cwd=tmp_path)
    assert out.returncode == 1
    assert "Traceback" not in out.stdout
    assert error_lines(out)[-1] == (
        "agent b failed on 1 of 1 conversations: agent_error: RuntimeError: no token configured")
