"""The rubric versions are the rubric files: `KNOWN_VERSIONS` is read from `rubrics/*.yaml`, so a new
version is one new file (before, a hand-kept tuple beside the files had to name it too)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from polygon_core.scoring import KNOWN_VERSIONS, get_rubric
from polygon_core.scoring._rubric import bundled_versions
from tests.conftest import REPO


@pytest.fixture
def rubric_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An importable package `more_rubrics` with an empty `rubrics/` folder."""
    folder = tmp_path / "more_rubrics" / "rubrics"
    folder.mkdir(parents=True)
    (tmp_path / "more_rubrics" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    sys.modules.pop("more_rubrics", None)


def test_the_known_versions_are_the_bundled_rubric_files() -> None:
    files = sorted(p.stem for p in (REPO / "polygon_core" / "scoring" / "rubrics").glob("*.yaml"))
    assert KNOWN_VERSIONS == ("v1", "v2", "v3")
    assert sorted(KNOWN_VERSIONS) == files
    assert [get_rubric(v).version for v in KNOWN_VERSIONS] == list(KNOWN_VERSIONS)


def test_a_new_rubric_file_is_a_new_version_in_version_order(rubric_package: Path) -> None:
    for name in ("v2.yaml", "v10.yaml", "v1.yaml", "notes.md"):
        (rubric_package / name).write_text("version: x\n", encoding="utf-8")
    assert bundled_versions("more_rubrics") == ("v1", "v2", "v10")
