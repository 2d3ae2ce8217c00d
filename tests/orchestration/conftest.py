"""The production integration test runs in its own pytest invocation (`pytest -m integration`,
which `.ci/run` runs after the default suite): it starts a Prefect server, two workers and a web
service, a few minutes on a loaded 2-core machine, which the default suite's budget cannot carry."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip `integration` tests unless the mark expression asks for them."""
    if "integration" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="own invocation: `pytest -m integration` (.ci/run runs it)")
    for item in items:
        if item.get_closest_marker("integration") is not None:
            item.add_marker(skip)
