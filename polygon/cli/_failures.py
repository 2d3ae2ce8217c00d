"""Failures stop the line: any lost, broken or unjudged conversation is one line on stderr, exit 1.

A CI job built on Polygon must never pass a change that takes the agent down, or one whose judge
could not judge: `run`, `demo`, `rescore`, `probe`, `grade-calls` and `compare` (judge errors) all end here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

if TYPE_CHECKING:
    from polygon_core.compare import Scorecard


def _kind(what: str, who: str, n: int, total: int, reason: str | None) -> str:
    return f"{what} {who} failed on {n} of {total} conversations: {reason or 'no reason recorded'}"


#: The kinds of failure a line names, most fundamental first.
KINDS = ("provider", "simulator", "agent", "judge", "probe")


def failure_line(cards: Sequence[Scorecard], *, first_provider_detail: str | None = None,
                 first_simulator_detail: str | None = None,
                 agents: Sequence[str] = (), kinds: Collection[str] = KINDS) -> str | None:
    """One line naming every kind of failure in `cards` (count and first cause), or None.

    Kinds, most fundamental first: conversations lost to provider errors, to simulator errors (a
    stub, template or simulated caller of the suite failed: nothing was scored), broken calls (the
    agent's failure), judge errors, probe errors; `kinds` keeps some of them (`compare` stops on
    judge errors only). `agents` are the cards' agent names.
    """
    total = sum(c.conversations for c in cards)
    parts: list[str] = []
    lost = sum(c.provider_errors for c in cards) if "provider" in kinds else 0
    if lost:
        parts.append(f"{lost} of {total} conversations ended with provider_error (not scored); "
                     f"first: {first_provider_detail or 'no detail recorded'}")
    spoiled = sum(c.simulator_errors for c in cards) if "simulator" in kinds else 0
    if spoiled:
        parts.append(f"{spoiled} of {total} conversations ended with simulator_error (not scored); "
                     f"first: {first_simulator_detail or 'no detail recorded'}")
    broken = [(c, name) for c, name in zip(cards, list(agents) or [c.label for c in cards], strict=False)
              if c.agent_failures and "agent" in kinds]
    if broken:
        names = ", ".join(dict.fromkeys(name for _c, name in broken))
        parts.append(_kind("agent", names, sum(c.agent_failures for c, _ in broken), total,
                           broken[0][0].agent_failure_reason))
    judged = [c for c in cards if c.judge_errors and "judge" in kinds]
    if judged:
        names = ", ".join(dict.fromkeys(c.judge_model for c in judged))
        parts.append(_kind("judge", names, sum(c.judge_errors for c in judged), total,
                           judged[0].judge_error_reason))
    probed = [c for c in cards if c.probe_errors and "probe" in kinds]
    if probed:
        from polygon_core.judging import HEURISTIC_JUDGE  # not at import: `--help` loads this module

        names = ", ".join(dict.fromkeys(c.models.get("probe") or HEURISTIC_JUDGE for c in probed))
        parts.append(_kind("probe answerer", names, sum(c.probe_errors for c in probed), total,
                           probed[0].probe_error_reason))
    return "; ".join(parts) or None


def stop_on_failures(err: Any, cards: Sequence[Scorecard], **kwargs: Any) -> None:
    """Print the failure line (if any) and exit 1."""
    line = failure_line(cards, **kwargs)
    if line is None:
        return
    err.print(f"[red]error:[/] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(1)
