"""A new provider is one module: dropped into the providers package, or installed elsewhere and
named by a `polygon.providers` entry point. Either is found on the first lookup, reads its key and
base URL from the variables it declares, and is served through the real OpenAI SDK; no SDK is
imported before one of its models is built."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import polygon_core.adapters.providers as providers_package
from polygon_core._registry import PluginLoadError
from polygon_core.adapters.providers import ProviderConfigError, _registry, make_chat_model
from tests.conftest import REPO
from tests.fakes.llm_server import AGENT_LINES, FakeLLMServer

from .conftest import fast_settings
from .test_registry import ask, sent_keys


def docs_example(doc: str, first_line: str) -> str:
    """The ```python block of `doc` that starts with `first_line` (so the docs' example is what runs)."""
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}") + len("```python\n")
    return text[start:text.index("```\n", start)]

# The worked example of docs/design.md ("A model provider"), as a module of the providers package.
GEMINI_MODULE = docs_example("design.md", "# polygon_core/adapters/providers/_gemini.py")

# The same provider kept outside Polygon: a distribution with an entry point.
PLUGIN_MODULE = GEMINI_MODULE.replace("from ._openai", "from polygon_core.adapters.providers._openai").replace(
    "from ._registry", "from polygon_core.adapters.providers._registry").replace('"gemini"', '"acme"')
GEMINI_KEY = "sk-gemini-test-0123456789"


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry as before its first lookup (the built-ins' modules stay imported, and registered)."""
    before = set(sys.modules)
    monkeypatch.setattr(_registry.PROVIDERS, "entries", dict(_registry.PROVIDERS.loaded()))
    monkeypatch.setattr(_registry.PROVIDERS, "_builtins_loaded", False)
    for variable in ("POLYGON_GEMINI_API_KEY", "GEMINI_API_KEY", "POLYGON_GEMINI_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    yield
    for name in set(sys.modules) - before:
        if name.endswith(("_gemini", "acme_provider")):
            del sys.modules[name]
    if hasattr(providers_package, "_gemini"):
        delattr(providers_package, "_gemini")


def test_a_module_dropped_into_the_package_is_a_provider(fresh_registry: None, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "more_providers"
    folder.mkdir()
    (folder / "_gemini.py").write_text(GEMINI_MODULE, encoding="utf-8")
    # As if the file were in polygon_core/adapters/providers/ (the tree itself stays untouched).
    monkeypatch.setattr(providers_package, "__path__", [*providers_package.__path__, str(folder)])
    with pytest.raises(ProviderConfigError) as missing:
        make_chat_model("gemini:gemini-2.0-flash", fast_settings(tmp_path))
    assert str(missing.value) == ("model 'gemini:gemini-2.0-flash' needs a Gemini API key: set GEMINI_API_KEY "
                                  "(or give a base URL: 'gemini:<model>@http://host:port/v1')")
    assert _registry.provider_names() == ("openai", "anthropic", "gemini")
    with FakeLLMServer() as server:
        monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
        monkeypatch.setenv("POLYGON_GEMINI_BASE_URL", server.openai_url)
        model = make_chat_model("gemini:gemini-2.0-flash", fast_settings(tmp_path))
        reply = ask(model)
        assert (reply.text, reply.provider, reply.model) == (AGENT_LINES[0], "gemini", "gemini-2.0-flash")
        assert model.name == "gemini:gemini-2.0-flash"
        assert sent_keys(server) == [f"Bearer {GEMINI_KEY}"]
        assert server.behaviour.seen[-1]["model"] == "gemini-2.0-flash"


def test_without_a_base_url_a_compatible_provider_goes_to_its_own_service(
        fresh_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "more_providers"
    folder.mkdir()
    (folder / "_gemini.py").write_text(GEMINI_MODULE, encoding="utf-8")
    monkeypatch.setattr(providers_package, "__path__", [*providers_package.__path__, str(folder)])
    adapter = _registry.adapter_class("gemini")("gemini-2.0-flash", api_key="k", base_url=None, timeout=1.0)
    # Not OpenAI's default URL (the SDK's own): the provider's, so its key never goes to OpenAI.
    assert adapter.base_url == "https://generativelanguage.googleapis.com/v1beta/openai"
    assert adapter.endpoint.name == "gemini:gemini-2.0-flash" and adapter.key_variable == "GEMINI_API_KEY"


def test_an_entry_point_adds_a_provider_kept_outside_polygon(fresh_registry: None, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "acme_provider").mkdir(parents=True)
    (site / "acme_provider" / "__init__.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    info = site / "acme_provider-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-provider\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[polygon.providers]\nacme = acme_provider\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    assert _registry.provider_names() == ("openai", "anthropic", "acme")
    with FakeLLMServer() as server:
        monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
        reply = ask(make_chat_model(f"acme:m1@{server.openai_url}", fast_settings(tmp_path)))
        assert (reply.text, reply.provider) == (AGENT_LINES[0], "acme")
        assert sent_keys(server) == [f"Bearer {GEMINI_KEY}"]


def test_a_plugin_that_fails_to_load_is_named(fresh_registry: None, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    info = site / "broken_provider-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-provider\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[polygon.providers]\nbroken = no_such_module_here\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(PluginLoadError) as failed:
        _registry.provider_names()
    assert str(failed.value) == ("provider plugin 'broken' (no_such_module_here, distribution 'broken-provider', "
                                 "entry point group 'polygon.providers') failed to load: No module named "
                                 "'no_such_module_here' (fix or uninstall it)")
    assert isinstance(failed.value, ValueError) and failed.value.plugin == "broken"


def test_finding_the_providers_imports_no_sdk() -> None:
    code = ("import sys\n"
            "from polygon_core.adapters.providers import adapter_class, parse_model_name, provider_names\n"
            "parse_model_name('anthropic:claude-x'); adapter_class('openai'); adapter_class('anthropic')\n"
            "print(','.join(provider_names()), sorted(m for m in sys.modules if m.split('.')[0] in "
            "('openai', 'anthropic')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "openai,anthropic []"
