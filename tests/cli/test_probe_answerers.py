"""A scorecard's probe table counts one answerer's answers (the run's own, else the latest, or the
one asked for), names it, and the web API shows the same numbers as `polygon show`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.models import Run
from tests.cli.test_scoring_cli import AGENT, SCENARIO, TOOLS

runner = CliRunner()
SEEDS = [0, 1, 2, 3, 4, 5]  # one scenario: six conversations


def _suite(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    (suite / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (suite / "scenarios" / "sloppy.yaml").write_text(SCENARIO, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    return suite, agent


def _stored_run(run_id: str, suite: Path, agent: Path, *, probed: bool = True) -> str:
    """A run simulated, judged and (`probed`) probed offline by the pipeline steps (no Prefect), finished."""
    from polygon import usecases

    stores = usecases.open_stores()
    _config, _prompt, version = usecases.agent_identity(str(agent), str(suite))
    run = Run(id=run_id, suite="sloppy", agent_name="sloppy", agent_version=version, rubric_version="v1",
              seeds=SEEDS, models={"judge": "offline-heuristic", "probe": "offline-heuristic"})
    usecases.create_run(stores, run, suite_path=str(suite), agent_path=str(agent))
    for scenario_id, seed in usecases.plan_conversations(str(suite), SEEDS):
        cid = usecases.simulate(stores, run.id, str(suite), str(agent), scenario_id, seed)
        usecases.judge(stores, run.id, cid, suite_path=str(suite), agent_path=str(agent), rubric_version="v1")
        if probed:
            usecases.probe(stores, run.id, cid, suite_path=str(suite), agent_path=str(agent))
    usecases.finish_run(stores, run.id)
    return run.id


def _rates(card: dict[str, Any]) -> dict[str, tuple[int, int, float | None]]:
    return {p["probe_id"]: (p["k"], p["n"], p["rate"]) for p in card["probes"]}


def _card(*args: str) -> dict[str, Any]:
    shown = runner.invoke(app, ["show", *args, "--json"])
    assert shown.exit_code == 0, shown.output
    card: dict[str, Any] = json.loads(shown.stdout)["scorecard"]
    return card


# The offline answerer on the six conversations; the fake model answers "yes" to every probe.
OFFLINE = {"invented_policy": (0, 0, None), "made_unkeepable_promise": (6, 6, 1.0),
           "recovered_after_tool_error": (0, 0, None)}
GOOD = {"invented_policy": (0, 6, 0.0), "made_unkeepable_promise": (0, 6, 0.0),
        "recovered_after_tool_error": (6, 6, 1.0)}
NOTHING = {"invented_policy": (0, 0, None), "made_unkeepable_promise": (0, 0, None),
           "recovered_after_tool_error": (0, 0, None)}


@pytest.fixture
def probed_twice(polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, str, str]:
    """run-a probed offline in its run; run-b (the same six conversations) probed only after it
    finished: offline, then by a model answerer, then by one whose replies cannot be read."""
    from tests.fakes.llm_server import FakeLLMServer

    suite, agent = _suite(tmp_path)
    base = _stored_run("run-a", suite, agent)
    cand = _stored_run("run-b", suite, agent, probed=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    assert runner.invoke(app, ["probe", cand, "--model", "offline"]).exit_code == 0
    with FakeLLMServer() as server:
        good, bad = f"openai:good@{server.openai_url}", f"openai:bad@{server.openai_url}"
        by_good = runner.invoke(app, ["probe", cand, "--model", good, "--json"])
        assert by_good.exit_code == 0, by_good.output
        # `polygon probe` shows the answers it just made, not the run's own answerer's.
        assert {p["probe_id"]: (p["k"], p["n"], p["rate"]) for p in json.loads(by_good.stdout)["probes"]} == GOOD
        server.behaviour.ignore_schema = True  # prose where JSON is asked for: unreadable
        assert runner.invoke(app, ["probe", cand, "--model", bad]).exit_code == 1
    return base, cand, good, bad


def test_show_counts_one_answerer_and_names_it(probed_twice: tuple[str, str, str, str]) -> None:
    _base, cand, good, bad = probed_twice
    own = _card(cand)
    # The run's own answerer only: 6 conversations, not 18 answers of three answerers added up.
    assert _rates(own) == OFFLINE
    assert own["models"]["probe"] == "offline-heuristic"
    # The failed pass is the other answerer's: it is not this card's error.
    assert (own["probe_errors"], own["probe_error_reason"]) == (0, None)
    by_good = _card(cand, "--probe-model", good)
    assert (_rates(by_good), by_good["models"]["probe"], by_good["probe_errors"]) == (GOOD, good, 0)
    by_bad = _card(cand, "--probe-model", bad)
    assert (_rates(by_bad), by_bad["models"]["probe"]) == (NOTHING, bad)
    assert by_bad["probe_errors"] == 6 and by_bad["probe_error_reason"].startswith("unreadable reply: ")
    missing = runner.invoke(app, ["show", cand, "--probe-model", "openai:nobody"])
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    assert (f"run {cand} has no probe answers by 'openai:nobody'; answered by: offline-heuristic, {bad}, "
            f"{good}") in " ".join(missing.stderr.split())
    text = " ".join(runner.invoke(app, ["show", cand], terminal_width=400).stdout.split())
    assert "Behaviour probes (conformance, Wilson 95%; answered by offline-heuristic)" in text
    assert f"(probes also answered by {bad}, {good}: see --probe-model)" in text
    assert "judge=offline-heuristic, probe=offline-heuristic" in text


def test_compare_of_identical_runs_moves_no_probe(probed_twice: tuple[str, str, str, str]) -> None:
    base, cand, _good, _bad = probed_twice
    out = json.loads(runner.invoke(app, ["compare", base, cand, "--json"]).stdout)
    for probe in out["probes"]:
        rates = [(r["k"], r["n"], r["rate"]) for r in probe["rates"].values()]
        assert rates == [OFFLINE[probe["probe_id"]]] * 2, probe


def test_the_web_api_shows_the_numbers_show_does(probed_twice: tuple[str, str, str, str],
                                                  polygon_home: Path) -> None:
    from polygon.web import create_app
    from polygon_core.adapters.settings import load_settings

    _base, cand, _good, _bad = probed_twice
    client = TestClient(create_app(load_settings(home=polygon_home)), client=("127.0.0.1", 50123))
    shown = _card(cand)
    detail = client.get(f"/api/runs/{cand}").json()["scorecard"]
    assert (_rates(detail), detail["models"]["probe"], detail["probe_errors"]) == (OFFLINE, "offline-heuristic", 0)
    assert detail["probes"] == shown["probes"]
    probes = client.get(f"/api/runs/{cand}/probes").json()["items"]
    assert probes == shown["probes"]


def test_an_unreadable_judge_is_an_error_not_a_partial_judgment(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/design.md: nothing readable is a judge error (no composite); partial is a judged result
    with some criteria left out. The card's provenance names the judge it shows."""
    from tests.fakes.llm_server import FakeLLMServer

    suite, agent = _suite(tmp_path)
    run_id = _stored_run("run-j", suite, agent)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    with FakeLLMServer() as server:
        server.behaviour.ignore_schema = True
        judge = f"openai:prose@{server.openai_url}"
        assert runner.invoke(app, ["rescore", run_id, "--rubric", "v1", "--judge", judge]).exit_code == 1
    card = _card(run_id, "--judge", judge)
    assert (card["judge_model"], card["judge_errors"], card["partial"], card["scored"]) == (judge, 6, 0, 0)
    assert card["models"]["judge"] == judge
    text = " ".join(runner.invoke(app, ["show", run_id, "--judge", judge], terminal_width=400).stdout.split())
    assert f"judge {judge}; judge={judge}, probe=offline-heuristic;" in text
    assert "judge=offline-heuristic" not in text


