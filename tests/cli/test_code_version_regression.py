"""Issue 27, item 1: a Python agent's code is part of its version.

One line of a callable agent's module is edited (it stops looking the account up) and the suite is
run again. Before, both runs had one version, `compare` took each as the other's noise floor and
called the drop "within noise" (exit 0), and `replay` of the old run silently ran the new code.
Now: two versions, "worse beyond noise", exit 1; replay and rescore of the old run are refused
with one line naming both versions and the module that changed; `show` names what it hashes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from tests.verdicts._files import scenario, write_suite

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()

AGENT_PY = """\
from polygon_core.conversation import AgentAction, ToolRequest

from .words import account_number

LOOKS_UP = True


def agent(request):
    if request.tool_results:
        return AgentAction(say="I found your account 4821 and it is in good order. Goodbye.", end="end")
    if request.heard is None:
        return AgentAction(say="Hello, this is the account line. What is your account number?")
    account = account_number(request.heard)
    if account is None:
        return AgentAction(say="Sorry, what is your account number?")
    if LOOKS_UP:
        return AgentAction(say="Let me check that.",
                           tool_calls=[ToolRequest(name="lookup_account", arguments={"account_id": account})])
    return AgentAction(say="Thanks. Goodbye.", end="end")
"""
WORDS_PY = """\
import re


def account_number(text):
    found = re.search(r"\\d{4}", text)
    return found.group(0) if found else None
"""
SEEDS = "6"


@pytest.fixture
def project(tmp_path: Path, polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path, Path]]:
    """The suite, the agent file and the agent's package `acct_agent/` (on the import path)."""
    package = tmp_path / "code" / "acct_agent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "agent.py").write_text(AGENT_PY, encoding="utf-8")
    (package / "words.py").write_text(WORDS_PY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # no stale .pyc for an edit within a second
    suite, agent = write_suite(tmp_path, scenario(), "name: acct\ncallable: acct_agent.agent:agent\n")
    yield suite, agent, package
    _forget_agent_modules()


def _forget_agent_modules() -> None:
    # Each `polygon run` is its own process; in-process, the second run would otherwise reuse the
    # module the first one imported.
    for name in [n for n in sys.modules if n == "acct_agent" or n.startswith("acct_agent.")]:
        del sys.modules[name]


def _run(suite: Path, agent: Path) -> dict[str, str]:
    result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", SEEDS, "--json"])
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.stdout)["runs"]
    return run  # type: ignore[no-any-return]


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), terminal_width=200)
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def test_an_edited_agent_module_is_a_new_version_worse_beyond_noise(project: tuple[Path, Path, Path]) -> None:
    suite, agent, package = project
    old = _run(suite, agent)
    module = package / "agent.py"
    before_text = module.read_text(encoding="utf-8")
    module.write_text(before_text.replace("LOOKS_UP = True", "LOOKS_UP = False"), encoding="utf-8")
    _forget_agent_modules()
    new = _run(suite, agent)
    assert old["agent_version"] != new["agent_version"]

    code, out, _err = _invoke("compare", old["run_id"], new["run_id"], "--json")
    data = json.loads(out)
    overall = next(d for d in data["differences"] if d["metric"] == "composite" and d["scope"] == "overall")
    assert (code, overall["label"], overall["pairs"]) == (1, "worse", int(SEEDS))
    assert data["ci"]["reasons"] == [
        f"{data['cards'][1]['label']} is worse than {data['cards'][0]['label']} beyond noise: "
        f"{overall['delta']:+.1f} points [{overall['ci_low']:.1f}, {overall['ci_high']:.1f}] over {SEEDS} pairs"]

    # `show` names what the old version hashed: the module as it was, its helper, the packages.
    from polygon_core.files import source_sha

    code, out, _err = _invoke("show", old["run_id"], "--json")
    parts = json.loads(out)["version_parts"]
    modules = {p["name"]: p["sha"] for p in parts if p["kind"] == "module"}
    assert code == 0 and modules == {
        "acct_agent": source_sha(b""), "acct_agent.agent": source_sha(before_text.encode()),
        "acct_agent.words": source_sha(WORDS_PY.encode())}
    assert {(p["kind"], p["name"]) for p in parts if p["kind"] in ("package", "stdlib")} == {
        ("package", "polygon-bench"), ("stdlib", "re")}
    code, out, _err = _invoke("show", old["run_id"])
    assert code == 0 and f"agent version {old['agent_version']} hashes: prompt (sha" in " ".join(out.split())

    # The old run cannot be replayed or re-scored with the new code: one line, both versions, the module.
    changed = f"module acct_agent.agent sha {modules['acct_agent.agent']} → {source_sha(module.read_bytes())}"
    conversation = json.loads(_invoke("show", old["run_id"], "--json")[1])["conversations"][0]["conversation_id"]
    code, _out, err = _invoke("replay", conversation, "--run", old["run_id"])
    assert code == 2
    assert err.strip().splitlines() == [
        f"error: run {old['run_id']!r} was made by agent version {old['agent_version']}, but {agent} is now "
        f"version {new['agent_version']} (changed: {changed}); a replay would run a different agent (restore "
        "the agent's files as they were, or `polygon run` the new version)"]
    code, _out, err = _invoke("rescore", old["run_id"], "--rubric", "v2")
    assert code == 2
    assert err.strip().splitlines() == [
        f"error: run {old['run_id']!r} was made by agent version {old['agent_version']}, but {agent} is now "
        f"version {new['agent_version']} (changed: {changed}); re-scoring would judge a different agent "
        "(pass --agent with the file as it was, or restore the agent's code)"]
