"""The help texts and errors that list providers, import formats or rubric versions are made from
the registries: a provider or format registered by a plugin appears in them with no edit (before,
eleven strings said "openai | anthropic" or "polygon | openai | csv | vapi | retell" by hand)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.adapters.providers import provider
from polygon_core.adapters.providers._anthropic import AnthropicAdapter
from polygon_core.adapters.providers._registry import PROVIDERS
from polygon_core.imports import get_format, import_format
from polygon_core.imports._format import REGISTRY


@pytest.fixture
def acme_and_tiny(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A provider `acme` with a batch API (Anthropic's, on its own host) and an import format `tiny`,
    registered as a plugin registers them; both registries are put back afterwards."""
    monkeypatch.setattr(PROVIDERS, "entries", dict(PROVIDERS.loaded()))
    monkeypatch.setattr(REGISTRY, "entries", dict(REGISTRY.loaded()))

    @provider("acme")
    class AcmeAdapter(AnthropicAdapter):
        title = "Acme"
        api_key_env = ("ACME_API_KEY",)
        default_url = "http://127.0.0.1:9/acme"

    import_format("tiny", "Tiny call logs")(get_format("polygon").parse)
    yield


def _help(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_help_texts_name_what_the_registries_hold(acme_and_tiny: None) -> None:
    assert "--format -f <str> csv | openai | polygon | retell | vapi | tiny (default: what the file name " \
           "says" in _help("import")
    assert "csv | openai | polygon | retell | vapi | tiny (default: what each file's name says)" in _help("grade-calls")
    assert "judge: offline | openai:<model> | anthropic:<model> | acme:<model>, optionally @<base URL>" \
           in _help("grade-calls")
    assert "model of the judge: offline | openai:<model> | anthropic:<model> | acme:<model>, optionally " \
           "@<base URL>" in _help("run")
    rescore = _help("rescore")
    assert "batch API (OpenAI, Anthropic, Acme): half the price" in rescore
    assert "rubric version to judge under (v1, v2, v3)" in rescore


def test_errors_name_what_the_registries_hold(acme_and_tiny: None) -> None:
    with pytest.raises(ValueError) as refused:
        usecases.rescore_batch_pass(None, "run-1", kind="judge", model="offline")  # type: ignore[arg-type]
    assert str(refused.value) == ("--batch needs a model with a batch API (openai:…, anthropic:… or acme:…); "
                                  "the offline judge has nothing to send")
    with pytest.raises(ValueError, match=r"unknown import format 'nope'; expected one of: csv, openai, polygon, "
                                         r"retell, vapi, tiny"):
        get_format("nope")


def test_registering_the_commands_reads_no_registry() -> None:
    # The help is filled when shown: building the commands (every invocation does) imports nothing.
    code = ("import sys, typer.main\nfrom polygon.cli._app import app\ntyper.main.get_command(app)\n"
            "print([m for m in ('polygon_core.imports', 'polygon_core.adapters.providers._registry') "
            "if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
