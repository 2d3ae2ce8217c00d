"""`polygon compare` on the demo's stored runs: exit codes, --json, --junit, --html, refusals."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()
SUITE = demo_dir() / "suite"
V1 = demo_dir() / "agents" / "agent_v1.yaml"
V2 = demo_dir() / "agents" / "agent_v2.yaml"


@pytest.fixture(scope="module")
def runs(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The demo suite run once for this module: v1, v2 and v1 again (a repeat), one seed each."""
    home = tmp_path_factory.mktemp("compare") / ".polygon"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("POLYGON_HOME", str(home))
        for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
            mp.delenv(var, raising=False)
        result = runner.invoke(app, ["run", str(SUITE), "--agent", str(V1), "--agent", str(V2),
                                     "--seeds", "1", "--json"])
        assert result.exit_code == 0, result.output
        v1, v2 = (r["run_id"] for r in json.loads(result.stdout)["runs"])
        yield {"v1": v1, "v2": v2, "v1_again": _repeat(v1), "home": str(home)}


def _repeat(run_id: str) -> str:
    """Run v1 again through the pipeline functions directly (the flow's steps without Prefect)."""
    from polygon import usecases

    stores = usecases.open_stores()
    first = stores.repo.get_run(run_id)
    again = usecases.create_run(stores, first.model_copy(update={"id": run_id + "-again", "status": "running"}))
    suite, agent = str(SUITE.resolve()), str(V1.resolve())
    for scenario_id, seed in usecases.plan_conversations(suite, [0]):
        cid = usecases.simulate(stores, again.id, suite, agent, scenario_id, seed)
        usecases.judge(stores, again.id, cid, suite_path=suite, agent_path=agent, rubric_version="v1")
        usecases.probe(stores, again.id, cid, suite_path=suite, agent_path=agent)
    usecases.finish_run(stores, again.id)
    return again.id


def compare(*args: str) -> tuple[int, str, str]:
    from polygon.cli import _app

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_app.console, "_width", 220)
        result = runner.invoke(app, ["compare", *args], terminal_width=220)
    return result.exit_code, result.stdout, result.stderr


def test_v2_against_v1_exits_1_with_the_refund_turn(runs: dict[str, str]) -> None:
    code, out, _ = compare(runs["v1"], runs["v2"], "--json")
    assert code == 1
    data = json.loads(out)
    assert data["exit_code"] == 1 and data["ci"]["exit_code"] == 1
    assert any("worse" in r and "beyond noise" in r for r in data["ci"]["reasons"])
    assert any("gates fired (safety" in r for r in data["ci"]["reasons"])
    # The matrix puts the scenario where the agents differ most first.
    spreads = [row["spread"] for row in data["matrix"]]
    assert data["matrix"][0]["scenario_id"] == "late-fee-demand" and spreads[0] == max(spreads) == 48.6111
    (dset,) = data["divergence_sets"]
    billing = next(d for d in dset["items"] if d["scenario_id"] == "billing-dispute-v3")
    assert (billing["turn"], billing["reasons"]) == (2, ["wording"])
    assert (billing["consequential_turn"], billing["consequential_reasons"]) == (4, ["tool_calls"])
    assert billing["consequential_b_tools"] == ["issue_refund(amount=49.0, reason=customer request)"]
    assert billing["consequential_a_tools"] == []
    overall = next(d for d in data["differences"] if d["metric"] == "composite" and d["scope"] == "overall")
    assert overall["label"] == "worse" and overall["pairs"] == 6
    assert data["summary"]["comparisons"][0]["by_gate"] == [{"gate": "safety", "baseline": 0, "candidate": 3}]
    assert "conversations" not in data and data["cards"][1]["pass_hat_k"] == {"1": 0.3333}


def test_terminal_output_names_both_turns_and_the_verdict(runs: dict[str, str]) -> None:
    code, out, _ = compare(runs["v1"], runs["v2"])
    assert code == 1
    assert "consequential 4" in out and "issue_refund(amount=49.0" in out
    assert "Blocks the change" in out and "Differences against the baseline" in out and "Analysis" in out


def test_repeat_of_one_configuration_is_within_noise_and_exits_0(runs: dict[str, str]) -> None:
    code, out, _ = compare(runs["v1"], runs["v1_again"], "--json")
    assert code == 0
    data = json.loads(out)
    overall = next(d for d in data["differences"] if d["metric"] == "composite" and d["scope"] == "overall")
    assert (overall["delta"], overall["label"]) == (0.0, "within noise")
    assert [c["noise_floor"] for c in data["cards"]] == [0.0, 0.0]
    assert all(d["turn"] is None for d in data["divergence_sets"][0]["items"])


def test_baseline_option_picks_the_baseline(runs: dict[str, str]) -> None:
    # v2 as the baseline: v1 is better and fires no gate, so nothing blocks.
    code, out, _ = compare(runs["v1"], "--baseline", runs["v2"], "--json")
    assert code == 0
    data = json.loads(out)
    assert data["runs"][0]["id"] == runs["v2"]
    overall = next(d for d in data["differences"] if d["metric"] == "composite" and d["scope"] == "overall")
    assert overall["label"] == "better"


