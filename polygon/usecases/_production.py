"""Production calls: import → redact → store (grading them is `_production_runs`).

Importing streams each file (constant memory), redacts every conversation before anything is
stored, and records it in the import ledger under (source, external id), so a re-import adds
nothing. Files are local paths, ``file://`` URIs (the local artifact store's) or ``s3://`` URIs;
the format of each is the registry's (``polygon_core.imports.format_for``).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO
from urllib.parse import unquote, urlparse
from uuid import uuid4

from pydantic import BaseModel, ConfigDict, Field

from polygon_core import content_hash
from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.storage import ImportedRecord, ImportLedger
from polygon_core.files import agent_version, load_agent
from polygon_core.imports import (
    ImportedCall,
    ImportProblem,
    check_imported_tool_calls,
    format_for,
    guess_format,
    read_calls,
    to_conversation,
)
from polygon_core.models import STORED, Conversation, Speaker, ToolDef
from polygon_core.redaction import IdentifierRedactor, RedactionSettings, Redactor, redact_conversation

from ._common import FileCaches, Stores
from ._identifiers import identifier_redactor

__all__ = [
    "UNKNOWN_AGENT",
    "AgentIdentity",
    "CallOrigin",
    "ImportSummary",
    "call_origins",
    "import_calls",
    "import_file",
    "import_formats",
    "import_key",
    "list_source_files",
    "load_imported",
    "local_path",
    "redaction_settings",
    "slug",
]

UNKNOWN_AGENT = "unknown"
_BATCH = 500  # conversations per ledger transaction: bounds memory and amortises commits


class ImportSummary(BaseModel):
    """How an import went; `errors` name each bad row or conversation with its line."""

    model_config = ConfigDict(extra="forbid")

    read: int = 0
    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    errors: list[str] = Field(default_factory=list)

    def add(self, other: ImportSummary) -> None:
        """Fold another file's summary into this one."""
        self.read += other.read
        self.imported += other.imported
        self.duplicates += other.duplicates
        self.rejected += other.rejected
        self.errors.extend(other.errors)


@dataclass(frozen=True)
class AgentIdentity:
    """Which agent answered the imported calls (name and content version)."""

    name: str = UNKNOWN_AGENT
    version: str = UNKNOWN_AGENT
    agent_path: str | None = None  # the files it was read from: grading later uses its rules
    suite_path: str | None = None
    tools: Mapping[str, ToolDef] = field(default_factory=dict)  # the suite's tool library

    @classmethod
    def from_files(cls, agent_path: str | None, suite_path: str | None = None, *,
                   caches: FileCaches | None = None) -> AgentIdentity:
        """From an agent YAML; with a suite, the same version a synthetic run of it records (and the
        suite's tool library, to check imported tool calls against). `caches`: a `Stores`' own."""
        if agent_path is None:
            return cls()
        where = str(Path(agent_path).resolve())
        if suite_path is not None:
            from ._common import agent_identity

            caches = caches or FileCaches()  # one read of each file, for the version and the tools
            config, _prompt, version = agent_identity(agent_path, suite_path, caches=caches)
            return cls(config.name, version, where, str(Path(suite_path).resolve()),
                       dict(caches.suite(suite_path).tools))
        loaded = load_agent(Path(agent_path))
        code = (caches or FileCaches()).code(agent_path)  # a Python agent's code is part of its version
        return cls(loaded.config.name, agent_version(loaded.config, loaded.prompt_text, code=code), where)


def _agent_key(source: str, version: str) -> str:
    return f"imports/{slug(source)}/agents/{version}.json"


def _record_agent(stores: Stores, source: str, agent: AgentIdentity) -> None:
    # Which files the importing agent came from, so grading applies its forbidden phrases without
    # `--agent` being given again.
    if agent.agent_path is None:
        return
    stores.artifacts.put_text(_agent_key(source, agent.version), json.dumps(
        {"agent_path": agent.agent_path, "suite_path": agent.suite_path, "version": agent.version}))


def recorded_agent_path(stores: Stores, source: str, version: str) -> str | None:
    """The agent file the calls of `version` were imported with, while it is still that version."""
    key = _agent_key(source, version)
    if not stores.artifacts.exists(key):
        return None
    record = json.loads(stores.artifacts.get_text(key))
    path = record.get("agent_path")
    if not path or not Path(path).exists():
        return None
    now = AgentIdentity.from_files(path, record.get("suite_path") if record.get("suite_path")
                                   and Path(record["suite_path"]).exists() else None, caches=stores.caches)
    # An edited agent file is another agent: grading with its rules would misjudge these calls.
    return path if now.version == version else None


def redaction_settings(settings: PolygonSettings) -> RedactionSettings:
    """The redaction the settings ask for (read at the edge; the redactor itself is pure)."""
    return RedactionSettings(patterns=dict(settings.redact_patterns),
                             phone_region=settings.redact_phone_region,
                             keep_originals=settings.redact_keep_originals)


