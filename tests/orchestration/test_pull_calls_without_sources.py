"""No red runs by default (issue #32 item 9): `polygon deploy` declares pull-calls on every machine,
scheduled every 15 minutes; with no sources configured a run completes with a note instead of
failing (it failed every time: 96 red runs a day, each retried once first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from polygon.flows import pull_calls
from polygon.flows._import_calls import NO_SOURCES

from polygon.deployments import declared

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]


def test_the_one_schedule_declared_without_sources_completes_with_a_note(polygon_home: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLYGON_SOURCES", raising=False)
    # What `polygon deploy` declares with no --production-source: pull-calls is its one schedule.
    assert [d.name for d in declared(None, suite_path="suite") if d.cron] == ["pull-calls"]
    state = pull_calls(return_state=True)
    assert state.is_completed()
    assert state.result() == {"new_objects": {}, "batch": None, "sources": [], "note": NO_SOURCES}
    assert NO_SOURCES == "no sources are configured (POLYGON_SOURCES): nothing to pull"
