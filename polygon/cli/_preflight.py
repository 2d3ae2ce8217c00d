"""The checks `polygon run` makes before it creates a run row: `polygon validate`'s, then imports.

Whatever `validate` rejects, `run` refuses the same way (one line per problem, exit 2) before
anything is stored, so a run row is never left `running` with no conversations because a file
was broken. A `callable` agent is then imported for real (validation only locates it, without
running its code): an error raised while importing it is also reported as bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def check_run_inputs(suite: Path, agents: Sequence[Path]) -> None:
    """Raise FileErrors (or AgentConfigError) when the suite or an agent would fail the run."""
    from polygon_core.adapters.agents import AgentConfigError, load_attr
    from polygon_core.adapters.providers import parse_model_name
    from polygon_core.files import FileErrors, load_agent, validate_paths

    errors = validate_paths([suite, *agents], check_model=parse_model_name)
    if errors:
        raise FileErrors(errors)
    for agent in agents:
        config = load_agent(agent).config
        if config.kind != "callable" or not config.callable:
            continue
        try:
            load_attr(config.callable)
        except AgentConfigError as exc:
            raise AgentConfigError(f"{agent}: {exc}") from None
        except Exception as exc:  # the module's own code failed while importing
            raise AgentConfigError(
                f"{agent}: callable {config.callable!r}: importing it failed: "
                f"{type(exc).__name__}: {exc}"
            ) from None