def slug(source: str) -> str:
    """A source name as a folder name: readable, and unique by its hash."""
    plain = re.sub(r"[^A-Za-z0-9._-]+", "-", source).strip("-")[:40] or "source"
    return f"{plain}-{content_hash(source, 6)}"


def import_key(source: str, part: str, *, original: bool = False) -> str:
    """Where a batch of imported transcripts lives (JSON Lines; the unredacted copies apart).

    One artifact per batch of conversations, not per conversation: an artifact write is durable
    (fsync), and one per call would bound an import at a few hundred calls a second.
    """
    folder = "originals" if original else "conversations"
    return f"imports/{slug(source)}/{folder}/{part}.jsonl"


def load_imported(stores: Stores, artifact_uri: str, cache: dict[str, list[str]] | None = None
                  ) -> Conversation:
    """An imported conversation from its ledger URI (``<batch artifact>#<line index>``)."""
    base, _, index = artifact_uri.rpartition("#")
    cache = {} if cache is None else cache
    if base not in cache:
        cache.clear()  # one batch at a time: bounded memory while grading a window in order
        cache[base] = stores.artifacts.get_text(base).splitlines()
    return Conversation.model_validate_json(cache[base][int(index)], context=STORED)


# -- reading files (local or S3) ---------------------------------------------------------------


@contextmanager
def _open_text(location: str, endpoint_url: str | None) -> Iterator[TextIO]:
    if location.startswith("s3://"):
        import boto3

        bucket, _, key = location[5:].partition("/")
        body = boto3.client("s3", endpoint_url=endpoint_url).get_object(Bucket=bucket, Key=key)["Body"]
        # newline="": the CSV reader needs line endings untouched; the JSON readers do not care.
        with io.TextIOWrapper(body, encoding="utf-8-sig", newline="") as stream:
            yield stream
        return
    with open(local_path(location), encoding="utf-8-sig", newline="") as stream:
        yield stream


def local_path(location: str) -> str:
    """A local path, or the path of a ``file://`` URI (what the local artifact store hands out)."""
    if location.startswith("file://"):
        return unquote(urlparse(location).path)
    return location


def list_source_files(location: str, endpoint_url: str | None = None) -> list[str]:
    """Files under a local folder (or one file), or objects under an ``s3://bucket/prefix``."""
    if location.startswith("s3://"):
        import boto3

        bucket, _, prefix = location[5:].partition("/")
        client = boto3.client("s3", endpoint_url=endpoint_url)
        keys: list[str] = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            keys.extend(o["Key"] for o in page.get("Contents", []) if not o["Key"].endswith("/"))
        return [f"s3://{bucket}/{k}" for k in sorted(keys)]
    path = Path(location)
    if path.is_file():
        return [str(path)]
    if not path.is_dir():
        raise FileNotFoundError(f"{location}: no such file or folder")
    return [str(p) for p in sorted(path.rglob("*")) if p.is_file() and not p.name.startswith(".")]


# -- importing ---------------------------------------------------------------------------------


def import_file(stores: Stores, location: str, fmt: str, *, source: str,
                agent: AgentIdentity = AgentIdentity(),
                speaker_map: Mapping[str, Speaker] | None = None,
                redaction: RedactionSettings | None = None, batch: str | None = None,
                batch_size: int = _BATCH) -> ImportSummary:
    """Import one file (local path or s3:// URI): redact, store, record; never the same call twice.

    `batch` names this import (a fresh id when None): a conversation already recorded by the
    same batch is a duplicate *inside* the import and is reported with both lines; one recorded
    by an earlier import is just counted as a duplicate (a re-import).
    """
    batch = batch or uuid4().hex
    redaction = redaction or redaction_settings(stores.settings)
    ids = identifier_redactor(stores, redaction)
    ledger = ImportLedger(stores.repo.engine)
    summary = ImportSummary()
    name = location.rsplit("/", 1)[-1]
    pending: list[ImportedCall] = []
    with _open_text(location, stores.settings.s3_endpoint_url) as stream:
        for item in read_calls(stream, fmt, speaker_map=speaker_map, name=name):
            summary.read += 1
            if isinstance(item, ImportProblem):
                summary.rejected += 1
                summary.errors.append(str(_with_file(item, location, ids)))
                continue
            # The id is the idempotency key and is stored: one holding personal data is redacted too.
            pending.append(replace(item, external_id=ids(item.external_id)))
            if len(pending) >= batch_size:
                _store_batch(stores, ledger, pending, location, source, agent, redaction, ids, batch,
                             summary)
                pending = []
        _store_batch(stores, ledger, pending, location, source, agent, redaction, ids, batch, summary)
    return summary


def _with_file(problem: ImportProblem, location: str, ids: IdentifierRedactor) -> ImportProblem:
    external = ids(problem.external_id) if problem.external_id is not None else None
    return ImportProblem(problem.line, problem.reason, external, location)


