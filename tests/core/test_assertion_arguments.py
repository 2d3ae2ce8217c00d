"""An assertion's condition names are checked against the tool's schema when the suite loads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.assertions import check_expression
from polygon_core.demo import demo_dir
from polygon_core.files import validate_paths

KNOWN = {"issue_refund", "refund_issued"}
ARGUMENTS = {"issue_refund": frozenset({"amount", "reason"}), "refund_issued": frozenset({"amount", "reason"})}


@pytest.mark.parametrize(("expression", "expected"), [
    ("refund_issued(amont == 49.00)",
     "'amont' is not an argument of refund_issued (its arguments: amount, reason); did you mean 'amount'?"),
    ("count(issue_refund, args.amont > 1) == 1",
     "'amont' is not an argument of issue_refund (its arguments: amount, reason); did you mean 'amount'?"),
    ("refund_issued(amont=49.0)",
     "'amont' is not an argument of refund_issued (its arguments: amount, reason); did you mean 'amount'?"),
    ("refund_issued(amount == 49.00 and turn > 1)", None),
    ("refund_issued(amount == state['ledger'][0]['amount'])", None),
    ("count(refund_issued, amount > 1) == 1", None),
])
def test_condition_names_are_checked_where_the_schema_lists_them(expression: str, expected: str | None) -> None:
    assert check_expression(expression, known_names=KNOWN, arguments=ARGUMENTS) == expected


def test_without_a_listed_schema_condition_names_stay_unchecked() -> None:
    assert check_expression("refund_issued(amont == 49.00)", known_names=KNOWN) is None


def test_validate_refuses_a_misspelled_condition_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    scenario = tmp_path / "suite" / "scenarios" / "01_billing_dispute.yaml"
    text = scenario.read_text(encoding="utf-8")
    assert "refund_issued(amount == 49.00)" in text
    scenario.write_text(text.replace("refund_issued(amount == 49.00)", "refund_issued(amont == 49.00)", 1),
                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    line = next(i for i, t in enumerate(scenario.read_text().splitlines(), 1) if "amont" in t)
    expected = (f"suite/scenarios/01_billing_dispute.yaml:{line}: assertions.goal_met: 'amont' is not an argument "
                "of refund_issued (its arguments: amount, reason); did you mean 'amount'?")
    assert [str(e) for e in validate_paths([Path("suite")])] == [expected]
    result = CliRunner().invoke(app, ["validate", "suite"])
    assert result.exit_code == 2 and result.stderr.strip() == f"error: {expected}", result.output
