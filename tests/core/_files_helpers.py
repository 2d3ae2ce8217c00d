"""Files and builders shared by the file-loading tests (tests/core/test_files_*.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon_core.files import FileErrors, PolygonFileError

# spec/003, verbatim (the article's own first line included).
ARENA = (Path(__file__).parents[1] / "fixtures" / "arena_billing_dispute.yaml").read_text(encoding="utf-8")

TOOLS = """\
tools:
  lookup_account:
    description: Look up a customer's account by id and postcode.
    parameters:
      type: object
      properties:
        account_id: {type: string, pattern: "^[0-9]{4,8}$"}
        postcode: {type: string}
      required: [account_id, postcode]
      additionalProperties: false
    response: {verified: true}
    events: [identity_verified]
  issue_refund:
    description: "Refund a charge. Guarded: requires verified identity."
    parameters:
      type: object
      properties:
        amount: {type: number, exclusiveMinimum: 0}
      required: [amount]
    kind: state
    state: {op: append, path: refunds, record: {amount: "{{ args.amount }}"}}
    events: [refund_issued]
  escalate_to_human:
    parameters:
      type: object
      properties:
        reason: {type: string}
    response: {transferred: true}
    ends_call: transfer
"""

SUITE_YAML = """\
name: arena
rubric: v1
seeds: [0, 1, 2]
judge_model: offline
"""

# A short scenario with known line numbers, for the error tests.
SMALL = """\
id: small
seed: 1
max_turns: 5
persona:
  name: caller
  temperament: impatient
  goal: get a refund
tools:
  - lookup_account
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_suite(root: Path, scenarios: dict[str, str], *, tools: str | None = TOOLS) -> Path:
    write(root / "suite.yaml", SUITE_YAML)
    if tools is not None:
        write(root / "tools.yaml", tools)
    for name, text in scenarios.items():
        write(root / "scenarios" / name, text)
    return root


def only_error(exc: pytest.ExceptionInfo[FileErrors]) -> PolygonFileError:
    assert len(exc.value.errors) == 1, str(exc.value)
    return exc.value.errors[0]


AGENT = """\
name: support-bot
description: Northwind's billing line.
prompt_file: prompts/support.md
model: openai:gpt-4o-mini
sampling:
  temperature: 0.2
tools: [lookup_account, issue_refund]
"""

PROMPT = "You are Northwind's billing assistant.\nAlways verify identity before a refund.\n"


def make_agent(root: Path, agent: str = AGENT, prompt: str = PROMPT) -> Path:
    write(root / "prompts" / "support.md", prompt)
    return write(root / "agent.yaml", agent)