def test_without_the_run_s_own_answers_the_latest_answerer_is_shown(polygon_home: Path) -> None:
    """The judges' rule: the run's own answerer when it answered, else the one that answered last."""
    from polygon import usecases
    from polygon.usecases._scorecards import answerer_for, scorecard_of
    from polygon_core.models import ProbeAnswer

    stores = usecases.open_stores()
    run = stores.repo.save_run(Run(id="r-rows", suite="s", agent_name="a", agent_version="v", rubric_version="v1",
                                   seeds=[0], models={"probe": "offline-heuristic"}))
    answers: dict[str, Literal["yes", "no"]] = {"openai:x": "yes", "openai:y": "no"}  # x first, y last
    for by, answer in answers.items():
        stores.repo.save_probe_answers(run.id, [
            ProbeAnswer(conversation_id=c, probe_id="asks", wording_hash="w", polarity="wanted", answer=answer,
                        answered_by=by) for c in ("c1", "c2", "c3")])
    assert answerer_for(stores, run, None) == "openai:y"
    card = scorecard_of(stores, run)
    assert card.models["probe"] == "openai:y"
    assert [(p.probe_id, p.k, p.n) for p in card.probes] == [("asks", 0, 3)]  # y's three answers, not six
    assert [(p.k, p.n) for p in scorecard_of(stores, run, probe_model="openai:x").probes] == [(3, 3)]


def test_a_stored_judge_error_marked_partial_counts_once_as_an_error(polygon_home: Path, tmp_path: Path) -> None:
    """A judge error stored with `partial` set (an unreadable reply, as judgments were saved before)
    is a judge error, not also a partial judgment: a timeout and an unreadable reply count alike."""
    from polygon import usecases
    from polygon.usecases._scorecards import scorecard_of
    from polygon_core.models import Judgment

    suite, agent = _suite(tmp_path)
    run_id = _stored_run("run-p", suite, agent, probed=False)
    stores = usecases.open_stores()
    cids = [c.conversation_id for c in stores.repo.list_conversations(run_id)]
    for cid, reason, partial in ((cids[0], "unreadable reply: the reply is not JSON", True),
                                 (cids[1], "timed out after 60 s", False)):
        stores.repo.save_judgment(run_id, Judgment(conversation_id=cid, rubric_version="v1", judge_model="openai:j",
                                                   partial=partial, status="judge_error", reason=reason))
    run = stores.repo.get_run(run_id)
    assert run is not None
    card = scorecard_of(stores, run, judge="openai:j")
    assert (card.judge_errors, card.partial, card.judge_error_reason) == (
        2, 0, "unreadable reply: the reply is not JSON")
