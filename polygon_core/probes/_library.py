"""Probe definitions, the probe library file, wording hashes and answer parsing."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from polygon_core.documents import (
    FileErrors,
    PolygonFileError,
    YamlDocument,
    errors_from_validation,
    parse_yaml,
    read_yaml,
    require_mapping,
)
from polygon_core.models import FileModel, ProbeValue

from ._signal_registry import PROBE_SIGNALS
from ._stats import Polarity

WORDING_HASH_LENGTH = 12
_HASH_TEXT = re.compile(rf"[0-9a-f]{{{WORDING_HASH_LENGTH}}}")
_BUNDLED = "library.yaml"

# Tolerated spellings of an answer after normalisation (NFKC, casefold, edge punctuation stripped).
_ANSWER_WORDS: dict[str, ProbeValue] = {
    "yes": "yes",
    "y": "yes",
    "да": "yes",
    "no": "no",
    "n": "no",
    "нет": "no",
    "na": "na",
    "n/a": "na",
    "n.a": "na",
    "not applicable": "na",
    "not_applicable": "na",
    "неприменимо": "na",
    "не применимо": "na",
    "unanswered": "unanswered",
}


class Probe(FileModel):
    """One yes/no question about one behaviour of the agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(..., pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    question: str = Field(..., min_length=1)
    polarity: Polarity
    applies_when: str | None = Field(None, description="when the question applies; None = always")
    signal: str | None = Field(None, description="key the offline heuristic answerer uses")

    @property
    def wording_hash(self) -> str:
        """Hash of the normalised question; the probe compares across runs while it is equal."""
        return wording_hash(self.question)


def normalise_wording(question: str) -> str:
    """NFKC, casefold, whitespace collapsed, trailing punctuation stripped.

    Only changes that cannot alter the meaning are erased, so a reworded question hashes apart.
    """
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", question).casefold())
    text = " ".join(text.split())
    while text and (unicodedata.category(text[-1]).startswith("P") or text[-1].isspace()):
        text = text[:-1]
    return text


def wording_hash(question: str) -> str:
    """First 12 hex characters of the SHA-256 of the normalised question's UTF-8 text."""
    digest = hashlib.sha256(normalise_wording(question).encode("utf-8")).hexdigest()
    return digest[:WORDING_HASH_LENGTH]


def comparable(a: Probe | str, b: Probe | str) -> bool:
    """True when two probes (or wording hashes, or question texts) have the same wording hash.

    A string of exactly 12 lowercase hex characters is taken as a wording hash (as stored on a
    ProbeAnswer); any other string is taken as a question and hashed.
    """
    return _hash_of(a) == _hash_of(b)


def parse_probe_answer(raw: Any) -> ProbeValue:
    """Map a model's raw answer onto yes / no / na / unanswered, tolerantly.

    "Yes", "yes.", "YES", "**No**", "n/a", "Not applicable", "да", "Нет" are understood; JSON
    booleans read as yes/no; anything else (including explanations after the word) is
    "unanswered", because guessing would put a made-up answer into a rate.
    """
    if isinstance(raw, bool):
        return "yes" if raw else "no"
    if not isinstance(raw, str):
        return "unanswered"
    text = unicodedata.normalize("NFKC", raw).casefold()
    text = " ".join(text.split())
    text = _strip_edge_punctuation(text)
    return _ANSWER_WORDS.get(text, "unanswered")


def load_probes(path: str | os.PathLike[str] | None = None) -> list[Probe]:
    """Load a probe library file (None → the bundled library).

    The file is YAML: a mapping with a `probes` list (or a bare list of probes). Every problem is
    reported at once, as scenario files are: a FileErrors with one `file:line: field: message`
    line per problem (an unreadable file, bad YAML, the wrong shape, an invalid field, a duplicate
    id, a `signal` the offline answerer does not know).
    """
    if path is None:
        return list(_bundled_probes())
    try:
        doc = read_yaml(Path(path))
    except PolygonFileError as exc:
        raise FileErrors([exc]) from None
    return _probes_from_document(doc)


def default_probes() -> list[Probe]:
    """The bundled default probe library."""
    return list(_bundled_probes())


class ProbeLibrary(FileModel):
    """A probe library file: `probes:` listing the probes, each id once."""

    probes: list[Probe] = Field(..., description="the probes; an empty list asks no questions")


@lru_cache(maxsize=1)
def _bundled_probes() -> tuple[Probe, ...]:
    # The bundled file is Polygon's own and tested: a problem in it is a bug, raised as is.
    text = resources.files("polygon_core.probes").joinpath(_BUNDLED).read_text(encoding="utf-8")
    return tuple(_probes_from_document(parse_yaml(text, f"polygon_core/probes/{_BUNDLED} (bundled)")))


def _probes_from_document(doc: YamlDocument) -> list[Probe]:
    model: type[BaseModel] = ProbeLibrary
    prefix: tuple[str, ...] = ("probes",)
    if isinstance(doc.data, list):
        model, prefix = RootModel[list[Probe]], ()
    else:
        try:
            require_mapping(doc, "a probe library (`probes:` listing the probes)")
        except PolygonFileError as exc:
            raise FileErrors([exc]) from None
    errors: list[PolygonFileError] = []
    probes: list[Probe] = []
    try:
        parsed = model.model_validate(doc.data)
        probes = list(parsed.root if isinstance(parsed, RootModel) else parsed.probes)  # type: ignore[attr-defined]
    except ValidationError as exc:
        errors += errors_from_validation(exc, doc, model)
    entries = doc.data if isinstance(doc.data, list) else doc.data.get("probes")
    if isinstance(entries, list):
        errors += _duplicate_ids(doc, prefix, entries) + _unknown_signals(doc, prefix, entries)
    if errors:
        raise FileErrors(sorted(errors, key=lambda e: e.line or 0))
    return probes


def _duplicate_ids(doc: YamlDocument, prefix: tuple[str, ...], entries: list[Any]) -> list[PolygonFileError]:
    first: dict[str, int] = {}
    errors: list[PolygonFileError] = []
    for index, entry in enumerate(entries):
        probe_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(probe_id, str):
            continue
        if probe_id in first:
            line = doc.line_of((*prefix, first[probe_id], "id"))
            errors.append(doc.error((*prefix, index, "id"),
                                    f"duplicate probe id {probe_id!r} (first used at line {line})"))
        else:
            first[probe_id] = index
    return errors


def _unknown_signals(doc: YamlDocument, prefix: tuple[str, ...], entries: list[Any]) -> list[PolygonFileError]:
    # `signal` is the key of the offline answerer's heuristic; an unknown one would be answered
    # `unanswered` on every conversation and show as `—` with no word why.
    known = sorted(PROBE_SIGNALS)
    errors: list[PolygonFileError] = []
    for index, entry in enumerate(entries):
        signal = entry.get("signal") if isinstance(entry, dict) else None
        if isinstance(signal, str) and signal not in PROBE_SIGNALS:
            close = difflib.get_close_matches(signal, known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            errors.append(doc.error((*prefix, index, "signal"),
                                    f"unknown signal {signal!r}{hint} (the offline answerer knows: "
                                    f"{', '.join(known)}; leave `signal` out for a probe only a model answers)"))
    return errors


def _hash_of(item: Probe | str) -> str:
    if isinstance(item, Probe):
        return item.wording_hash
    if _HASH_TEXT.fullmatch(item):
        return item
    return wording_hash(item)


def _strip_edge_punctuation(text: str) -> str:
    # Quotes, markdown asterisks and full stops wrap one-word answers; symbols and letters stay.
    start, end = 0, len(text)
    while start < end and _is_edge_noise(text[start]):
        start += 1
    while end > start and _is_edge_noise(text[end - 1]):
        end -= 1
    return text[start:end]


def _is_edge_noise(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")
