"""Generated personas as YAML files in the artifact store, with status and staleness.

Layout: `personas/<agent name>/<prompt hash>/<persona id>.yaml`, one PersonaRecord per file, so a
person can export them, review and edit them, import them back and pin the ones to keep.

Statuses: `active` (made from the agent's current prompt), `stale` (made from an older prompt: kept,
never deleted), `pinned` (reviewed and kept on purpose: never marked stale or replaced), `failed`
(generation failed after its retries; the record carries the error).
"""

from __future__ import annotations

import builtins  # the store has a `list` method: annotations after it name the builtin explicitly
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..files import FileErrors, PolygonFileError, parse_yaml, validate_document
from ..models import Scenario
from ..personas import GenerationResult, PersonaRecord, PersonaStatus, persona_id
from .artifacts import ArtifactStore

__all__ = [
    "PersonaSelection",
    "PersonaStore",
    "StalePersonasError",
    "bind_persona",
    "check_personas_fresh",
    "persona_key",
    "persona_suite",
    "records_from_result",
    "use_personas",
]

ROOT = "personas"


class StalePersonasError(ValueError):
    """A run was asked to use personas made from an older prompt (and not told to allow them)."""

    def __init__(self, agent: str, stale: Sequence[PersonaRecord], current_hash: str) -> None:
        self.stale = list(stale)
        names = ", ".join(f"{r.id} (prompt {r.prompt_hash})" for r in self.stale)
        super().__init__(
            f"agent {agent!r}: {len(self.stale)} persona(s) were generated from an older prompt than "
            f"the current one ({current_hash}): {names}; run `polygon personas generate --agent …` to "
            "regenerate them, or pass --allow-stale to use them anyway")


def _safe(name: str) -> str:
    # Agent names are free text; keys must be plain path segments.
    return re.sub(r"[^A-Za-z0-9_.\-]+", "-", name).strip("-.") or "agent"


def persona_key(agent: str, prompt_hash: str, pid: str) -> str:
    """Where one persona lives in the artifact store."""
    return f"{ROOT}/{_safe(agent)}/{_safe(prompt_hash)}/{_safe(pid)}.yaml"


