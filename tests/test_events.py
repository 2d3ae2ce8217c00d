"""Event names: spelled once (polygon_core/events.py), so what the webhook app and the flows emit is
what the deployments' triggers wait for."""

from __future__ import annotations

import ast

from polygon_core import events
from tests.conftest import REPO

NAMES = {getattr(events, name) for name in events.__all__}


def test_each_event_name_is_written_in_one_module() -> None:
    where: dict[str, list[str]] = {}
    for root in ("polygon", "polygon_core", "flows", "tasks", "deployments"):
        for path in (REPO / root).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and node.value in NAMES:
                    where.setdefault(str(node.value), []).append(str(path.relative_to(REPO)))
    assert where == {name: ["polygon_core/events.py"] for name in NAMES}


def test_the_web_app_and_the_deployments_use_those_names() -> None:
    from polygon.flows import _import_calls

    from polygon import deployments, web
    from polygon.web import _call_webhooks

    assert (web.PROMPT_COMMITTED, web.SWEEP_REQUESTED, _call_webhooks.CALLS_ARRIVED) == (
        deployments.PROMPT_COMMITTED, deployments.SWEEP_REQUESTED, deployments.CALLS_ARRIVED) == (
        "polygon.prompt.committed", "polygon.sweep.requested", "polygon.calls.arrived")
    assert _import_calls.CALLS_IMPORTED == events.CALLS_IMPORTED == "polygon.calls.imported"
    triggered = {name for d in deployments.declared(None, suite_path="s", production_source="p")
                 for trigger in d.triggers for name in trigger.expect}
    assert triggered == {events.PROMPT_COMMITTED, events.SWEEP_REQUESTED, events.CALLS_ARRIVED}
