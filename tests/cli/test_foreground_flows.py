"""A flow run a command starts in its own process sends no heartbeats unless the user asked for them
(`polygon.cli._base.foreground_flows`): Prefect's default costs a foreground command about a second
at exit, joining the heartbeat thread."""

from __future__ import annotations

from typing import Any

import pytest
from prefect import flow
from prefect.flow_engine import FlowRunEngine
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, Profile, temporary_settings

from polygon.cli._base import foreground_flows

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]


@flow(name="foreground-probe")
def _probe() -> int:
    return 1


def _heartbeats(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    sent: list[Any] = []
    monkeypatch.setattr(FlowRunEngine, "_emit_flow_run_heartbeat", lambda self, *a: sent.append(self.flow_run.id))
    return sent


def test_no_heartbeat_under_prefects_default(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _heartbeats(monkeypatch)
    for name in ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY"):
        monkeypatch.delenv(name, raising=False)
    # Undo the test session's own setting: Prefect's default (a heartbeat every 180 s) is in force.
    with temporary_settings(restore_defaults={PREFECT_FLOWS_HEARTBEAT_FREQUENCY}):
        with foreground_flows():
            assert _probe() == 1
        assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() == 180  # only the command's flow runs change
    assert sent == []


def test_a_frequency_in_the_environment_keeps_them(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _heartbeats(monkeypatch)
    monkeypatch.setenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "30")
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: 30}), foreground_flows():
        assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() == 30
        _probe()
    assert len(sent) == 1  # the first heartbeat goes out as the run starts


def test_a_frequency_in_the_profile_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.context import SettingsContext, get_settings_context

    for name in ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY"):
        monkeypatch.delenv(name, raising=False)
    current = get_settings_context()
    profile = Profile(name="ops", settings={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: "60"})
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: 60}), \
            SettingsContext(profile=profile, settings=get_settings_context().settings), foreground_flows():
        assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() == 60
    assert get_settings_context() is current
