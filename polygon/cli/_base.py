"""What every command shares: the two consoles, the bad-input wrapper and the quiet Prefect setup.

Command modules import from here (never from `_app`, which imports them to register them).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand

from ._infra import infrastructure_error, print_infrastructure_error
from ._prefect import choose_api

# Markup is off by default: scenario ids, file errors, regexes (`[/a-z]`) and agents' words are
# printed as written, never parsed as Rich tags. A line that styles itself passes `markup=True` and
# escapes what it interpolates; a table cell that styles itself is a `Text`.
console = Console(markup=False)
err = Console(stderr=True, markup=False)
F = TypeVar("F", bound=Callable[..., Any])

#: The `--json` option every command that prints results takes.
JSON_HELP = "print one JSON object"


#: Tokens an option's help may hold, each filled from its registry when the help is shown (through
#: the use cases): never when a command runs, so registering `run` imports no import format, and a
#: provider or format a plugin installs appears with no edit. A help naming none is left as it is.
REGISTRY_TOKENS: dict[str, str] = {
    "{model_forms}": "model_forms",  # offline | openai:<model> | anthropic:<model>
    "{batch_providers}": "batch_provider_titles",  # OpenAI, Anthropic
    "{formats}": "format_choices",  # csv | openai | polygon | retell | vapi
    "{rubrics}": "rubric_choices",  # v1, v2, v3
}


def fill_registry_tokens(text: str) -> str:
    """`text` with each registry token replaced by what its registry holds now."""
    from polygon import usecases

    for token, function in REGISTRY_TOKENS.items():
        if token in text:
            try:
                names = getattr(usecases, function)()
            except ValueError as exc:  # a broken plugin: the help still shows, the command names it
                names = f"(unknown: {exc})"
            text = text.replace(token, names)
    return text


class RegistryHelpCommand(TyperCommand):
    """A command whose options' help may name a registry's entries (`REGISTRY_TOKENS`)."""

    # typer vendors its own click (`typer._click`): its types are Any here rather than a private import.
    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            text = getattr(param, "help", None)
            if text and "{" in text:
                setattr(param, "help", fill_registry_tokens(text))  # noqa: B010  (Argument has no `help` in the stubs)
        super().format_help(ctx, formatter)


def _user_errors() -> tuple[type[BaseException], ...]:
    from polygon.usecases import ComparisonError
    from polygon_core.adapters.agents import AgentConfigError
    from polygon_core.files import FileErrors, PolygonFileError

    return (PolygonFileError, FileErrors, AgentConfigError, ComparisonError, FileNotFoundError, ValueError)


def _error_lines(exc: BaseException) -> list[str]:
    """One line per problem: FileErrors' list, a pydantic error's entries (a bad POLYGON_* setting:
    `field: message`), else the message."""
    errors = getattr(exc, "errors", [])
    if callable(errors):  # pydantic's ValidationError.errors()
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors()] or [str(exc)]
    return [str(e) for e in errors] or [str(exc)]


def friendly(fn: F) -> F:
    """Bad input → one clear line on stderr and exit 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except _user_errors() as exc:
            infra = infrastructure_error(exc)
            if infra is not None:  # e.g. DatabaseNotReadyError is a ValueError, but not bad input
                print_infrastructure_error(err, infra)
                raise typer.Exit(1) from None
            lines = _error_lines(exc)
            for line in lines:
                # The message is literal text: `pip install 'polygon-bench[voice]'` is not markup.
                err.print(f"[red]error:[/] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except Exception as exc:
            infra = infrastructure_error(exc)
            if infra is None:
                raise
            print_infrastructure_error(err, infra)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def quiet_prefect() -> None:
    """Before a command runs flows: quiet defaults (anything the user set wins), then a Prefect API
    that answers (the configured one, a running local server, or a patient temporary one)."""
    # Flow-run lines (progress, outcome) go to the Prefect API, shown on the run's page in the UI;
    # the terminal shows only Prefect's warnings (Polygon prints its own progress).
    os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "CRITICAL")
    # A busy or restarting API answers 503 for a while: retry longer than Prefect's default 5 times
    # (its client backs off exponentially) before a run is given up.
    os.environ.setdefault("PREFECT_CLIENT_MAX_RETRIES", "10")
    choose_api(err)


@contextlib.contextmanager
def foreground_flows() -> Iterator[None]:
    """Around a flow run the command runs in this process: no flow-run heartbeats, unless asked for.

    Prefect's default (a heartbeat every 180 s) costs a foreground command about a second at exit:
    a sync flow run joins its heartbeat thread, which sleeps in 1 s steps. Heartbeats only serve
    a zombie-detection automation, and a command in the foreground is watched (an interrupt
    still ends its run). `PREFECT_FLOWS_HEARTBEAT_FREQUENCY`, set in the environment or the
    Prefect profile, keeps them; deployment runs (a worker's) keep Prefect's default.
    """
    from prefect.settings import temporary_settings

    if _heartbeats_asked_for():
        yield
        return
    with temporary_settings(updates={"flows.heartbeat_frequency": None}):
        yield


_HEARTBEAT_VARIABLES = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")  # the second: legacy


def _heartbeats_asked_for() -> bool:
    """Whether the heartbeat frequency is set in the environment or the active Prefect profile."""
    from prefect.context import get_settings_context

    profile = get_settings_context().profile.settings
    return any(os.environ.get(name) for name in _HEARTBEAT_VARIABLES) or any(
        setting.name in _HEARTBEAT_VARIABLES for setting in profile)
