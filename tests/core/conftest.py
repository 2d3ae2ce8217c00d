"""Fixtures shared by the tests in tests/core."""

from __future__ import annotations

import pytest

from polygon_core.files import _assertion_check


@pytest.fixture
def _no_assertion_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Used by the file-loading tests (tests/core/test_files_*.py, through ``pytestmark``)."""
    # polygon_core.assertions is written in parallel; these tests pin this module's behaviour and
    # inject a checker explicitly where they test the hook.
    monkeypatch.setattr(_assertion_check, "assertion_checker", lambda: None)
