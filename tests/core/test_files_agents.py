"""Agent configs: prompt files, validator errors and agent versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon_core.files import FileErrors, agent_version, load_agent, load_tool_library, prompt_hash
from polygon_core.models import AgentConfig

from ._files_helpers import AGENT, PROMPT, TOOLS, make_agent, only_error, write

# The assertion checker is off unless a test injects one (tests/core/conftest.py).
pytestmark = pytest.mark.usefixtures("_no_assertion_checker")


# --- agent configs and versions -----------------------------------------------------------------


def test_agent_prompt_file_is_read_relative_to_the_agent_file(tmp_path: Path) -> None:
    agent = load_agent(make_agent(tmp_path / "agents"))
    assert agent.prompt_text == PROMPT
    assert agent.prompt_path == tmp_path / "agents" / "prompts" / "support.md"
    assert agent.config.sampling.temperature == 0.2
    assert agent.prompt_hash == prompt_hash(PROMPT)


def test_agent_with_inline_prompt(tmp_path: Path) -> None:
    agent = load_agent(write(tmp_path / "a.yaml", "name: a\nprompt: Be brief.\n"))
    assert (agent.prompt_text, agent.prompt_path) == ("Be brief.", None)


def test_missing_prompt_file_points_at_prompt_file(tmp_path: Path) -> None:
    path = write(tmp_path / "agent.yaml", AGENT)
    with pytest.raises(FileErrors) as exc:
        load_agent(path)
    error = only_error(exc)
    assert (error.line, error.field) == (3, "prompt_file")
    assert error.message == f"prompt file not found: {tmp_path / 'prompts' / 'support.md'}"


def test_agent_validator_errors_point_at_the_named_key(tmp_path: Path) -> None:
    path = write(tmp_path / "agent.yaml", "name: a\nmodel: offline\ncallable: nocolon\n")
    with pytest.raises(FileErrors) as exc:
        load_agent(path)
    error = only_error(exc)
    assert (error.line, error.field) == (3, "callable")

    path = write(tmp_path / "both.yaml", "name: a\nprompt: x\nprompt_file: p.md\n")
    with pytest.raises(FileErrors) as exc:
        load_agent(path)
    error = only_error(exc)  # names two keys: stays on the mapping
    assert (error.line, error.field) == (1, None)
    assert error.message == "give `prompt` or `prompt_file`, not both"


def test_agent_version_tracks_behaviour_only(tmp_path: Path) -> None:
    base = load_agent(make_agent(tmp_path / "a"))
    version = agent_version(base.config, base.prompt_text, None)
    assert version == base.version()

    one_word = load_agent(make_agent(tmp_path / "b", prompt=PROMPT.replace("Always", "Never")))
    assert agent_version(one_word.config, one_word.prompt_text, None) != version

    warmer = load_agent(make_agent(tmp_path / "c", AGENT.replace("0.2", "0.7")))
    assert agent_version(warmer.config, warmer.prompt_text, None) != version

    other_model = base.config.model_copy(update={"model": "anthropic:claude-3-5-haiku"})
    assert agent_version(other_model, base.prompt_text) != version

    fewer_tools = base.config.model_copy(update={"tools": ["lookup_account"]})
    assert agent_version(fewer_tools, base.prompt_text) != version

    relabelled = load_agent(
        make_agent(
            tmp_path / "d",
            AGENT.replace("Northwind's billing line.", "Something else entirely.")
            .replace("support-bot", "renamed-bot")
            .replace("prompts/support.md", "./prompts/../prompts/support.md"),
        )
    )
    assert agent_version(relabelled.config, relabelled.prompt_text, None) == version

    # Line endings and trailing whitespace are not a new prompt.
    crlf = PROMPT.replace("\n", "  \r\n") + "\n\n"
    assert prompt_hash(crlf) == prompt_hash(PROMPT)
    assert agent_version(base.config, crlf) == version


def test_agent_version_includes_tool_definitions_when_given(tmp_path: Path) -> None:
    library = load_tool_library(write(tmp_path / "tools.yaml", TOOLS))
    config = AgentConfig(name="a", prompt="p", tools=["issue_refund"])
    with_defs = agent_version(config, "p", library.tools)
    assert with_defs != agent_version(config, "p", None)
    assert agent_version(config, "p", library) == with_defs
    assert agent_version(config, "p", list(library.tools.values())) == with_defs

    changed = dict(library.tools)
    changed["issue_refund"] = changed["issue_refund"].model_copy(update={"description": "Refund."})
    assert agent_version(config, "p", changed) != with_defs
    # A tool the agent is not given does not count.
    changed = dict(library.tools)
    changed["lookup_account"] = changed["lookup_account"].model_copy(update={"description": "x"})
    assert agent_version(config, "p", changed) == with_defs
