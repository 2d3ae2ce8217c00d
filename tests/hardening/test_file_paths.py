"""Where files are looked for: prompt files stay inside the agent's folder; a scenario inside a
suite finds the suite's tool library by looking upward, as git finds `.git`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir
from polygon_core.files import FileErrors, load_agent, validate_paths

ALLOWED = "use a path relative to the agent file, inside its folder"


def _agent(folder: Path, prompt_file: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent.yaml"
    path.write_text(f"name: a\nmodel: offline\nprompt_file: {prompt_file}\n", encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(FileErrors) as caught:
        load_agent(path)
    (error,) = caught.value.errors
    assert validate_paths([path]) == [error]  # validate and loading agree
    return str(error)


def test_a_prompt_file_climbing_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    path = _agent(tmp_path / "agents", "../../../../etc/passwd")
    assert _error(path) == (
        f"{path}:3: prompt_file: prompt file '../../../../etc/passwd' is outside the agent file's "
        f"folder ({tmp_path / 'agents'}); {ALLOWED}"
    )


def test_an_absolute_prompt_file_is_refused(tmp_path: Path) -> None:
    path = _agent(tmp_path / "agents", "/etc/passwd")
    assert _error(path) == f"{path}:3: prompt_file: prompt file '/etc/passwd' is an absolute path; {ALLOWED}"


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "prompt.txt").symlink_to(tmp_path / "secret.txt")
    path = _agent(folder, "prompt.txt")
    assert _error(path).endswith(f"prompt file 'prompt.txt' is outside the agent file's folder ({folder}); {ALLOWED}")


def test_prompt_files_in_the_folder_and_below_it_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    (folder / "prompts").mkdir(parents=True)
    (folder / "prompts" / "v1.txt").write_text("Be kind.", encoding="utf-8")
    assert load_agent(_agent(folder, "prompts/v1.txt")).prompt_text == "Be kind."
    assert load_agent(_agent(folder, "prompts/../prompts/v1.txt")).prompt_text == "Be kind."


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo suite with one scenario moved two levels down and naming a misspelt tool."""
    root = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", root)
    nested = root / "scenarios" / "billing"
    nested.mkdir()
    moved = nested / "01_billing_dispute.yaml"
    (root / "scenarios" / "01_billing_dispute.yaml").rename(moved)
    moved.write_text(moved.read_text(encoding="utf-8").replace("  - lookup_account", "  - lookup_acount"),
                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return root


MISSPELT = (
    "suite/scenarios/billing/01_billing_dispute.yaml:25: tools[0]: unknown tool 'lookup_acount'; the "
    "tool library (suite/tools.yaml) defines: escalate_to_human, issue_refund, lookup_account, "
    "schedule_callback, update_address"
)


@pytest.mark.parametrize("target", [
    "suite/scenarios/billing/01_billing_dispute.yaml",  # two folders below the suite
    "suite/scenarios/",
    "suite/scenarios/billing",
    "suite",
])
def test_a_scenario_inside_a_suite_finds_the_tool_library_upward(suite: Path, target: str) -> None:
    assert [str(e) for e in validate_paths([Path(target)])] == [MISSPELT]


def test_a_valid_scenario_in_the_suite_validates_alone(suite: Path) -> None:
    assert validate_paths([Path("suite/scenarios/02_address_change.yaml")]) == []


def test_the_search_stops_at_the_nearest_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An inner suite without a tool library does not borrow the outer suite's.
    outer = tmp_path / "outer"
    shutil.copytree(demo_dir() / "suite", outer)
    inner = outer / "inner"
    inner.mkdir()
    (inner / "suite.yaml").write_text("name: inner\n", encoding="utf-8")
    scenario = inner / "x.yaml"
    scenario.write_text("id: x\npersona: {name: p, goal: g}\ntools: [nope]\nassertions: {a: happened(nope)}\n",
                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert validate_paths([Path("outer/inner/x.yaml")]) == []  # no library: tool names unchecked


# Issue 32, item 8: the other files a Polygon file names are contained the same way.

SUITE_ALLOWED = "use a path relative to the suite, inside its folder"
SWEEP_ALLOWED = "use a path relative to the sweep spec, inside its folder"


def _suite_with_probes(tmp_path: Path, probes: str) -> Path:
    root = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", root)
    config = root / "suite.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"probes: {probes}\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(("probes", "reason"), [
    ("../outside.yaml", "is outside the suite's folder ({root})"),
    ("{tmp}/outside.yaml", "is an absolute path"),
])
def test_a_suites_probe_file_outside_the_suite_is_refused(tmp_path: Path, probes: str, reason: str) -> None:
    (tmp_path / "outside.yaml").write_text("probes: []\n", encoding="utf-8")
    probes = probes.format(tmp=tmp_path)
    root = _suite_with_probes(tmp_path, probes)
    errors = [str(e) for e in validate_paths([root])]
    line = len((root / "suite.yaml").read_text(encoding="utf-8").splitlines())
    assert errors == [f"{root / 'suite.yaml'}:{line}: probes: probe file {probes!r} "
                      f"{reason.format(root=root)}; {SUITE_ALLOWED}"]


def test_a_probe_file_inside_the_suite_is_still_read(tmp_path: Path) -> None:
    root = _suite_with_probes(tmp_path, "probes/mine.yaml")
    (root / "probes").mkdir()
    (root / "probes" / "mine.yaml").write_text("probes: []\n", encoding="utf-8")
    assert validate_paths([root]) == []


def _sweep(tmp_path: Path, prompt_files: list[str], key: str = "prompt_file") -> Path:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    shutil.copytree(demo_dir() / "agents", tmp_path / "agents")
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "p.txt").write_text("Be kind.", encoding="utf-8")
    spec = tmp_path / "sweeps" / "s.yaml"
    listed = "".join(f"    - {p}\n" for p in prompt_files)
    spec.write_text(f"name: s\nagent: ../agents/agent_v1.yaml\nsuite: ../suite\nparameters:\n  {key}:\n{listed}",
                    encoding="utf-8")
    return spec


@pytest.mark.parametrize("key", ["prompt_file", "prompt"])
def test_a_sweeps_prompt_files_outside_its_folder_are_refused(tmp_path: Path, key: str) -> None:
    from polygon import usecases

    spec = _sweep(tmp_path, ["p.txt", "../../../../etc/passwd", "/etc/passwd"], key)
    expected = [
        f"{spec}:7: parameters.{key}[1]: prompt file '../../../../etc/passwd' is outside the sweep spec's "
        f"folder ({spec.parent}); {SWEEP_ALLOWED}",
        f"{spec}:8: parameters.{key}[2]: prompt file '/etc/passwd' is an absolute path; {SWEEP_ALLOWED}"]
    assert [str(e) for e in validate_paths([spec])] == expected
    with pytest.raises(FileErrors) as caught:  # `polygon sweep` loads it the same way
        usecases.load_sweep(spec)
    assert [str(e) for e in caught.value.errors] == expected


def test_a_sweeps_prompt_file_beside_it_is_accepted(tmp_path: Path) -> None:
    from polygon import usecases

    spec = _sweep(tmp_path, ["p.txt"])
    assert validate_paths([spec]) == []
    assert usecases.load_sweep(spec).spec.parameters["prompt_file"].values == ["p.txt"]
