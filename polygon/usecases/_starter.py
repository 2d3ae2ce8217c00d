"""`polygon init`: write a starter folder (suite, tool library, Python agent) from a prompt, then validate it.

The files' text is `polygon_core.starter`'s (pure); this module reads the prompt file, refuses to
overwrite a file unless asked, writes the files and validates them as `polygon validate` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from polygon_core.files import PolygonFileError, validation_warnings
from polygon_core.starter import AGENT_FILE, AGENT_MODULE, DEFAULT_COUNT, EXAMPLE_PROMPT_FILE, Starter, starter_files

from ._common import agent_identity
from ._preflight import validate_files

__all__ = ["InitReport", "init_folder"]


@dataclass(frozen=True)
class InitReport:
    """What `init_folder` wrote and what validating it found."""

    folder: Path
    written: list[Path]
    suite: Path
    agent: Path
    starter: Starter
    errors: list[PolygonFileError] = field(default_factory=list)
    warnings: list[PolygonFileError] = field(default_factory=list)
    version: str | None = None  # the agent's version, when the files are valid

    @property
    def run_id(self) -> str | None:
        """A first run's id: the agent's name and version, as the run's tables show the agent
        (`dental@1a2b3c` → `dental-1a2b3c`), so files written again make another run."""
        return None if self.version is None else f"{_name(self.folder)}-{self.version[:6]}"

    @property
    def first_conversation(self) -> str:
        """The first scenario's conversation at seed 0, as `polygon show RUN CONVERSATION` takes it."""
        return f"{self.starter.scenarios[0]}-s0"


def _name(folder: Path) -> str:
    """The agent's and suite's name: the folder's, as a lowercase slug (`my-agent` when none is left)."""
    return re.sub(r"[^a-z0-9]+", "-", folder.resolve().name.lower()).strip("-") or "my-agent"


def _prompt(path: Path) -> str:
    if not path.is_file():
        raise ValueError(f"{path}: no such prompt file" if not path.exists() else f"{path}: not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise ValueError(f"{path}: the prompt file is empty: write what your agent does, whom it helps and "
                         "what it asks callers for")
    return text


def _prompt_ref(prompt: Path | None, folder: Path) -> tuple[str, bool]:
    """How the agent file names the prompt, and whether it is copied into the folder: a prompt file
    inside the folder stays where it is (edits to it are the agent's next version); one outside
    is copied beside the agent under its own name, as an agent's prompt file must be in its folder."""
    if prompt is None:
        return EXAMPLE_PROMPT_FILE, True
    try:
        return prompt.resolve().relative_to(folder.resolve()).as_posix(), False
    except ValueError:
        taken = {f"{AGENT_MODULE}.py", AGENT_FILE}
        return (prompt.name if prompt.name not in taken else EXAMPLE_PROMPT_FILE), True


def init_folder(folder: Path, prompt: Path | None = None, *, force: bool = False,
                count: int = DEFAULT_COUNT) -> InitReport:
    """Write the starter files for `prompt` (None: the bicycle shop example) into `folder`, then
    validate the suite and the agent file.

    Nothing is written when any file would be overwritten and not `force` (ValueError naming it).
    A prompt file inside `folder` is named by its path there, so the prompt stays the user's own
    file; one outside is copied in (`_prompt_ref`); without a prompt, the example's is written to
    `prompt.txt`.
    """
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder}: not a folder")
    text = _prompt(prompt) if prompt is not None else None
    ref, copy = _prompt_ref(prompt, folder)
    starter = starter_files(text, name=_name(folder), prompt_ref=ref, write_prompt=copy, count=count)
    targets = [folder / relative for relative in starter.files]
    existing = [t for t in targets if t.exists()]
    if existing and not force:
        raise ValueError(f"{existing[0]} already exists: polygon init writes no file over another "
                         "(--force overwrites them)")
    for target, content in zip(targets, starter.files.values(), strict=True):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except OSError as exc:  # a read-only folder, or a folder where a file should be
            raise ValueError(f"{target}: cannot write it: {exc.strerror or exc}") from None
    suite, agent = folder / starter.suite, folder / starter.agent
    errors = validate_files([suite, agent])
    version = None if errors else agent_identity(str(agent), str(suite))[2]
    return InitReport(folder=folder, written=targets, suite=suite, agent=agent, starter=starter,
                      errors=errors, warnings=validation_warnings([suite, agent]), version=version)
