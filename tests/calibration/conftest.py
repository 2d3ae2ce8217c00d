"""What the fitted-judge tests share: the stores a fit writes to (its artifact store alone)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from polygon_core.adapters.artifacts import LocalArtifactStore


@dataclass
class FakeStores:
    """The one part of `Stores` that fitting and loading a judge use."""

    artifacts: LocalArtifactStore


@pytest.fixture
def stores(tmp_path: Path) -> FakeStores:
    return FakeStores(LocalArtifactStore(tmp_path / "artifacts"))
