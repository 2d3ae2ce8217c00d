"""A Python agent's version hashes its code: the agent's module and the same-project modules it
imports (followed with `ast`, never imported), and names the standard library and installed
packages with their versions. Model and HTTP agents keep the versions they had."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.adapters.agents import callable_code
from polygon_core.adapters.file_cache import FileCaches
from polygon_core.files import (
    VersionPart,
    agent_version,
    changed_parts,
    describe_parts,
    imported_modules,
    version_parts,
)
from polygon_core.models import AgentConfig
from tests.verdicts._files import scenario, write_suite

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"

AGENT_PY = """\
import json

from . import helpers
from .helpers import greeting


def agent(request):
    return {"say": greeting() + json.dumps(helpers.FACTS)}


def later():
    import yaml  # a lazy import runs too: the package is named
    try:
        import no_such_module_polygon_test  # noqa: F401
    except ImportError:
        pass
    return yaml
"""
HELPERS_PY = 'FACTS = {"hours": "9-5"}\n\n\ndef greeting():\n    return "Hello. "\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`shop_agent/` on the import path: the agent, a helper it imports, and a module it does not."""
    package = tmp_path / "src" / "shop_agent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "agent.py").write_text(AGENT_PY, encoding="utf-8")
    (package / "helpers.py").write_text(HELPERS_PY, encoding="utf-8")
    (package / "unrelated.py").write_text("X = 1\n", encoding="utf-8")
    (package / "notes.txt").write_text("release notes\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    return package


def _files(project: Path) -> tuple[Path, Path]:
    """The suite and the agent file (written once, beside `src/`)."""
    root = project.parent.parent
    if not (root / "agent.yaml").exists():
        write_suite(root, scenario(), "name: shop\nprompt: Help.\ncallable: shop_agent.agent:agent\n")
    return root / "suite", root / "agent.yaml"


def _version(project: Path) -> str:
    suite, agent = _files(project)
    return usecases.agent_identity(str(agent), str(suite))[2]  # a new FileCaches: read now


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_parts_name_each_module_package_and_standard_library_name(project: Path) -> None:
    code = callable_code("shop_agent.agent:agent")
    sha = {p.name: p.sha for p in code.parts if p.kind == "module"}
    assert [(p.kind, p.name, p.version) for p in code.parts] == [
        ("module", "shop_agent", None), ("module", "shop_agent.agent", None), ("module", "shop_agent.helpers", None),
        ("missing", "no_such_module_polygon_test", None),
        ("package", "PyYAML", metadata.version("PyYAML")),
        ("stdlib", "json", PYTHON)]
    from polygon_core.files import source_sha

    assert sha["shop_agent.helpers"] == source_sha(HELPERS_PY.encode()) and len(sha["shop_agent.agent"]) == 12
    assert set(code.files) == {project / "__init__.py", project / "agent.py", project / "helpers.py", project}


def test_editing_a_helper_the_agent_imports_changes_the_version(project: Path) -> None:
    before = _version(project)
    _edit(project / "helpers.py", '"9-5"', '"9-6"')
    assert _version(project) != before


def test_editing_one_line_of_the_agent_module_changes_the_version(project: Path) -> None:
    before = _version(project)
    _edit(project / "agent.py", "import json\n", "import json  # a comment is an edit too\n")
    assert _version(project) != before


def test_editing_a_file_the_agent_does_not_import_keeps_the_version(project: Path) -> None:
    before = _version(project)
    _edit(project / "unrelated.py", "X = 1", "X = 2")
    _edit(project / "notes.txt", "release", "draft")
    (project / "new_module.py").write_text("Y = 3\n", encoding="utf-8")
    assert _version(project) == before


def test_a_cached_version_is_read_again_when_a_helper_changes(project: Path) -> None:
    suite, agent = _files(project)
    caches = FileCaches()
    before = usecases.agent_identity(str(agent), str(suite), caches=caches)[2]
    assert usecases.agent_identity(str(agent), str(suite), caches=caches)[2] == before
    _edit(project / "helpers.py", "Hello. ", "Hi there. ")  # another size: the cache's stamp moves
    assert usecases.agent_identity(str(agent), str(suite), caches=caches)[2] != before


def test_an_agent_outside_any_package_hashes_its_own_folder_modules(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "solo_agent.py").write_text("import solo_rules\n\ndef agent(request):\n    return {}\n",
                                            encoding="utf-8")
    (tmp_path / "solo_rules.py").write_text("LIMIT = 3\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = callable_code("solo_agent:agent").parts
    assert [(p.kind, p.name) for p in before] == [("module", "solo_agent"), ("module", "solo_rules")]
    (tmp_path / "solo_rules.py").write_text("LIMIT = 4\n", encoding="utf-8")
    assert changed_parts(before, callable_code("solo_agent:agent").parts) == [
        f"module solo_rules sha {before[1].sha} → {callable_code('solo_agent:agent').parts[1].sha}"]


def test_an_installed_package_is_named_not_read() -> None:
    # The test agent imports the installed Polygon (an editable install here): its distribution
    # and version stand for it; its modules are not walked.
    parts = callable_code("tests.engine.script_agent:script_agent").parts
    assert [(p.kind, p.name) for p in parts] == [
        ("module", "tests"), ("module", "tests.engine"), ("module", "tests.engine.script_agent"),
        ("package", "polygon-bench"), ("stdlib", "json"), ("stdlib", "typing")]


def test_model_and_http_agents_keep_the_versions_they_had() -> None:
    # Pinned from the version rule before code parts existed: stored runs of these agents still pair.
    model = AgentConfig(name="a", prompt="Help.", model="openai:gpt-4o")
    http = AgentConfig(name="h", endpoint="https://agent.example/act")
    assert (agent_version(model, "Help."), agent_version(http, "")) == ("1c83dae5bf5b", "1097440700b9")
    assert [(p.kind, p.name) for p in version_parts(http, "")] == [
        ("prompt", "prompt"), ("settings", "settings"), ("endpoint", "https://agent.example/act")]


def test_code_parts_change_the_version_whatever_order_they_are_found_in() -> None:
    config = AgentConfig(name="c", prompt="Help.", callable="acme.agent:Agent")
    a = VersionPart(kind="module", name="acme.agent", sha="aaaaaaaaaaaa")
    b = VersionPart(kind="package", name="httpx", version="0.28.1")
    assert agent_version(config, "Help.", None, [a, b]) == agent_version(config, "Help.", None, [b, a])
    assert agent_version(config, "Help.", None, [a, b]) != agent_version(config, "Help.", None, [a])
    assert agent_version(config, "Help.", None, [a]) != agent_version(config, "Help.")


def test_changed_parts_and_the_one_line_description() -> None:
    old = [VersionPart(kind="prompt", name="prompt", sha="111111111111"),
           VersionPart(kind="module", name="acme.agent", sha="aaaaaaaaaaaa"),
           VersionPart(kind="package", name="httpx", version="0.27.0"),
           VersionPart(kind="package", name="six", version="1.16.0")]
    new = [VersionPart(kind="prompt", name="prompt", sha="111111111111"),
           VersionPart(kind="module", name="acme.agent", sha="bbbbbbbbbbbb"),
           VersionPart(kind="module", name="acme.rules", sha="cccccccccccc"),
           VersionPart(kind="package", name="httpx", version="0.28.1"),
           VersionPart(kind="stdlib", name="re", version="3.12"),
           VersionPart(kind="stdlib", name="json", version="3.12")]
    assert changed_parts(old, new) == [
        "module acme.agent sha aaaaaaaaaaaa → bbbbbbbbbbbb", "module acme.rules (sha cccccccccccc) added",
        "package httpx 0.27.0 → 0.28.1", "standard library re (Python 3.12) added",
        "standard library json (Python 3.12) added", "package six 1.16.0 removed"]
    assert describe_parts(new) == ("prompt (sha 111111111111), module acme.agent (sha bbbbbbbbbbbb), module "
                                   "acme.rules (sha cccccccccccc), package httpx 0.28.1, standard library json, "
                                   "re (Python 3.12)")


def test_imports_are_resolved_against_the_module_and_its_package() -> None:
    source = ("import os.path\nfrom . import helpers\nfrom ..shared.rules import LIMIT\n"
              "from .... import too_far\n\ndef f():\n    import json\n")
    found = [(i.name, i.maybe_attribute) for i in imported_modules(source, "acme.billing.agent", is_package=False)]
    assert found == [("os", False), ("os.path", False), ("acme", False), ("acme.billing", False),
                     ("acme.billing.helpers", True), ("acme.shared", False), ("acme.shared.rules", False),
                     ("acme.shared.rules.LIMIT", True), ("json", False)]
    # In a package's __init__, `.` is the package itself; a file that does not parse names nothing.
    assert [i.name for i in imported_modules("from . import x", "acme", is_package=True)] == ["acme", "acme.x"]
    assert imported_modules("def (", "acme", is_package=True) == []


def test_a_model_agent_run_with_another_model_is_its_own_version_and_still_rescorable(
        tmp_path: Path, polygon_home: Path) -> None:
    # The run's version folds in the model it ran (`--agent-model`): the check before a replay or a
    # re-score folds it in the same way (it used to compare the file's version alone and refuse).
    from polygon_core._hashing import content_hash
    from polygon_core.models import Run

    suite, agent = write_suite(tmp_path, scenario(), "name: m\nprompt: Help.\nmodel: openai:gpt-4o\n")
    stores = usecases.open_stores()
    version, parts = usecases.agent_parts(str(agent), str(suite))
    model = "openai:gpt-4o-mini"
    folded = content_hash([version, model], len(version))
    run = Run(id="other-model", suite="suite", agent_name="m", agent_version=folded, rubric_version="v1",
              seeds=[0], models={"agent": model})
    usecases.create_run(stores, run, suite_path=str(suite), agent_path=str(agent))
    assert usecases.run_version_parts(stores, run.id) == [*parts, VersionPart(kind="model", name=model)]
    assert usecases.check_run_agent(stores, run.id, folded, str(agent), str(suite), would="w", fix="f")[2] == version

    agent.write_text("name: m\nprompt: Help, briefly.\nmodel: openai:gpt-4o\n", encoding="utf-8")
    with pytest.raises(ValueError) as exc:
        usecases.check_run_agent(stores, run.id, folded, str(agent), str(suite), would="w", fix="f")
    now = content_hash([usecases.agent_identity(str(agent), str(suite))[2], model], len(version))
    new_prompt = usecases.agent_parts(str(agent), str(suite))[1][0].sha
    assert str(exc.value) == (f"run 'other-model' was made by agent version {folded}, but {agent} is now version "
                              f"{now} (changed: prompt sha {parts[0].sha} → {new_prompt}); w (f)")
