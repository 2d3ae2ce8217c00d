"""`polygon prompt commit`: tell Prefect a prompt changed (emits `polygon.prompt.committed`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Annotated

import typer

from ._base import console, friendly, quiet_prefect


def _repo_root(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            return folder
    return None


def _portable(path: Path, root: Path | None) -> str:
    """Repository-relative when inside a git checkout: workers resolve it in their own checkout."""
    path = path.resolve()
    if root is not None and path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return str(path)


def _head_commit(root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


@friendly
def commit(file: Annotated[Path, typer.Argument(help="the prompt file, or the agent YAML itself")],
           agent: Annotated[Path | None, typer.Option(help="agent YAML that uses the prompt file")] = None,
           suite: Annotated[Path | None, typer.Option(help="suite folder (default: the deployment's)")] = None,
           previous_run: Annotated[str | None, typer.Option(help="run to compare with (default: "
                                                            "the previous version's latest)")] = None,
           commit_sha: Annotated[str | None, typer.Option("--commit", help="git commit (default: HEAD)")] = None,
           source: Annotated[str, typer.Option(help="who is telling (cli, git-hook, …)")] = "cli",
           json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False) -> None:
    """Emit `polygon.prompt.committed`: the `reevaluate-on-prompt-commit` deployment re-runs the suite."""
    from polygon.web import PromptCommitPayload, prompt_event_spec
    from polygon_core import content_hash
    from polygon_core.files import FileErrors, PolygonFileError, detect_kind, load_agent, read_yaml

    if not file.exists():
        raise FileNotFoundError(f"{file}: no such file")
    agent_file = agent
    if agent_file is None:
        try:
            kind = detect_kind(file, read_yaml(file).data)
        except (FileErrors, PolygonFileError):
            kind = None
        if kind != "agent":
            raise ValueError(f"{file} is not an agent config: pass the agent that uses this prompt "
                             "with --agent A.yaml")
        agent_file = file  # an agent config that does not validate is refused below, with its errors
    loaded = load_agent(agent_file)
    prompt_file = loaded.prompt_path or agent_file
    if agent is not None and loaded.prompt_path is not None and loaded.prompt_path.resolve() != file.resolve():
        raise ValueError(f"{agent} uses the prompt {loaded.prompt_path}, not {file}")
    root = _repo_root(agent_file.resolve().parent)
    payload = PromptCommitPayload(
        agent_path=_portable(agent_file, root), prompt_hash=content_hash(loaded.prompt_text),
        suite_path=_portable(suite, root) if suite is not None else None,
        prompt_path=_portable(prompt_file, root), commit=commit_sha or _head_commit(root),
        previous_run_id=previous_run)
    quiet_prefect()
    from prefect.events import emit_event
    from prefect.events.worker import EventsWorker

    event = emit_event(**prompt_event_spec(payload, source=source))
    if event is None:
        raise ValueError("Prefect events are disabled here (set PREFECT_API_URL to your Prefect server)")
    EventsWorker.drain_all()  # a short-lived process: send before exiting
    if json_out:
        print(json.dumps({"event_id": str(event.id), "event": event.event, "payload": event.payload}))
    else:
        console.print(f"emitted {event.event} {event.id} for {payload.agent_path} "
                      f"(prompt {payload.prompt_hash})", highlight=False)
