"""`-o FILE` writing (polygon/cli/_outputs.py): a report is whole or absent, never half written."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from polygon.cli import _outputs


def _failing_midway(_comp: Any) -> Iterator[str]:
    yield "<testsuites>\n"
    raise RuntimeError("renderer broke")


def test_a_renderer_that_raises_midway_leaves_neither_the_report_nor_its_partial_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def renderers(_stores: Any) -> dict[str, Callable[[Any], str | Iterable[str]]]:
        return {"JUnit": _failing_midway}

    monkeypatch.setattr(_outputs, "_renderers", renderers)
    target = tmp_path / "out" / "report.xml"
    with pytest.raises(RuntimeError, match="renderer broke"):
        _outputs.write_outputs(None, None, [target])  # type: ignore[arg-type]
    assert sorted(p.name for p in target.parent.iterdir()) == []


def test_a_renderer_that_raises_midway_leaves_the_last_report_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_outputs, "_renderers", lambda _stores: {"JUnit": _failing_midway})
    target = tmp_path / "report.xml"
    target.write_text("<testsuites>last run</testsuites>\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="renderer broke"):
        _outputs.write_outputs(None, None, [target])  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xml"]
    assert target.read_text(encoding="utf-8") == "<testsuites>last run</testsuites>\n"


def test_a_renderer_that_finishes_leaves_only_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def renderers(_stores: Any) -> dict[str, Callable[[Any], str | Iterable[str]]]:
        return {"JUnit": lambda _c: iter(["<a>", "</a>\n"])}

    monkeypatch.setattr(_outputs, "_renderers", renderers)
    target = tmp_path / "report.xml"
    assert _outputs.write_outputs(None, None, [target]) == [("JUnit", target)]  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xml"]
    assert target.read_text(encoding="utf-8") == "<a></a>\n"
