"""The one-scenario suite the verdict tests run: a lookup tool, a goal assertion (gating or not)."""

from __future__ import annotations

from pathlib import Path

TOOLS = """\
tools:
  lookup_account:
    description: Look up an account.
    parameters:
      type: object
      properties:
        account_id: {type: string}
      required: [account_id]
    kind: fixed
    response: {found: true}
"""


def scenario(goal: str = "happened(lookup_account)", *, gate: bool = False, extra: str = "") -> str:
    """The scenario's YAML; `gate` marks its goal assertion `gate: true`; `extra` adds assertion lines."""
    assertion = f'{{expr: "{goal}", gate: true}}' if gate else goal
    return ("id: check-account\nseed: 3\nmax_turns: 6\npersona:\n  goal: check my account\n"
            '  ground_truth: {account_id: "4821"}\ntools: [lookup_account]\n'
            f"assertions:\n  goal_met: {assertion}\n{extra}")


def write_suite(tmp_path: Path, scenario_text: str, agent_text: str) -> tuple[Path, Path]:
    """The suite folder and the agent file, written under `tmp_path`."""
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    (suite / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (suite / "scenarios" / "check.yaml").write_text(scenario_text, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(agent_text, encoding="utf-8")
    return suite, agent