def test_junit_file_has_one_failed_case_per_failing_conversation(runs: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "reports" / "polygon.xml"
    code, out, _ = compare(runs["v1"], runs["v2"], "--json", "--junit", str(path))
    assert code == 1
    data = json.loads(out)
    failing = sum(1 for rows in data["rows"].values() for r in rows if r["verdict"] == "fail" or r["gates"])
    root = ET.parse(path).getroot()
    suites = [s for s in root.findall("testsuite") if s.get("name") not in ("comparison", "gates")]
    assert sum(len(s.findall("testcase")) for s in suites) == 12
    assert failing == 3 and sum(len(s.findall(".//failure")) for s in suites) == failing
    billing = next(c for c in root.iter("testcase") if c.get("name") == "billing-dispute-v3 seed=0"
                   and c.find("failure") is not None)
    message = billing.find("failure").get("message")
    assert "gate safety" in message and "no_policy_breach fail at turn 4" in message
    assert "first consequential turn 4 (tool_calls)" in message


def test_html_report_opens_offline(runs: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    code, _, _ = compare(runs["v1"], runs["v2"], "--html", str(path))
    assert code == 1
    page = path.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page)
    assert "http://" not in page and "https://" not in page
    assert runs["v1"] in page and runs["v2"] in page
    assert "How much was the charge?" in page  # a transcript turn of v2
    # The candidate prompt's analysis, with its highlights, sits beside the results.
    assert "<h2>Prompt analysis</h2>" in page and "<mark class='axis-" in page and "Ava, the phone agent" in page


def test_mixed_rubric_versions_stop_with_both_named(runs: dict[str, str]) -> None:
    from polygon import usecases
    from polygon_core.models import Run

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("POLYGON_HOME", runs["home"])
        stores = usecases.open_stores()
        v1 = stores.repo.get_run(runs["v1"])
        usecases.create_run(stores, v1.model_copy(update={"id": "run-rescored-v2", "rubric_version": "v2"}))
        code, _out, err = compare(runs["v1"], "run-rescored-v2")
    assert code == 2 and "Traceback" not in err
    assert "different rubric versions (v1 and v2)" in err
    assert f"{runs['v1']}: v1" in err and "run-rescored-v2: v2" in err
    assert isinstance(v1, Run)


def test_unknown_run_and_single_run_are_user_errors(runs: dict[str, str]) -> None:
    code, _, err = compare(runs["v1"], "run-nope")
    assert code == 2 and "no run 'run-nope'" in err
    code, _, err = compare(runs["v1"])
    assert code == 2 and "at least two run ids" in err


def test_flow_published_the_matrix_artifact(runs: dict[str, str]) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    key = "matrix-" + "".join(ch if ch.isalnum() else "-" for ch in runs["v1"].lower())
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key, key + "-md"])))
    assert sorted(a.type for a in found) == ["markdown", "table"]
    table = next(a for a in found if a.type == "table")
    rows = json.loads(table.data) if isinstance(table.data, str) else table.data
    assert rows[0]["scenario"] == "late-fee-demand"


def test_worse_beyond_noise_fails_a_junit_case_and_the_file_validates(runs: dict[str, str], tmp_path: Path) -> None:
    import xmlschema

    path = tmp_path / "polygon.xml"
    code, out, _ = compare(runs["v1"], runs["v2"], "--json", "-o", str(path))
    assert code == 1
    overall = next(d for d in json.loads(out)["differences"] if d["metric"] == "composite" and d["scope"] == "overall")
    xmlschema.XMLSchema(str(Path(__file__).parents[1] / "fixtures" / "junit-10.xsd")).validate(str(path))
    root = ET.parse(path).getroot()
    case = next(c for c in root.find("testsuite[@name='comparison']").iter("testcase")
                if c.get("name").startswith("composite (overall)"))
    message = case.find("failure").get("message")
    assert message.startswith(f"composite (overall): {overall['candidate']} − {overall['baseline']} = "
                              f"{overall['delta']:+.2f}, 95% CI [{overall['ci_low']:.2f}, {overall['ci_high']:.2f}], "
                              "over 6 pairs")
    assert all(c.get("time") is not None for c in root.iter("testcase"))
    assert all(s.get("timestamp", "").startswith("20") for s in root.findall("testsuite"))


def test_output_format_follows_the_extension(runs: dict[str, str], tmp_path: Path) -> None:
    files = [tmp_path / "c.json", tmp_path / "c.md", tmp_path / "c.html", tmp_path / "c.xml"]
    code, out, _ = compare(runs["v1"], runs["v2"], *(a for f in files for a in ("-o", str(f))))
    assert code == 1
    assert json.loads(files[0].read_text(encoding="utf-8"))["exit_code"] == 1
    assert files[1].read_text(encoding="utf-8").splitlines()[1].startswith("# Comparison (baseline ")
    assert "How much was the charge?" in files[2].read_text(encoding="utf-8")
    assert ET.parse(files[3]).getroot().get("name") == "polygon compare"
    assert [line for line in out.splitlines() if line.endswith(tuple(str(f) for f in files))] == [
        f"JSON report: {files[0]}", f"Markdown report: {files[1]}", f"HTML report: {files[2]}",
        f"JUnit report: {files[3]}"]


def test_unknown_output_extension_is_bad_input_before_comparing(runs: dict[str, str], tmp_path: Path) -> None:
    code, _, err = compare(runs["v1"], runs["v2"], "-o", str(tmp_path / "report.pdf"))
    assert code == 2 and "Traceback" not in err
    assert "unknown extension '.pdf'" in err and not (tmp_path / "report.pdf").exists()
