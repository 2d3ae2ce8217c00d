"""The checks `polygon run` makes before it creates a run row: `polygon validate`'s, then imports.

Whatever `validate` rejects, `run` refuses the same way (one line per problem, exit 2) before
anything is stored, so a run row is never left `running` with no conversations because a file
was broken. A `callable` agent is then imported for real (validation only locates it, without
running its code): an error raised while importing it is also reported as bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.files import PolygonFileError

from ._common import Stores

__all__ = ["check_artifact_store", "check_run_inputs", "upgrade_database", "validate_files"]


def check_run_inputs(suite: Path, agents: Sequence[Path]) -> None:
    """Raise FileErrors (or AgentConfigError) when the suite or an agent would fail the run."""
    from polygon_core.adapters.agents import AgentConfigError, load_attr
    from polygon_core.files import FileErrors, load_agent

    errors = validate_files([suite, *agents])
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


def validate_files(paths: Sequence[Path]) -> list[PolygonFileError]:
    """`polygon validate`'s errors for these files and folders (none when valid); an
    agent's model name is read as a run reads it (provider and URL; no key needed here)."""
    from polygon_core.adapters.providers import parse_model_name
    from polygon_core.files import validate_paths

    return validate_paths(list(paths), check_model=parse_model_name)


def check_artifact_store(stores: Stores) -> None:
    """Raise when the artifact store does not answer (a missing bucket: ArtifactStoreError), so a run
    fails before anything is recorded rather than leaving a row `running` and a traceback per task."""
    stores.artifacts.exists("runs/.preflight")


def upgrade_database(settings: PolygonSettings | None = None) -> str:
    """Apply the database migrations (Alembic) to the configured database; returns its URL."""
    from polygon_core.adapters.storage import Repository

    url = (settings or load_settings()).resolved_database_url()
    Repository(url).upgrade()
    return url
