"""A probe signal is one module: a `_signal*` module of polygon_core/probes/, or a module named by a
`polygon.probe_signals` entry point, is found on the first lookup (before, the signals were one
dict, so a probe library naming another signal was refused and no plugin could add one)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import polygon_core.probes as probes_package
from polygon_core.checks import run_checks
from polygon_core.files import FileErrors, json_schema
from polygon_core.judging import answer_probes_offline
from polygon_core.models import Conversation, EndReason, Turn
from polygon_core.probes import PROBE_SIGNALS, load_probes
from tests._plugins import install_plugin
from tests.conftest import REPO

BUILT_INS = ("asked_again_after_strange_reply", "gave_reason_for_refusal", "made_unkeepable_promise",
             "verified_identity_before_action", "invented_policy", "repeated_same_question",
             "confirmed_details_before_acting", "offered_transfer_when_stuck", "recovered_after_tool_error",
             "ended_before_goal")


def docs_example(first_line: str) -> str:
    """The ```python block of docs/design.md that starts with `first_line`."""
    text = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}") + len("```python\n")
    return text[start:text.index("```\n", start)]


GREETING_MODULE = docs_example("# polygon_core/probes/_signal_greeting.py")


@pytest.fixture
def fresh_signals(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The signal registry as before its first lookup (the built-ins stay imported and registered)."""
    monkeypatch.setattr(PROBE_SIGNALS, "entries", dict(PROBE_SIGNALS.loaded()))
    monkeypatch.setattr(PROBE_SIGNALS, "_builtins_loaded", False)
    yield
    for name in [n for n in sys.modules if n.endswith(("_signal_greeting", "acme_signals"))]:
        del sys.modules[name]
    if hasattr(probes_package, "_signal_greeting"):
        delattr(probes_package, "_signal_greeting")


def _answers(tmp_path: Path, first_words: str) -> list[tuple[str, str, str | None]]:
    library = tmp_path / "probes.yaml"
    library.write_text("probes:\n  - id: greeted\n    question: Did the agent greet the caller?\n"
                       "    polarity: wanted\n    signal: greeted_caller\n", encoding="utf-8")
    conv = Conversation(id="c", scenario_id="production", seed=0, agent_name="eval", agent_version="eval",
                        persona_hash="", caller_type="real", difficulty=0, language="en", turns=[
                            Turn(index=0, speaker="agent", text=first_words),
                            Turn(index=1, speaker="caller", text="My bill, please.")],
                        end_reason=EndReason.CALLER_HANGUP)
    answers = answer_probes_offline(conv, run_checks(conv, None), load_probes(library))
    return [(a.probe_id, a.answer, a.evidence) for a in answers]


def test_a_signal_module_dropped_into_the_package_answers_its_probes(
        fresh_signals: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "_signal_greeting.py").write_text(GREETING_MODULE, encoding="utf-8")
    monkeypatch.setattr(probes_package, "__path__", [*probes_package.__path__, str(folder)])
    assert PROBE_SIGNALS.names() == (*BUILT_INS, "greeted_caller")
    assert _answers(tmp_path, "Hello, Northwind billing.") == [("greeted", "yes", "Hello, Northwind billing.")]
    assert _answers(tmp_path, "Billing.") == [("greeted", "no", "Billing.")]
    schema = json_schema("probes")["$defs"]["Probe"]["properties"]["signal"]
    assert "greeted_caller" in schema["anyOf"][0]["enum"]


def test_an_entry_point_adds_a_signal_kept_outside_polygon(fresh_signals: None, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site", distribution="acme-signals",
                                                   group="polygon.probe_signals", name="greeted_caller",
                                                   module="acme_signals", source=GREETING_MODULE)))
    assert PROBE_SIGNALS.names() == (*BUILT_INS, "greeted_caller")
    assert _answers(tmp_path, "Good morning, Northwind.") == [("greeted", "yes", "Good morning, Northwind.")]


def test_an_unregistered_signal_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(FileErrors, match=r"unknown signal 'greeted_caller' \(the offline answerer knows: "
                                         r"asked_again_after_strange_reply, confirmed_details_before_acting"):
        _answers(tmp_path, "Hello.")
