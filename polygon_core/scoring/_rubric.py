"""Rubrics as data: criteria, weights, verdict thresholds and gates, loaded from bundled YAML."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

# A registered gate's name (`_gate_registry.py`): forbidden_phrase, safety, invalid_tool_call, assertion.
GateName = str

# The criterion the safety gate watches.
SAFETY_CRITERION = "safety_compliance"



def bundled_versions(package: str) -> tuple[str, ...]:
    """The rubric versions `package` bundles: the name of each `rubrics/<version>.yaml`, in version
    order (numbers compared as numbers: v2 before v10)."""
    folder = resources.files(package).joinpath("rubrics")
    found = [entry.name.removesuffix(".yaml") for entry in folder.iterdir() if entry.name.endswith(".yaml")]
    return tuple(sorted(found, key=lambda v: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", v)]))


# Read from the files, so a new rubric version is one new file (`rubrics/v4.yaml`) and no list.
KNOWN_VERSIONS: tuple[str, ...] = bundled_versions(__package__ or "polygon_core.scoring")

# The one default rubric version: a run judged under no `--rubric`, suite.yaml `rubric` or
# POLYGON_RUBRIC (docs/design.md, "Run settings: one precedence"). Every other default reads this.
DEFAULT_RUBRIC_VERSION = "v1"


class Criterion(BaseModel):
    """One weighted rubric criterion, scored 1-5 by the judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(..., min_length=1)
    weight: int = Field(..., gt=0, description="share of the composite; bundled weights sum to 100")
    description: str = ""


class Rubric(BaseModel):
    """A versioned rubric. Scores compare only within one version."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(..., min_length=1)
    criteria: list[Criterion] = Field(..., min_length=1)
    pass_threshold: float = 75.0
    warn_threshold: float = 50.0
    gates: list[GateName] = Field(default_factory=list)

    @field_validator("gates")
    @classmethod
    def _registered(cls, gates: list[str]) -> list[str]:
        from ._gate_registry import gate_names

        known = gate_names()
        unknown = [g for g in gates if g not in known]
        if unknown:
            raise ValueError(f"unknown gate(s) {', '.join(map(repr, unknown))}; known gates: {', '.join(known)}")
        return gates

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        names = [c.name for c in self.criteria]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate criteria: {', '.join(duplicates)}")
        if len(set(self.gates)) != len(self.gates):
            raise ValueError("a gate is listed twice")
        if not 0 <= self.warn_threshold <= self.pass_threshold <= 100:
            raise ValueError("thresholds must satisfy 0 <= warn_threshold <= pass_threshold <= 100")
        return self

    @property
    def criterion_names(self) -> list[str]:
        """Criterion names in rubric order."""
        return [c.name for c in self.criteria]

    @property
    def weights(self) -> dict[str, int]:
        """Criterion name → weight, in rubric order."""
        return {c.name: c.weight for c in self.criteria}


def get_rubric(version: str) -> Rubric:
    """Return the bundled rubric `version` (one of `KNOWN_VERSIONS`).

    Raises ValueError naming the known versions for any other value. Each call returns a fresh copy,
    so a caller that mutates its rubric cannot change what the next caller sees.
    """
    if version not in KNOWN_VERSIONS:
        raise ValueError(
            f"unknown rubric version {version!r}; known versions: {', '.join(KNOWN_VERSIONS)}"
        )
    return _load_bundled(version).model_copy(deep=True)


@cache
def _load_bundled(version: str) -> Rubric:
    name = f"rubrics/{version}.yaml"
    text = resources.files("polygon_core.scoring").joinpath(name).read_text(encoding="utf-8")
    try:
        rubric = Rubric.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:  # a packaging bug, but say which file
        raise ValueError(f"bundled rubric {name} is invalid: {exc}") from exc
    if rubric.version != version:
        raise ValueError(f"bundled rubric {name} declares version {rubric.version!r}")
    return rubric


def in_rubric_order(names: Iterable[str], versions: Iterable[str]) -> list[str]:
    """`names` as the rubrics `versions` list their criteria (the judge prompt's order: heaviest
    weight first), the first version's before the next's; a name no known rubric lists (a stored
    judgment's, say) follows, alphabetically. An unknown version is skipped, not an error: this
    orders what is shown."""
    given = set(names)
    ordered = [n for v in dict.fromkeys(versions) if v in KNOWN_VERSIONS for n in _load_bundled(v).criterion_names]
    known = [n for n in dict.fromkeys(ordered) if n in given]
    return known + sorted(given - set(known))


# The criteria of the first bundled rubric, in its order (v1, v2 and v3 share them): read from its
# YAML, the source of truth, so callers can name criteria without loading a rubric themselves.
CRITERIA: tuple[str, ...] = tuple(_load_bundled(KNOWN_VERSIONS[0]).criterion_names)
