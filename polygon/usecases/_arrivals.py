"""Calls arriving: one call per voice-platform webhook, files in an S3 prefix; each imported once.

Every arrival is a row of the call-object ledger (revision 0006) and waits there until the
import-calls flow imports it (``import_arrivals``), so a burst of arrivals is imported together.

* A webhook's call (``receive_call``) is parsed by its platform's format and redacted *before*
  anything is written: what is stored (``arrivals/<source>/…jsonl``, in Polygon's import format) is
  the redacted call, under its stored id. A call already imported, or already waiting, is a no-op.
* An S3 object (``pull_source``, or an S3 event notification through ``record_objects``) is
  remembered by key and ETag: listed again unchanged, it is skipped.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from polygon_core import content_hash
from polygon_core.adapters.storage import CallObject, CallObjectLedger, ImportLedger
from polygon_core.imports import (
    ImportedCall,
    ImportProblem,
    Source,
    SourcesFile,
    format_for,
    load_sources,
    read_calls,
    to_conversation,
)
from polygon_core.models import Conversation
from polygon_core.redaction import RedactionSettings, Redactor, redact_conversation, redact_value

from ._common import Stores
from ._identifiers import identifier_redactor
from ._production import UNKNOWN_AGENT, AgentIdentity, import_file, redaction_settings, slug

__all__ = [
    "Arrival",
    "ArrivalReport",
    "CallRejectedError",
    "arrivals_markdown",
    "configured_sources",
    "import_arrivals",
    "list_objects",
    "pull_source",
    "receive_call",
    "record_objects",
    "source_redaction",
]

WEBHOOK_ETAG = "webhook"  # a webhook's call is one arrival per call id, whatever its content


class CallRejectedError(ValueError):
    """A webhook payload that is not a call Polygon can import (the message says why)."""


@dataclass(frozen=True)
class Arrival:
    """What receiving one call did: `fresh` is False for a duplicate or an already imported call."""

    source: str
    external_id: str
    location: str | None
    fresh: bool
    reason: str = ""
    dated_by_arrival: str | None = None  # set when the call had no start time: the time it arrived


@dataclass
class ArrivalReport:
    """Per source: how many files arrived, calls were imported, duplicates, rejected, graded."""

    source: str
    arrived: int = 0
    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    graded: int = 0
    errors: list[str] = field(default_factory=list)
    external_ids: list[str] = field(default_factory=list)  # the calls this import stored


def configured_sources(stores: Stores, path: str | None = None) -> SourcesFile:
    """The sources file (`path`, else POLYGON_SOURCES); ValueError when neither is set."""
    where = path or stores.settings.sources
    if where is None:
        raise ValueError("no sources file: set POLYGON_SOURCES (see `polygon sources validate`)")
    return load_sources(where)


def source_redaction(stores: Stores, source: Source) -> RedactionSettings:
    """The settings' redaction, with the source's phone-number region when it names one."""
    base = redaction_settings(stores.settings)
    if source.redaction_region is None:
        return base
    return RedactionSettings(patterns=base.patterns, phone_region=source.redaction_region,
                             keep_originals=base.keep_originals)


# -- webhooks ----------------------------------------------------------------------------------


def receive_call(stores: Stores, name: str, source: Source, record: Any, *,
                 received_at: str | None = None) -> Arrival:
    """Redact one call record (the platform's call object) and hold it until the import.

    A call without a start time is dated `received_at` (ISO UTC, when the webhook came; recorded as
    ``metadata.started_at_from: "arrival"``), so it falls in a grading window rather than none.
    Raises CallRejectedError when the record is not an importable call (the parser's reason).
    """
    call = _parse_one(record, source.platform)
    dated = None
    if call.started_at is None and received_at is not None:
        dated = received_at
        call = replace(call, started_at=received_at, metadata={**call.metadata, "started_at_from": "arrival"})
    redaction = source_redaction(stores, source)
    ids = identifier_redactor(stores, redaction)
    stored_id = ids(call.external_id)
    if ImportLedger(stores.repo.engine).known(name, [stored_id]):
        return Arrival(name, stored_id, None, False, "already imported")
    redactor = Redactor(redaction)
    redacted = redact_conversation(to_conversation(call, source=name, agent_name=UNKNOWN_AGENT,
                                                   agent_version=UNKNOWN_AGENT), redactor, ids)
    key = f"arrivals/{slug(name)}/{content_hash(stored_id, 16)}.jsonl"
    location = stores.artifacts.put_text(key, json.dumps(_polygon_record(call, redacted, stored_id, redactor)) + "\n")
    fresh = CallObjectLedger(stores.repo.engine).record([CallObject(
        source=name, key=f"webhook:{stored_id}", etag=WEBHOOK_ETAG, via="webhook", location=location,
        fmt="polygon")])
    return Arrival(name, stored_id, location, bool(fresh), "" if fresh else "already received", dated)


def _parse_one(record: Any, platform: str) -> ImportedCall:
    text = json.dumps(record) + "\n"
    items = list(read_calls(io.StringIO(text), platform, name="webhook.jsonl"))
    if len(items) != 1:
        raise CallRejectedError(f"expected one call, found {len(items)}")
    if isinstance(items[0], ImportProblem):
        raise CallRejectedError(items[0].reason)
    return items[0]


def _polygon_record(call: ImportedCall, redacted: Conversation, stored_id: str,
                    redactor: Redactor) -> dict[str, Any]:
    """The redacted call in Polygon's import format (turn times kept: they are not personal)."""
    times = [t.at for t in call.turns]
    return {"id": stored_id, "started_at": call.started_at, "ended_at": call.ended_at,
            "end_reason": call.end_reason, "scenario": call.scenario, "language": call.language,
            # the platform's ids and end reason; redacted all the same (a caller's number as an id)
            "metadata": redact_value(dict(call.metadata), redactor),
            "turns": [{"speaker": t.speaker, "text": t.text, "at": times[i] if i < len(times) else None,
                       "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments,
                                       "result": c.result, "error": c.error} for c in t.tool_calls]}
                      for i, t in enumerate(redacted.turns)]}


