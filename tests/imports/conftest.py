"""Fixtures of the import tests: stores in a private POLYGON_HOME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from polygon import usecases


@pytest.fixture
def stores(polygon_home: Path) -> Iterator[usecases.Stores]:
    """SQLite and local artifacts under the test's POLYGON_HOME."""
    opened = usecases.open_stores()
    yield opened
    opened.repo.close()
