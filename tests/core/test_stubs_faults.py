"""Tool stubs: seeded faults and latency."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from polygon_core.models import ErrorSpec, LatencySpec, ToolDef, tool_def
from polygon_core.stubs import ToolEnvironment

from ._stubs_helpers import env_of

# -- faults and latency --------------------------------------------------------------------------


def flaky() -> ToolDef:
    return tool_def(
        name="lookup_account",
        response={"status": "verified"},
        events=["account_looked_up"],
        errors=ErrorSpec(rate=0.3, kind="server_error"),
        latency=LatencySpec(fixed_ms=2000),
    )


def failing_indices(env: ToolEnvironment, n: int = 20) -> list[int]:
    return [i for i in range(n) if env.call("lookup_account", {}, turn=i).error is not None]


def test_seeded_faults_repeat_exactly_and_latency_is_simulated(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)  # latency is simulated: nothing may really wait
    first = env_of(flaky())
    second = env_of(flaky())
    failed = failing_indices(first)
    assert failed == failing_indices(second)
    assert failed == [6, 7, 12, 15]  # pinned for conversation "conv-1", seed 41
    assert first.clock_ms == second.clock_ms == 20 * 2000
    assert all(c.latency_ms == 2000 for c in first.calls)
    assert slept == []  # 40 simulated seconds, no real sleeping

    # Faulted calls answer like a failing server and emit no events.
    bad = first.calls[failed[0]]
    assert bad.error == "server_error"
    assert bad.result == {"error": "server_error", "status": 500}
    assert bad.events == []
    assert len(first.events) == 20 - len(failed)

    # Another seed or another conversation gives another (but again stable) fault pattern.
    assert failing_indices(env_of(flaky(), seed=42)) != failed


def test_fault_kinds() -> None:
    def one(spec: ErrorSpec) -> Any:
        tool = tool_def(name="t", response="fine", errors=spec)
        call = env_of(tool).call("t", {}, turn=0)
        return call.error, call.result

    assert one(ErrorSpec(rate=1.0, kind="timeout")) == ("timeout", {"error": "timeout"})
    assert one(ErrorSpec(rate=1.0, kind="custom", payload={"error": "crm_down"})) == (
        "custom",
        {"error": "crm_down"},
    )
    assert one(ErrorSpec(rate=0.0, kind="timeout")) == (None, "fine")


def test_invalid_calls_do_not_shift_the_fault_sequence() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    tool = flaky().model_copy(update={"parameters": schema})
    plain = env_of(tool)
    noisy = env_of(tool)
    a = [plain.call("lookup_account", {}, turn=i).error for i in range(10)]
    b = []
    for i in range(10):
        noisy.call("lookup_account", {"id": 5}, turn=i)  # invalid: no fault draw, no time
        b.append(noisy.call("lookup_account", {}, turn=i).error)
    assert a == b
    assert noisy.clock_ms == plain.clock_ms


@pytest.mark.parametrize("distribution", ["uniform", "normal", "lognormal"])
def test_distribution_latency_is_seeded_and_never_negative(distribution: str) -> None:
    spec = LatencySpec(distribution=distribution, mean_ms=300, spread_ms=400)
    tool = tool_def(name="t", response=1, latency=spec)
    runs = []
    for _ in range(2):
        env = env_of(tool)
        runs.append([env.call("t", {}, turn=i).latency_ms for i in range(200)])
        assert env.clock_ms == pytest.approx(sum(runs[-1]))
    assert runs[0] == runs[1]
    assert min(runs[0]) >= 0.0
    assert len(set(runs[0])) > 100
    assert 150 < sum(runs[0]) / len(runs[0]) < 450


def test_acall_sleeps_only_with_real_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    simulated = tool_def(name="slow", response=1, latency=LatencySpec(fixed_ms=5000))
    real = tool_def(name="real", response=1, latency=LatencySpec(fixed_ms=30, real_sleep=True))
    env = env_of(simulated, real)
    slept: list[float] = []

    async def recorded_sleep(seconds: float) -> None:
        slept.append(seconds)

    # What is awaited is the bound that matters: the simulated 5 s are never slept, the real 30 ms are.
    monkeypatch.setattr(asyncio, "sleep", recorded_sleep)

    async def run() -> None:
        await env.acall("slow", {}, turn=0)
        assert slept == []
        await env.acall("real", {}, turn=0)

    asyncio.run(run())
    assert slept == [0.03]
    assert env.clock_ms == 5030