# -- S3 objects --------------------------------------------------------------------------------


def list_objects(prefix: str, endpoint_url: str | None = None) -> list[tuple[str, str]]:
    """(s3:// URI, ETag) of every object under an ``s3://bucket/prefix``, sorted by key."""
    import boto3

    bucket, _, key_prefix = prefix[5:].partition("/")
    client = boto3.client("s3", endpoint_url=endpoint_url)
    found: list[tuple[str, str]] = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=key_prefix):
        found.extend((f"s3://{bucket}/{o['Key']}", str(o.get("ETag", "")).strip('"'))
                     for o in page.get("Contents", []) if not o["Key"].endswith("/"))
    return sorted(found)


def record_objects(stores: Stores, name: str, source: Source, objects: Sequence[tuple[str, str]], *,
                   via: str) -> list[CallObject]:
    """Remember objects (URI, ETag) of a source; returns the ones never seen before (now pending)."""
    # The source's platform is the format of its files (a CSV source's objects are CSV).
    arrivals = [CallObject(source=name, key=uri, etag=etag or "-", via=via, location=uri,
                           fmt=format_for(uri, source.platform)) for uri, etag in objects]
    return CallObjectLedger(stores.repo.engine).record(arrivals)


def pull_source(stores: Stores, name: str, source: Source) -> list[CallObject]:
    """List the source's S3 prefix and record the new objects (none when it has no prefix)."""
    if source.s3_prefix is None:
        return []
    return record_objects(stores, name, source, list_objects(source.s3_prefix, stores.settings.s3_endpoint_url),
                          via="s3-pull")


# -- importing what arrived ----------------------------------------------------------------------


def import_arrivals(stores: Stores, sources: SourcesFile, batch: str,
                    only: str | None = None) -> list[ArrivalReport]:
    """Import every waiting arrival (of the configured sources, or of `only`) as one import `batch`.

    Each file is imported with its source's agent and redaction; the calls stored come back per
    source (for grading on arrival). Arrivals of a source no longer configured keep waiting.
    """
    ledger = CallObjectLedger(stores.repo.engine)
    reports: dict[str, ArrivalReport] = {}
    agents: dict[str, AgentIdentity] = {}
    for arrival in ledger.pending(only):
        source = sources.sources.get(arrival.source)
        if source is None:
            continue
        report = reports.setdefault(arrival.source, ArrivalReport(arrival.source))
        try:
            summary = import_file(stores, arrival.location, arrival.fmt, source=arrival.source,
                                  agent=_agent_of(agents, arrival.source, source),
                                  redaction=source_redaction(stores, source), batch=batch)
        except Exception as exc:  # an unreadable file (gone, denied) must not hold up the others
            report.errors.append(f"{arrival.location}: not imported, still waiting ({type(exc).__name__}: "
                                 f"{str(exc).splitlines()[0][:200] if str(exc) else ''})")
            continue
        ledger.mark_imported(arrival, batch=batch, imported=summary.imported,
                             duplicates=summary.duplicates, rejected=summary.rejected)
        report.arrived += 1
        report.imported += summary.imported
        report.duplicates += summary.duplicates
        report.rejected += summary.rejected
        report.errors.extend(summary.errors)
    imports = ImportLedger(stores.repo.engine)
    for report in reports.values():
        report.external_ids = [r.external_id for r in imports.in_batch(report.source, batch)]
    return [reports[name] for name in sorted(reports)]


def _agent_of(cache: dict[str, AgentIdentity], name: str, source: Source) -> AgentIdentity:
    if name not in cache:  # one agent (and suite) load per source per import
        cache[name] = AgentIdentity.from_files(source.agent, source.suite)
    return cache[name]


def arrivals_markdown(reports: Sequence[ArrivalReport], *, how: str) -> str:
    """The per-source table the Prefect UI shows for one import (`how`: the path calls came by)."""
    lines = [f"# Calls imported ({how})", "",
             "| source | files arrived | calls imported | duplicates | rejected | graded |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r.source} | {r.arrived} | {r.imported} | {r.duplicates} | {r.rejected} | {r.graded} |"
              for r in reports]
    if not reports:
        lines.append("| (nothing waiting) | 0 | 0 | 0 | 0 | 0 |")
    errors = [e for r in reports for e in r.errors]
    if errors:
        lines += ["", "Rejected:", *[f"- {e}" for e in errors[:50]]]
    lines += ["", "Imported calls are redacted before they are stored; `graded` counts the calls judged "
              "on arrival (sources with `grade_on_arrival`), by each run's recorded judge."]
    return "\n".join(lines) + "\n"
