"""Expanding a sweep spec into points, each an immutable, content-hashed profile."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from .._hashing import canonical_json, content_hash, stable_seed
from ..models import DomainModel
from ._spec import SweepSpec


class SweepPoint(DomainModel):
    """One point: parameter values over the base. Its id is a hash of the values (immutable)."""

    index: int
    values: dict[str, Any] = Field(default_factory=dict, description="parameter → value (overrides)")
    is_base: bool = False

    @property
    def profile(self) -> str:
        """Content hash of the overrides: the same values are always the same profile version."""
        return content_hash(self.values, 10)

    def label(self) -> str:
        """A short human label."""
        if not self.values:
            return "base"
        return ", ".join(f"{k}={v}" for k, v in sorted(self.values.items()))


def _dedupe(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for p in points:
        key = canonical_json(p)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def expand_points(spec: SweepSpec, base_values: Mapping[str, Any]) -> list[SweepPoint]:
    """The points a spec runs, base first for `one_at_a_time`.

    - `one_at_a_time`: the base, then each parameter alone at each value that differs from the base
      (two parameters with three values each, the base value among them: 1 + 2 + 2 = 5 points).
    - `grid`: the full product of all values.
    - `random`: `points` distinct draws from the product, chosen with `seed` (same seed, same points).
    Points with identical values are run once.
    """
    names = sorted(spec.parameters)
    # A spec is validated with at most MAX_SWEEP_POINTS planned points, so what is made here is
    # bounded; `random` never makes the grid it draws from.
    raw: list[dict[str, Any]]
    if spec.strategy == "one_at_a_time":
        raw = [{}]
        for n in names:
            raw += [{n: v} for v in spec.parameters[n].all_values()
                    if canonical_json(v) != canonical_json(base_values.get(n))]
    elif spec.strategy == "grid":
        values = [spec.parameters[n].all_values() for n in names]
        raw = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]
    else:
        rng = random.Random(stable_seed("sweep", spec.name, spec.seed))
        total = spec.combinations()
        # Drawing indices of the grid picks what drawing from the grid itself did (same seed,
        # same points), without making it.
        raw = [_combination(spec, names, index) for index in rng.sample(range(total), k=min(spec.points or 1, total))]
    unique = _dedupe(raw)
    return [SweepPoint(index=i, values=v, is_base=not v) for i, v in enumerate(unique)]


def _combination(spec: SweepSpec, names: list[str], index: int) -> dict[str, Any]:
    """The grid's `index`-th combination, in `itertools.product` order (the last name varies fastest)."""
    combo: dict[str, Any] = {}
    for name in reversed(names):
        index, position = divmod(index, spec.parameters[name].count())
        combo[name] = spec.parameters[name].value_at(position)
    return {name: combo[name] for name in names}


class SameConfiguration(DomainModel):
    """A point that configures exactly what an earlier point does: it reuses that point's result."""

    label: str
    same_as: str = Field(..., description="label of the earlier point whose run and result it reuses")
    profile: str


def distinct_points(points: list[SweepPoint], profiles: list[str]) -> tuple[list[SweepPoint], list[SameConfiguration]]:
    """The points to run, one per configuration profile (the first point of each, in order), and the
    points left out because an earlier one has their profile (a parameter at its base value)."""
    first: dict[str, SweepPoint] = {}
    same: list[SameConfiguration] = []
    for point, profile in zip(points, profiles, strict=True):
        if profile in first:
            same.append(SameConfiguration(label=point.label(), same_as=first[profile].label(), profile=profile))
        else:
            first[profile] = point
    return list(first.values()), same
