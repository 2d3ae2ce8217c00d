"""Probe definitions, the probe library file, wording hashes and answer parsing."""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import ConfigDict, Field, ValidationError

from polygon_core.models import FileModel, ProbeValue

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

    The file is YAML: either a list of probes or a mapping with a `probes` list. Any problem
    (unreadable file, bad YAML, wrong shape, an invalid probe, a duplicate id) raises ValueError
    naming the file and the problem.
    """
    if path is None:
        return list(_bundled_probes())
    label = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{label}: cannot read probe library: {exc}") from exc
    return _parse_library(text, label)


def default_probes() -> list[Probe]:
    """The bundled default probe library."""
    return list(_bundled_probes())


@lru_cache(maxsize=1)
def _bundled_probes() -> tuple[Probe, ...]:
    text = resources.files("polygon_core.probes").joinpath(_BUNDLED).read_text(encoding="utf-8")
    return tuple(_parse_library(text, f"polygon_core/probes/{_BUNDLED} (bundled)"))


def _parse_library(text: str, label: str) -> list[Probe]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{label}: invalid YAML: {exc}") from exc
    entries = _probe_entries(data, label)
    probes: list[Probe] = []
    seen: set[str] = set()
    for position, entry in enumerate(entries):
        probe = _parse_probe(entry, position, label)
        if probe.id in seen:
            raise ValueError(f"{label}: duplicate probe id {probe.id!r}")
        seen.add(probe.id)
        probes.append(probe)
    return probes


def _probe_entries(data: Any, label: str) -> list[Any]:
    if isinstance(data, dict):
        unknown = sorted(str(key) for key in data if key != "probes")
        if unknown:
            raise ValueError(f"{label}: unknown top-level keys: {', '.join(unknown)}")
        data = data.get("probes")
    if not isinstance(data, list):
        raise ValueError(f"{label}: expected a list of probes (or a mapping with a `probes` list)")
    return data


def _parse_probe(entry: Any, position: int, label: str) -> Probe:
    if not isinstance(entry, dict):
        raise ValueError(f"{label}: probe #{position + 1} is not a mapping")
    try:
        return Probe.model_validate(entry)
    except ValidationError as exc:
        name = entry.get("id", f"#{position + 1}")
        raise ValueError(f"{label}: probe {name!r} is invalid: {exc}") from exc


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
