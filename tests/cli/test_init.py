"""`polygon init` (issue 31): a newcomer's own prompt becomes a working suite, tool library and class
agent, validated, with the next three commands printed as typed from where they are; typing them
runs and scores the agent offline, with no environment variable set."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.starter import EXAMPLE_PROMPT
from tests.core.test_starter import DENTAL as PROMPT
from tests.core.test_starter import SCENARIOS

EXE = Path(sys.executable).with_name("polygon")
runner = CliRunner()

WRITTEN = ["my_agent.py", "my_agent.yaml", "suite/suite.yaml", "suite/tools.yaml",
           *(f"suite/scenarios/{i:02d}-{sid}.yaml" for i, sid in enumerate(SCENARIOS, 1))]


def _typed(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """A command line as the newcomer types it in `folder`: a shell with no venv activated and no
    variable of Polygon's, Prefect's or a provider's (only PATH and HOME, the home in the folder)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder), "COLUMNS": "80"}
    return subprocess.run(shlex.split(command), cwd=folder, capture_output=True, text=True, check=False,
                          timeout=900, env=env)


def test_the_newcomer_inits_validates_runs_and_shows_a_class_agent_offline(tmp_path: Path) -> None:
    folder = tmp_path / "dental-clinic"
    folder.mkdir()
    (folder / "my_prompt.txt").write_text(PROMPT, encoding="utf-8")

    out = _typed(f"{EXE} init --prompt my_prompt.txt", folder)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ("Wrote 10 files from my_prompt.txt: 6 scenarios, tools book_dental_appointment, "
                        "reschedule_dental_appointment, cancel_dental_appointment, schedule_callback, transfer_to_human")
    assert lines[1:11] == [f"  {path}" for path in WRITTEN]
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == sorted(
        [*WRITTEN, "my_prompt.txt"])
    run_id = re.fullmatch(r".* --run-id (dental-clinic-[0-9a-f]{6})", lines[17])
    assert run_id is not None, lines
    rid = run_id.group(1)
    assert lines[11:] == [
        "validated: the suite and the agent file are valid",
        "",
        "Next steps:",
        "# check the files (nothing runs):",
        f"{EXE} validate suite my_agent.yaml",
        "# run your agent on the 6 scenarios (offline):",
        f"{EXE} run suite --agent my_agent.yaml --run-id {rid}",
        "# read the first conversation turn by turn:",
        f"{EXE} show {rid} book-dental-appointment-success-s0",
        "(then edit my_agent.py, and run again without --run-id: a run id names one version of the agent)",
        f"(or `source {EXE.parent}/activate` first, then type `polygon …`)",
    ]
    validate, run, show = lines[15], lines[17], lines[19]

    checked = _typed(validate, folder)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "ok: 2 path(s) valid\n", "")

    ran = _typed(run + " --json", folder)
    assert ran.returncode == 0, ran.stderr[-3000:]
    (result,) = json.loads(ran.stdout)["runs"]
    assert (result["run_id"], result["agent"], result["models"]["agent"]) == (
        rid, "dental-clinic", "callable:my_agent:MyAgent")
    assert (result["conversations"], result["agent_failures"], result["simulator_errors"]) == (6, 0, 0)
    assert sum(result["verdicts"].values()) == 6  # every conversation scored
    assert result["mean_composite"] > 0

    shown = _typed(show, folder)
    assert shown.returncode == 0, shown.stderr
    transcript = shown.stdout.splitlines()
    assert re.fullmatch(rf"conversation book-dental-appointment-success-s0-[0-9a-f]{{8}} of run {rid}: scenario "
                        r"book-dental-appointment-success, seed 0, caller cooperative, ended caller_hangup",
                        transcript[0]), transcript[0]
    assert transcript[1:7] == ["         Assertions         ", "┏━━━━━━━━━━━┳━━━━━━━━┳━━━━━┓",
                               "┃ assertion ┃ status ┃ why ┃", "┡━━━━━━━━━━━╇━━━━━━━━╇━━━━━┩",
                               "│ task_done │ pass   │     │", "└───────────┴────────┴─────┘"]
    said = [line for line in transcript[7:] if line.startswith("│")]
    assert said == [
        "│ 0 │ agent   │ Hello, thank you for calling. How can I help you today?        │",
        "│ 1 │ caller  │ Hi there. I'd like to book a dental appointment, please.       │",
        "│ 2 │ agent   │ May I have your full name?                                     │",
        "│ 3 │ caller  │ My name is Harold Finch.                                       │",
        "│ 4 │ agent   │ What is your date of birth?                                    │",
        "│ 5 │ caller  │ My date of birth is July 10, 1999.                             │",
        "│ 6 │ agent   │ → book_dental_appointment(date_of_birth='July 10, 1999',       │",
        "│   │         │ name='Harold Finch') = {\"ok\": true, \"record\":                  │",
        "│   │         │ {\"date_of_birth\": \"July 10, 1999\", \"name\": \"Harold Finch\"}}    │",
        "│   │         │ Thank you. One moment, please. That's done. Is there anything  │",
        "│   │         │ else I can help with?                                          │",
        "│ 7 │ caller  │ No, that's everything. Thanks, bye. [hangup]                   │",
    ]
    assert transcript[-1] == "ended: caller_hangup (after 8 turns)"