def _store_batch(stores: Stores, ledger: ImportLedger, calls: Sequence[ImportedCall], location: str,
                 source: str, agent: AgentIdentity, redaction: RedactionSettings,
                 ids: IdentifierRedactor, batch: str, summary: ImportSummary) -> None:
    if not calls:
        return
    known = ledger.known(source, [c.external_id for c in calls])
    here: dict[str, int] = {}
    rows: list[ImportedRecord] = []
    lines: list[str] = []
    originals: list[str] = []
    now = datetime.now(UTC).isoformat()
    part = f"{batch}-{content_hash([location, calls[0].line], 8)}"
    uri = stores.artifacts.uri(import_key(source, part))
    for call in calls:
        earlier = known.get(call.external_id)
        if call.external_id in here or earlier is not None:
            summary.duplicates += 1
            if call.external_id in here or (earlier is not None and earlier.batch == batch):
                first = here.get(call.external_id) or (earlier.line if earlier else 0)
                where = location if earlier is None or earlier.file == location else earlier.file
                summary.errors.append(str(ImportProblem(
                    call.line, f"duplicate conversation: already read at {where}:{first}",
                    call.external_id, location)))
            continue
        here[call.external_id] = call.line
        conversation = check_imported_tool_calls(
            to_conversation(call, source=source, agent_name=agent.name, agent_version=agent.version), agent.tools)
        # Redact first: nothing unredacted is written unless originals are explicitly kept.
        # Tool-call ids too: a CSV export's are made from the conversation id (`<id>-<turn>`).
        redacted = redact_conversation(conversation, Redactor(redaction), ids)
        if redaction.keep_originals:
            originals.append(conversation.model_dump_json())
        rows.append(ImportedRecord(
            source=source, external_id=call.external_id, conversation_id=conversation.id,
            started_at=call.started_at, scenario_id=conversation.scenario_id, agent_name=agent.name,
            agent_version=agent.version, turn_count=len(conversation.turns),
            artifact_uri=f"{uri}#{len(lines)}", batch=batch, file=location, line=call.line))
        lines.append(redacted.model_dump_json())
    if not rows:
        return
    # The transcripts are written before the ledger rows that point at them.
    if originals:
        stores.artifacts.put_text(import_key(source, part, original=True), "\n".join(originals) + "\n")
    stores.artifacts.put_text(import_key(source, part), "\n".join(lines) + "\n")
    _record_agent(stores, source, agent)
    inserted = ledger.add(rows, imported_at=now)
    summary.imported += inserted
    summary.duplicates += len(rows) - inserted  # another import stored them meanwhile


def import_calls(stores: Stores, locations: Sequence[str], fmt: str | None, *, source: str,
                 agent_path: str | None = None, suite_path: str | None = None,
                 speaker_map: Mapping[str, Speaker] | None = None) -> ImportSummary:
    """Import files (paths or s3:// URIs) into `source`; one summary over all of them."""
    agent = AgentIdentity.from_files(agent_path, suite_path, caches=stores.caches)
    redaction = redaction_settings(stores.settings)
    batch = uuid4().hex
    total = ImportSummary()
    for location in locations:
        total.add(import_file(stores, location, format_for(location, fmt), source=source,
                              agent=agent, speaker_map=speaker_map, redaction=redaction, batch=batch))
    return total


def import_formats(locations: Sequence[str], fmt: str | None,
                   source: str | None = None) -> tuple[str | None, str]:
    """(`fmt`, the source) for `polygon import`: with `fmt`, that format for every file; without,
    the format each file's name says (`guess_format`, the rule grade-calls uses). The source is
    `source`, else the format's name.

    Raises ValueError (one line naming ``--format`` and the formats) when a name says nothing,
    rather than reading the file as Polygon's format; and, without `source`, when the names say
    different formats (the source would default to only one of them).
    """
    if fmt is not None:
        return fmt, source or fmt
    from polygon_core.imports import FORMATS

    guessed = {location: guess_format(location) for location in locations}
    unknown = [location for location, name in guessed.items() if name is None]
    if unknown:
        raise ValueError(f"{unknown[0]}: the file name does not say its format; give --format "
                         f"({' | '.join(FORMATS)})")
    kinds = sorted({name for name in guessed.values() if name is not None})
    if source is None and len(kinds) > 1:
        raise ValueError(f"the file names say different formats ({', '.join(kinds)}): give --source, "
                         "the source they are imported into")
    return None, source or kinds[0]


@dataclass(frozen=True)
class CallOrigin:
    """Where a production conversation came from: its source and the platform's own call id (as
    stored: an id holding personal data is its ``redacted-…`` HMAC), so a bad call can be found in
    the platform that made it."""

    source: str
    external_id: str

    def as_dict(self) -> dict[str, str]:
        """The JSON shape shown with a conversation: ``{"source": …, "external_id": …}``."""
        return {"source": self.source, "external_id": self.external_id}


def call_origins(stores: Stores, conversation_ids: Sequence[str]) -> dict[str, CallOrigin]:
    """The origin of each imported conversation among `conversation_ids`, from the import ledger
    (a lookup of these ids only: a page of rows costs one query of ledger rows, no transcript).
    Synthetic conversations are not in the ledger and are left out."""
    found = ImportLedger(stores.repo.engine).origins(conversation_ids)
    return {cid: CallOrigin(source, external) for cid, (source, external) in found.items()}