def record_yaml(record: PersonaRecord) -> str:
    """A record as reviewable YAML (field order kept, None fields left out)."""
    data = record.model_dump(mode="json", exclude_none=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def read_record(text: str, source: str) -> PersonaRecord:
    """Parse one record's YAML; errors name `source`, the line and the field (FileErrors)."""
    return validate_document(parse_yaml(text, source), PersonaRecord)


def records_from_result(result: GenerationResult, *, agent: str, prompt_hash: str) -> list[PersonaRecord]:
    """Records for a generation's personas (active) and its failures (failed)."""
    records = [PersonaRecord(id=persona_id(p, c.task), agent=agent, prompt_hash=prompt_hash,
                             status="active", task=c.task, generator=result.generator, persona=p)
               for p, c in zip(result.personas, result.cells, strict=True)]
    for f in result.failures:
        records.append(PersonaRecord(id=f"failed-{f.cell.label}", agent=agent, prompt_hash=prompt_hash,
                                     status="failed", task=f.cell.task, generator=result.generator,
                                     error=f"{f.attempts} attempt(s): {f.error}"))
    return records


@dataclass
class PersonaStore:
    """Personas of every agent, over any ArtifactStore (local folder or S3)."""

    artifacts: ArtifactStore

    def save(self, record: PersonaRecord) -> str:
        """Store (or replace) one record; returns its URI."""
        return self.artifacts.put_text(persona_key(record.agent, record.prompt_hash, record.id),
                                       record_yaml(record), content_type="application/yaml")

    def list(self, agent: str | None = None, *, statuses: Iterable[PersonaStatus] | None = None
             ) -> list[PersonaRecord]:
        """Stored records (of one agent), sorted by agent, prompt hash and id."""
        prefix = f"{ROOT}/{_safe(agent)}/" if agent else f"{ROOT}/"
        wanted = set(statuses) if statuses is not None else None
        out = []
        for key in self.artifacts.list(prefix):
            if not key.endswith(".yaml"):
                continue
            record = read_record(self.artifacts.get_text(key), key)
            if wanted is None or record.status in wanted:
                out.append(record)
        return out

    def get(self, pid: str, agent: str | None = None) -> PersonaRecord:
        """The record with this id (ValueError naming the id when there is none, or several)."""
        found = [r for r in self.list(agent) if r.id == pid]
        if not found:
            raise ValueError(f"no stored persona {pid!r}" + (f" for agent {agent!r}" if agent else ""))
        if len(found) > 1:
            where = ", ".join(f"{r.agent}/{r.prompt_hash}" for r in found)
            raise ValueError(f"persona id {pid!r} is stored more than once ({where}); name the agent")
        return found[0]

    def set_status(self, record: PersonaRecord, status: PersonaStatus) -> PersonaRecord:
        """Store the record with a new status."""
        updated = record.model_copy(update={"status": status})
        self.save(updated)
        return updated

    def pin(self, pid: str, agent: str | None = None) -> PersonaRecord:
        """Pin a persona: it is never marked stale and never replaced by regeneration."""
        return self.set_status(self.get(pid, agent), "pinned")

    def mark_stale(self, agent: str, current_hash: str) -> builtins.list[PersonaRecord]:
        """Mark the agent's active personas from any other prompt hash stale; returns them."""
        marked = [self.set_status(r, "stale") for r in self.list(agent, statuses=["active"])
                  if r.prompt_hash != current_hash]
        return marked

    def replace_generation(self, agent: str, prompt_hash: str,
                           records: Sequence[PersonaRecord]) -> builtins.list[str]:
        """Store a new generation for (agent, prompt hash).

        Earlier active or failed records of the same prompt that the new generation does not
        contain are marked stale (kept, never deleted); pinned records are left as they are and a
        new record never overwrites a pinned one with the same id. Returns the stored ids.
        """
        new_ids = {r.id for r in records}
        for old in self.list(agent, statuses=["active", "failed"]):
            if old.prompt_hash == prompt_hash and old.id not in new_ids:
                self.set_status(old, "stale")
        pinned = {r.id for r in self.list(agent, statuses=["pinned"]) if r.prompt_hash == prompt_hash}
        stored = []
        for record in records:
            if record.id in pinned:
                continue
            self.save(record)
            stored.append(record.id)
        return stored

    def export(self, folder: Path, agent: str | None = None, *, include_stale: bool = False) -> builtins.list[Path]:
        """Write records (active, pinned and failed; stale too on request) as YAML files to `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for record in self.list(agent):
            if record.status == "stale" and not include_stale:
                continue
            path = folder / f"{_safe(record.agent)}__{_safe(record.id)}.yaml"
            path.write_text(record_yaml(record), encoding="utf-8")
            paths.append(path)
        return paths

    def import_files(self, paths: Iterable[Path]) -> builtins.list[PersonaRecord]:
        """Read edited YAML files back (all validated before any is stored); returns the records.

        Raises FileErrors naming every bad file, line and field; nothing is stored then.
        """
        records, errors = [], []
        for path in paths:
            try:
                records.append(read_record(path.read_text(encoding="utf-8"), str(path)))
            except PolygonFileError as exc:
                errors.append(exc)
            except FileErrors as exc:
                errors.extend(exc.errors)
        if errors:
            raise FileErrors(errors)
        for record in records:
            if record.persona is not None and record.persona.prompt_version not in (None, record.prompt_hash):
                raise ValueError(f"persona {record.id!r}: persona.prompt_version "
                                 f"{record.persona.prompt_version!r} differs from prompt_hash "
                                 f"{record.prompt_hash!r}")
            self.save(record)
        return records


@dataclass(frozen=True)
class PersonaSelection:
    """The personas a run uses, and the stale ones it left out (or used because allowed)."""

    used: list[PersonaRecord]
    stale: list[PersonaRecord]
    allow_stale: bool

    def describe(self) -> str:
        """One line saying which personas the run uses."""
        line = f"using {len(self.used)} persona(s): {', '.join(r.id for r in self.used)}"
        if self.stale and self.allow_stale:
            line += f" (including {len(self.stale)} stale: {', '.join(r.id for r in self.stale)})"
        elif self.stale:
            line += (f"; {len(self.stale)} stale persona(s) left out: {', '.join(r.id for r in self.stale)}"
                     " (--allow-stale to include them)")
        return line


def check_personas_fresh(store: PersonaStore, agent: str, current_hash: str, *,
                         allow_stale: bool = False, ids: Sequence[str] | None = None
                         ) -> PersonaSelection:
    """The agent's personas a run may use; stale ones are refused unless `allow_stale`.

    First marks personas of an older prompt stale (the prompt may have changed since generation).
    With `ids`, exactly those personas are used, and any stale one among them is refused. Without,
    the agent's fresh personas (active and pinned) are used; stale ones are added only when allowed,
    and when the agent has only stale personas the run is refused. Failed records are never used.

    Raises StalePersonasError naming every stale persona refused, and ValueError when an id is
    unknown or the agent has no personas at all.
    """
    store.mark_stale(agent, current_hash)
    records = [r for r in store.list(agent) if r.status != "failed"]
    if ids is not None:
        known = {r.id for r in records}
        missing = [i for i in ids if i not in known]
        if missing:
            raise ValueError(f"agent {agent!r} has no stored persona(s): {', '.join(missing)}")
        records = [r for r in records if r.id in set(ids)]
    if not records:
        raise ValueError(f"agent {agent!r} has no generated personas; run "
                         "`polygon personas generate --agent …` first")
    fresh = [r for r in records if r.status != "stale"]
    stale = [r for r in records if r.status == "stale"]
    if stale and not allow_stale and (ids is not None or not fresh):
        raise StalePersonasError(agent, stale, current_hash)
    return PersonaSelection(used=fresh + stale if allow_stale else fresh, stale=stale,
                            allow_stale=allow_stale)


# Which suite scenario a persona's task borrows its world (context, tools) from: a tool-name word.
_TASK_TOOL_WORDS: dict[str, tuple[str, ...]] = {
    "refund": ("refund",),
    "address_change": ("address",),
    "callback": ("callback",),
    "appointment": ("book", "callback", "appointment"),
    "cancellation": ("cancel",),
    "payment": ("payment", "pay"),
    "order_status": ("order",),
}


def _template(scenarios: Sequence[Scenario], task: str | None, outcome: str) -> Scenario:
    # A task read from the prompt is named by its words ("refund_duplicate_charge"): any of them
    # that names a tool picks the world.
    words = _TASK_TOOL_WORDS.get(task or "", ()) or tuple(w for w in (task or "").split("_") if len(w) > 3)
    fits = [s for s in scenarios if any(w in tool for tool in s.tools for w in words)] or list(scenarios)
    # Prefer a world built for the same outcome (a refusal caller needs a non-refundable charge).
    return next((s for s in fits if s.persona.intended_outcome == outcome), fits[0])


def bind_persona(record: PersonaRecord, scenarios: Sequence[Scenario]) -> Scenario:
    """A scenario for one generated persona: a suite scenario for its task, with this caller in it.

    The world (tools, knowledge base, forbidden phrases) is the template scenario's; the customer
    record in its context takes the persona's identity facts so the agent can verify the caller.
    Assertions that name the template's own values (any digit) are left out: they were about the
    template's caller, not this one.
    """
    if record.persona is None:
        raise ValueError(f"persona {record.id!r} has no persona (status {record.status})")
    template = _template(scenarios, record.task, record.persona.intended_outcome)
    context = dict(template.context)
    customer = context.get("customer")
    if isinstance(customer, dict):
        truth = record.persona.ground_truth
        context["customer"] = {**customer, **{k: truth[k] for k in customer if k in truth}}
    assertions = {k: v for k, v in template.assertions.items() if not re.search(r"\d", v)}
    return template.model_copy(update={
        "id": record.id, "description": f"generated persona {record.id} in {template.id}'s world",
        "persona": record.persona, "context": context, "assertions": assertions,
        # The caller speaks the language its persona was generated in (the prompt's).
        "language": record.persona.traits.language or template.language,
        "tags": [*template.tags, "generated-persona"]})


def persona_suite(suite_path: Path, records: Sequence[PersonaRecord], out_dir: Path) -> Path:
    """Write a suite folder whose scenarios are `records` bound into `suite_path`'s scenarios.

    `suite.yaml` and `tools.yaml` are copied as they are; the folder is rewritten on every call (it
    is derived, deterministic data, so a resumed run finds the same scenarios).
    """
    from ..files import load_suite

    suite = load_suite(suite_path)
    scenarios_dir = out_dir / "scenarios"
    scenarios_dir.mkdir(parents=True, exist_ok=True)
    for old in scenarios_dir.glob("*.yaml"):
        old.unlink()
    for name in ("suite.yaml", "tools.yaml"):
        if (suite_path / name).exists():
            (out_dir / name).write_text((suite_path / name).read_text(encoding="utf-8"), encoding="utf-8")
    if suite.config.probes:
        probes = suite_path / suite.config.probes
        (out_dir / suite.config.probes).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / suite.config.probes).write_text(probes.read_text(encoding="utf-8"), encoding="utf-8")
    for record in records:
        scenario = bind_persona(record, suite.scenarios)
        data = scenario.model_dump(mode="json", exclude_none=True)
        (scenarios_dir / f"{_safe(record.id)}.yaml").write_text(
            yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")
    return out_dir


def use_personas(store: PersonaStore, suite_path: Path, agent_path: Path, home: Path, *,
                 allow_stale: bool = False) -> tuple[Path, PersonaSelection]:
    """Check an agent's personas are fresh and write the suite that runs them (see `persona_suite`).

    Raises StalePersonasError (naming them) when the personas are stale and not allowed.
    """
    from ..files import load_agent

    loaded = load_agent(agent_path)
    selection = check_personas_fresh(store, loaded.config.name, loaded.prompt_hash,
                                     allow_stale=allow_stale)
    out = home / "persona-suites" / _safe(loaded.config.name) / _safe(loaded.prompt_hash)
    return persona_suite(suite_path, selection.used, out), selection