def test_an_existing_file_is_refused_without_force_and_overwritten_with_it(tmp_path: Path) -> None:
    (tmp_path / "my_prompt.txt").write_text(PROMPT, encoding="utf-8")
    (tmp_path / "clinic").mkdir()
    (tmp_path / "clinic" / "my_agent.yaml").write_text("name: mine\n", encoding="utf-8")
    args = ["init", str(tmp_path / "clinic"), "--prompt", str(tmp_path / "my_prompt.txt")]

    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    assert refused.output.splitlines() == [
        f"error: {tmp_path}/clinic/my_agent.yaml already exists: polygon init writes no file over another "
        "(--force overwrites them)"]
    assert sorted(p.name for p in (tmp_path / "clinic").iterdir()) == ["my_agent.yaml"]  # nothing written
    assert (tmp_path / "clinic" / "my_agent.yaml").read_text(encoding="utf-8") == "name: mine\n"

    forced = runner.invoke(app, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    # The prompt is outside the folder: copied in, as an agent's prompt file must be in its folder.
    assert "prompt_file: my_prompt.txt" in (tmp_path / "clinic" / "my_agent.yaml").read_text(encoding="utf-8")
    assert (tmp_path / "clinic" / "my_prompt.txt").read_text(encoding="utf-8") == PROMPT
    assert forced.output.splitlines()[1] == f"  {tmp_path}/clinic/my_prompt.txt"


def test_without_a_prompt_the_example_domain_is_written(tmp_path: Path) -> None:
    out = runner.invoke(app, ["init", str(tmp_path / "shop")])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == (
        "Wrote 11 files from the example prompt (a bicycle repair shop): 6 scenarios, tools book_bike_service, "
        "book_repair, schedule_callback, transfer_to_human")
    assert (tmp_path / "shop" / "prompt.txt").read_text(encoding="utf-8") == EXAMPLE_PROMPT


def test_a_missing_or_empty_prompt_is_one_line(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["init", str(tmp_path), "--prompt", str(tmp_path / "nope.txt")])
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    empty = runner.invoke(app, ["init", str(tmp_path), "--prompt", str(tmp_path / "empty.txt")])
    assert (missing.exit_code, missing.output) == (2, f"error: {tmp_path}/nope.txt: no such prompt file\n")
    assert (empty.exit_code, empty.output.splitlines()) == (2, [
        f"error: {tmp_path}/empty.txt: the prompt file is empty: write what your agent does, whom it helps and "
        "what it asks callers for"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt"]
