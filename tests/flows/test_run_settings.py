"""Each run setting has one precedence (docs/design.md, "Run settings: one precedence"), checked when
the run is created, and the run carries it: seeds, models per role, judge repeats, probe library.
(Rubric version and concurrency are pinned in test_conversation_task.py.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.adapters.settings import load_settings
from polygon_core.demo import demo_dir
from polygon_core.files import FileErrors, load_agent, load_suite_config
from tests.cli.test_scoring_cli import PROBES  # a library of two probes

V1 = demo_dir() / "agents" / "agent_v1.yaml"
V2 = demo_dir() / "agents" / "agent_v2.yaml"  # another agent version
SCENARIO = "01_billing_dispute.yaml"
OTHER_PROBES = """\
probes:
  - id: said_goodbye
    question: Did the agent say goodbye?
    polarity: wanted
"""
URL = "@http://127.0.0.1:9/v1"  # never called: a base URL needs no key, so the names check offline


def _suite(tmp_path: Path, config: str) -> Path:
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    shutil.copy(demo_dir() / "suite" / "tools.yaml", suite / "tools.yaml")
    shutil.copy(demo_dir() / "suite" / "scenarios" / SCENARIO, suite / "scenarios" / SCENARIO)
    if "probes:" in config:  # any other YAML in the folder would be read as a scenario
        (suite / "probes.yaml").write_text(PROBES, encoding="utf-8")
    (suite / "suite.yaml").write_text(config, encoding="utf-8")
    return suite


def test_seeds_flag_then_suite_then_the_default(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path)
    listed = str(_suite(tmp_path / "a", "name: s\nseeds: [3, 5]\n"))
    silent = str(_suite(tmp_path / "b", "name: s\n"))
    assert usecases.new_run(str(V1), listed, seeds=[7], roles={}, settings=settings).seeds == [7]  # --seeds
    assert usecases.new_run(str(V1), listed, roles={}, settings=settings).seeds == [3, 5]  # suite.yaml
    assert usecases.new_run(str(V1), silent, roles={}, settings=settings).seeds == [0]  # the default
    for bad in ([], [1, 1]):
        with pytest.raises(ValueError, match=rf"^a run's seeds must be one or more, each once; got \{bad}$"):
            usecases.new_run(str(V1), listed, seeds=bad, roles={}, settings=settings)
    assert usecases.plan_conversations(listed, None) == [("billing-dispute-v3", 3),
                                                         ("billing-dispute-v3", 5)]


def test_models_flag_then_suite_or_agent_config_then_environment_then_offline(tmp_path: Path) -> None:
    suite = _suite(tmp_path, f"name: s\njudge_model: openai:suite-judge{URL}\ncaller_model: offline\n")
    agent = tmp_path / "agent.yaml"
    agent.write_text(f"name: m\nprompt: Help the caller.\nmodel: openai:config-agent{URL}\n", encoding="utf-8")
    env = load_settings(home=tmp_path, agent_model=f"openai:env-agent{URL}", caller_model=f"openai:env-caller{URL}",
                        judge_model=f"openai:env-judge{URL}", probe_model=f"openai:env-probe{URL}")
    config, agent_config = load_suite_config(suite / "suite.yaml"), load_agent(agent).config
    assert usecases.role_models(env, config, agent_config) == {
        "agent": f"openai:config-agent{URL}",  # the agent config's `model`
        "caller": "offline",  # suite.yaml names offline: it wins over POLYGON_CALLER_MODEL
        "judge": f"openai:suite-judge{URL}",  # suite.yaml
        "probe": f"openai:env-probe{URL}"}  # POLYGON_PROBE_MODEL
    flags = {"agent": f"openai:flag-agent{URL}", "judge": "offline", "probe": f"openai:flag-probe{URL}"}
    assert usecases.role_models(env, config, agent_config, flags) == {
        "agent": f"openai:flag-agent{URL}", "caller": "offline", "judge": "offline",
        "probe": f"openai:flag-probe{URL}"}  # --<role>-model wins over everything
    offline_agent = load_agent(V1).config  # `model: offline` in an agent config is no choice: the environment's
    assert usecases.role_models(env, config, offline_agent)["agent"] == f"openai:env-agent{URL}"
    plain = load_settings(home=tmp_path)
    demo = load_agent(V1).config
    assert usecases.role_models(plain, load_suite_config(_suite(tmp_path / "b", "name: s\n") / "suite.yaml"),
                                demo) == {"agent": "offline", "caller": "offline", "judge": "offline",
                                          "probe": "offline"}
    run = usecases.new_run(str(agent), str(suite), settings=env)  # recorded on the run, resolved once
    assert run.models == {"agent": f"openai:config-agent{URL}", "caller": "offline",
                          "judge": f"openai:suite-judge{URL}", "probe": f"openai:env-probe{URL}"}
    bad = _suite(tmp_path / "c", "name: s\njudge_model: nosuch:model\n")
    with pytest.raises(ValueError, match=r"^judge model \(suite.yaml `judge_model`\): "):
        usecases.role_models(plain, load_suite_config(bad / "suite.yaml"), demo)


def test_the_probe_library_is_the_flag_then_the_suite_s_then_the_bundled_one(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "name: s\nprobes: probes.yaml\n")
    silent = _suite(tmp_path / "b", "name: s\n")
    other = tmp_path / "other.yaml"
    other.write_text(OTHER_PROBES, encoding="utf-8")
    assert usecases.resolve_probes(str(other), str(suite)) == str(other)  # --probes
    assert usecases.resolve_probes(None, str(suite)) == str((suite / "probes.yaml").resolve())  # suite.yaml
    assert usecases.resolve_probes(None, str(silent)) is None  # the bundled library
    assert usecases.resolve_probes(None, None) is None  # a production run: no suite
    (suite / "probes.yaml").write_text("probes:\n  - id: x\n    question: Q?\n    polarity: sideways\n",
                                       encoding="utf-8")
    # A bad library is bad input at its own file and line (the suite's is checked with the suite).
    with pytest.raises(FileErrors) as bad:
        usecases.resolve_probes(None, str(suite))
    assert str(bad.value) == f"{suite}/probes.yaml:4: probes[0].polarity: expected 'wanted' or 'guardrail', got 'sideways'"
    with pytest.raises(FileErrors) as missing:
        usecases.resolve_probes(str(tmp_path / "nope.yaml"), str(silent))
    assert str(missing.value) == f"{tmp_path / 'nope.yaml'}: no such file"


def test_repeats_and_probes_are_recorded_once_and_read_back_by_the_judge_and_probe_steps(
        polygon_home: Path, tmp_path: Path) -> None:
    suite, agent = str(_suite(tmp_path, "name: s\nprobes: probes.yaml\n")), str(V1)
    stores = usecases.open_stores()
    run = usecases.new_run(agent, suite, seeds=[0], run_id="carried", roles={}, caches=stores.caches)
    with pytest.raises(ValueError, match=r"^--repeats must be at least 1, got 0$"):
        usecases.create_run(stores, run, suite_path=suite, agent_path=agent, repeats=0)
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent, repeats=3)
    # Created again (a resumed run): the first settings stay, whatever the caller says now.
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent, repeats=5, probes_path="/elsewhere.yaml")
    own = usecases.run_settings(usecases.open_stores(), "carried")
    assert (own.repeats, own.probes_path, own.rubric_version, own.suite_path) == (
        3, str((Path(suite) / "probes.yaml").resolve()), "v1", suite)
    manifest = json.loads(stores.artifacts.get_text(usecases.manifest_key("carried")))
    assert (manifest["repeats"], manifest["seeds"], manifest["rubric_version"]) == (3, [0], "v1")
    cid = usecases.simulate(stores, "carried", suite, agent, "billing-dispute-v3", 0)
    judgment = usecases.judge_in_run(stores, "carried", cid)
    assert (judgment.rubric_version, judgment.repeats, len(judgment.raw)) == ("v1", 3, 3)
    answers = usecases.probe_in_run(stores, "carried", cid)
    assert sorted(a.probe_id for a in answers) == ["made_unkeepable_promise", "said_goodbye"]


def test_a_batch_probe_pass_asks_the_suite_s_library_as_the_live_pass_does(tmp_path: Path) -> None:
    suite = str(_suite(tmp_path, "name: s\nprobes: probes.yaml\nbatch_judging: true\n"))
    run = usecases.new_run(str(V1), suite, seeds=[0], run_id="b", roles={"probe": f"openai:p{URL}"},
                           settings=load_settings(home=tmp_path))
    stores = usecases.open_stores(load_settings(home=tmp_path))
    usecases.create_run(stores, run, suite_path=suite, agent_path=str(V1))
    own = usecases.run_settings(stores, run.id)  # what the live probe pass reads
    (only,) = usecases.batch_passes(own.run, suite_path=suite, agent_path=str(V1), rubric_version="v1",
                                    probes_path=own.probes_path)
    assert (only.kind, only.probes_path) == ("probe", str((Path(suite) / "probes.yaml").resolve()))


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_polygon_run_records_and_uses_each_setting_from_its_own_source(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from polygon.cli import app

    suite = _suite(tmp_path, "name: s\nrubric: v2\nseeds: [0, 1, 2]\nprobes: probes.yaml\nconcurrency: 2\n")
    monkeypatch.setenv("POLYGON_RUBRIC", "v3")  # the suite's rubric wins over it
    monkeypatch.setenv("POLYGON_CONCURRENCY", "7")  # and its concurrency
    result = CliRunner().invoke(app, ["run", str(suite), "--agent", str(V1), "--seeds", "2", "--json"])
    assert result.exit_code == 0, result.output
    (summary,) = json.loads(result.stdout)["runs"]
    stores = usecases.open_stores()
    own = usecases.run_settings(stores, summary["run_id"])
    assert (own.rubric_version, own.run.seeds, own.repeats) == ("v2", [0, 1], 1)
    assert own.probes_path == str((suite / "probes.yaml").resolve())
    assert own.run.models == {"agent": "callable:polygon_core.demo:DemoAgentV1", "caller": "offline",
                              "judge": "offline-heuristic", "probe": "offline-heuristic"}
    assert usecases.run_execution(stores, own.run.id)["concurrency"] == 2  # type: ignore[index]
    asked = {a.probe_id for a in stores.repo.probe_answers(own.run.id)}
    assert asked == {"made_unkeepable_promise", "said_goodbye"}  # the suite's library, not the bundled one


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_a_resumed_run_keeps_its_own_settings_and_refuses_others_asked_for(
        polygon_home: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from polygon.cli import app

    suite = _suite(tmp_path, "name: s\nseeds: [0, 1, 2]\n")
    first = CliRunner().invoke(app, ["run", str(suite), "--agent", str(V1), "--seeds", "1", "--rubric", "v2",
                                     "--run-id", "kept", "--json"])
    assert first.exit_code in (0, 1), first.output
    # The two demo agents' versions (content hashes), read apart from the resume path.
    v1, v2 = (usecases.agent_identity(str(a), str(suite))[2] for a in (V1, V2))
    keeps = ": a resumed run keeps its own settings (start a new run for other ones)"
    for flags, line in (
            (["--agent", str(V1), "--seeds", "2"], f"error: run kept was created with seeds [0], not [0, 1]{keeps}"),
            (["--agent", str(V1), "--rubric", "v3"],
             f"error: run kept was created with rubric version v2, not v3{keeps}"),
            (["--agent", str(V1), "--judge-model", f"openai:other-judge{URL}"],
             f"error: run kept was created with judge model offline-heuristic, not openai:other-judge{URL}{keeps}"),
            (["--agent", str(V2)], f"error: run kept was created with agent version {v1}, not {v2}{keeps}")):
        refused = CliRunner().invoke(app, ["run", str(suite), "--run-id", "kept", *flags])
        assert refused.exit_code == 2, refused.output
        assert [ln for ln in refused.stderr.splitlines() if ln.strip()] == [line]
    # Without flags it resumes as it was made: its one seed and rubric v2 (not the suite's three seeds).
    again = CliRunner().invoke(app, ["run", str(suite), "--agent", str(V1), "--run-id", "kept", "--json"])
    assert again.exit_code in (0, 1), again.output
    (summary,) = json.loads(again.stdout)["runs"]
    stores = usecases.open_stores()
    run = stores.repo.get_run("kept", exact=True)
    assert run is not None and (run.seeds, run.rubric_version) == ([0], "v2")
    assert (summary["conversations"], summary["rubric_version"]) == (1, "v2")
    assert usecases.run_execution(stores, "kept")["already_stored"] == 1  # type: ignore[index]


def test_a_conversation_given_only_its_run_id_scenario_and_seed_is_evaluated_under_the_run_s_settings(
        polygon_home: Path, tmp_path: Path) -> None:
    # The evaluate task takes (run_id, scenario_id, seed, stages) alone (tests/test_layers.py): the
    # suite and agent files, rubric, repeats and probe library it uses are those the run recorded.
    import asyncio

    suite, agent = str(_suite(tmp_path, "name: s\nprobes: probes.yaml\n")), str(V1)
    other = tmp_path / "other-probes.yaml"
    other.write_text(OTHER_PROBES, encoding="utf-8")
    stores = usecases.open_stores()
    run = usecases.new_run(agent, suite, seeds=[0], rubric="v2", run_id="own", roles={}, caches=stores.caches)
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent, repeats=2, probes_path=str(other))
    done = asyncio.run(usecases.evaluate_conversation(usecases.open_stores(), "own", "billing-dispute-v3", 0))
    assert done.simulated is True and done.probes == 1
    assert stores.repo.conversation_ids("own") == {done.conversation_id}
    (judgment,) = stores.repo.judgments("own")
    assert (judgment.rubric_version, judgment.repeats, len(judgment.raw), judgment.composite) == (
        "v2", 2, 2, done.composite)
    assert [a.probe_id for a in stores.repo.probe_answers("own")] == ["said_goodbye"]  # the run's library
    judged_only = asyncio.run(usecases.evaluate_conversation(usecases.open_stores(), "own", "billing-dispute-v3", 0,
                                                             ("judge",)))
    assert judged_only == usecases.Evaluated(done.conversation_id, False, done.composite, 0)  # resumed: kept
