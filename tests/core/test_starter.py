"""`polygon init`'s files from a prompt (polygon_core.starter, pure): the scenarios are the offline
generator's personas, the tools the prompt's tasks that act, the agent a class routing callers to
them; every file loads as Polygon reads it, and every question the agent asks is one the offline
caller hears as asking for its fact."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from polygon_core.callers import asked_for
from polygon_core.files import load_agent, load_suite, validate_paths
from polygon_core.personas import generate_offline
from polygon_core.starter import EXAMPLE_PROMPT, starter_files
from tests.language.prompts import PHARMACY_RU

DENTAL = """You are Mia, the receptionist of Bright Smile Dental Clinic.
You book, reschedule and cancel dental appointments.
Ask for the patient's full name and date of birth.
A cleaning costs 80 dollars.
Never give medical advice; transfer those calls to the on-call dentist.
If no slot suits the patient, offer a callback.
"""

SCENARIOS = ["book-dental-appointment-success", "medical-advice-refusal", "callback-callback",
             "medical-advice-transfer", "reschedule-dental-appointment-success", "cancel-dental-appointment-success"]
TOOLS = ["book_dental_appointment", "reschedule_dental_appointment", "cancel_dental_appointment",
         "schedule_callback", "transfer_to_human"]


def _write(files: dict[str, str], root: Path) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")


def test_a_dental_prompt_gives_its_scenarios_tools_and_routes() -> None:
    starter = starter_files(DENTAL, name="dental", prompt_ref="my_prompt.txt", write_prompt=False)
    assert starter.scenarios == SCENARIOS
    assert starter.tools == TOOLS
    assert [(r.task, r.action, r.tool, r.facts, r.answer) for r in starter.routes] == [
        ("book_dental_appointment", "tool", "book_dental_appointment", ("name", "date_of_birth"), None),
        ("reschedule_dental_appointment", "tool", "reschedule_dental_appointment", ("name", "date_of_birth"), None),
        ("cancel_dental_appointment", "tool", "cancel_dental_appointment", ("name", "date_of_birth"), None),
        ("price_cleaning", "answer", None, (), "A cleaning costs 80 dollars."),
        ("callback", "tool", "schedule_callback", ("name", "date_of_birth"), None),
        ("medical_advice", "transfer", None, (), None),
    ]
    assert list(starter.files) == ["my_agent.py", "my_agent.yaml", "suite/suite.yaml", "suite/tools.yaml",
                                   *(f"suite/scenarios/{i:02d}-{sid}.yaml" for i, sid in enumerate(SCENARIOS, 1))]
    assert starter.files["my_agent.yaml"].splitlines()[2:] == [
        "name: dental", "callable: my_agent:MyAgent", "prompt_file: my_prompt.txt", "language: en"]


def test_each_scenario_is_a_generated_persona_asserted_by_its_outcome() -> None:
    starter = starter_files(DENTAL, name="dental", prompt_ref="my_prompt.txt", write_prompt=False)
    docs = [yaml.safe_load(starter.files[f"suite/scenarios/{i:02d}-{sid}.yaml"]) for i, sid in enumerate(SCENARIOS, 1)]
    personas = generate_offline(DENTAL, count=6, seed=0).personas
    assert [d["persona"]["goal"] for d in docs] == [p.goal for p in personas]
    assert [d["persona"]["ground_truth"] for d in docs] == [p.ground_truth for p in personas]
    assert [sorted(d["persona"]["ground_truth"]) for d in docs] == [["date_of_birth", "name"]] * 6
    assert [d["assertions"] for d in docs] == [
        {"task_done": "happened(book_dental_appointment)"},
        {"nothing_done": "not happened(book_dental_appointment) and not happened(reschedule_dental_appointment) "
                         "and not happened(cancel_dental_appointment)"},
        {"callback_booked": "happened(schedule_callback)"},
        {"handed_over": "happened(transfer_to_human)"},
        {"task_done": "happened(reschedule_dental_appointment)"},
        {"task_done": "happened(cancel_dental_appointment)"},
    ]
    assert {(d["tools"] == TOOLS, d["language"], d["max_turns"]) for d in docs} == {(True, "en", 16)}
    assert docs[0]["knowledge_base"] == ["A cleaning costs 80 dollars."]


def test_the_files_load_and_validate_as_written(tmp_path: Path) -> None:
    starter = starter_files(DENTAL, name="dental", prompt_ref="my_prompt.txt", write_prompt=False)
    _write(starter.files, tmp_path)
    (tmp_path / "my_prompt.txt").write_text(DENTAL, encoding="utf-8")
    assert validate_paths([tmp_path / "suite", tmp_path / "my_agent.yaml"]) == []
    suite = load_suite(tmp_path / "suite")
    assert [s.id for s in suite.scenarios] == SCENARIOS
    book = suite.tools["book_dental_appointment"]
    assert (book.kind, book.parameters["required"], book.consequential is not False) == (
        "state", ["name", "date_of_birth"], True)
    assert (suite.tools["transfer_to_human"].ends_call, suite.tools["schedule_callback"].ends_call) == (
        "transfer", "callback")
    agent = load_agent(tmp_path / "my_agent.yaml")
    assert (agent.config.callable, agent.prompt_text) == ("my_agent:MyAgent", DENTAL)
    ast.parse(starter.files["my_agent.py"])  # the agent module is Python


def test_every_question_the_agent_asks_is_heard_as_asking_for_its_fact() -> None:
    for prompt, language in ((DENTAL, "en"), (PHARMACY_RU, "ru")):
        source = starter_files(prompt).files["my_agent.py"]
        questions = ast.literal_eval(source.split("QUESTIONS = ", 1)[1].split("\n}\n", 1)[0] + "\n}")
        assert questions, prompt
        assert {fact: asked_for(line, [fact], language) for fact, line in questions.items()} == {
            fact: [fact] for fact in questions}


def test_a_russian_prompt_writes_a_russian_agent_and_scenarios() -> None:
    starter = starter_files(PHARMACY_RU, name="apteka")
    assert starter.files["prompt.txt"] == PHARMACY_RU
    assert starter.language == "ru"
    assert starter.tools == ["zabronirovat_lekarstvo", "schedule_callback", "transfer_to_human"]
    assert '"greeting": "Здравствуйте! Спасибо за звонок. Чем могу помочь?",' in starter.files["my_agent.py"]
    assert '"phone": "Назовите, пожалуйста, номер телефона.",' in starter.files["my_agent.py"]
    assert {yaml.safe_load(t)["language"] for p, t in starter.files.items() if "/scenarios/" in p} == {"ru"}


def test_without_a_prompt_the_example_is_written_beside_the_agent() -> None:
    starter = starter_files(None, name="shop")
    assert starter.files["prompt.txt"] == EXAMPLE_PROMPT
    assert "prompt_file: prompt.txt" in starter.files["my_agent.yaml"]
    assert starter.tools == ["book_bike_service", "book_repair", "schedule_callback", "transfer_to_human"]
    assert starter.scenarios == ["book-bike-service-success", "price-for-refusal", "callback-callback",
                                 "complain-transfer", "book-repair-success", "ask-status-success"]


def test_an_empty_prompt_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^the prompt is empty: write what your agent does"):
        starter_files(" \n")
