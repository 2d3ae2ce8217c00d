"""Scenario files: one-line errors with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon_core.files import FileErrors, PolygonFileError, load_scenario, parse_yaml

from ._files_helpers import SMALL, only_error, write

# The assertion checker is off unless a test injects one (tests/core/conftest.py).
pytestmark = pytest.mark.usefixtures("_no_assertion_checker")


# --- one-line errors with file, line and field ------------------------------------------------


def test_unclosed_bracket_reports_the_line_it_opened_on(tmp_path: Path) -> None:
    text = SMALL.replace("  - lookup_account", "  - [lookup_account\nx: 1")
    path = write(tmp_path / "s.yaml", text)
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (9, None)
    assert str(error) == (
        f"{path}:9: invalid YAML: '[' is never closed (expected ',' or ']', but got ':' on line 10)"
    )


def test_bad_indent_reports_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("  goal:", " goal:"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert error.line == 7
    assert error.message.startswith("invalid YAML: bad indentation")
    assert "\n" not in str(error)


def test_unquoted_colon_in_a_value(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("get a refund", "refund: now"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert error.line == 7
    assert "quote" in error.message


def test_unknown_field_names_its_line_and_suggests_the_right_one(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("temperament", "temprament"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.file, error.line, error.field) == (str(path), 6, "persona.temprament")
    assert error.message.startswith(
        "unknown field 'temprament'; did you mean 'temperament'? (expected one of: name, type, "
        "temperament, "
    )
    assert str(error).startswith(f"{path}:6: persona.temprament: unknown field 'temprament'")
    assert "\n" not in str(error)


def test_wrong_type(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("max_turns: 5", "max_turns: many"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:3: max_turns: expected an integer, got 'many'"


def test_missing_required_field_points_at_the_parent_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("id: small\n", ""))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:1: id: missing required field 'id'"

    path = write(tmp_path / "g.yaml", SMALL.replace("  goal: get a refund\n", ""))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:4: persona.goal: missing required field 'goal'"


def test_several_errors_are_reported_together_in_line_order(tmp_path: Path) -> None:
    text = SMALL.replace("max_turns: 5", "max_turns: 0").replace("temperament", "temprament")
    path = write(tmp_path / "s.yaml", text + "noise: loud\n")
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert [(e.line, e.field) for e in exc.value.errors] == [
        (3, "max_turns"),
        (6, "persona.temprament"),
        (10, "noise"),
    ]
    assert exc.value.errors[0].message == "must be at least 1, got 0"
    assert len(str(exc.value).splitlines()) == 3


def test_model_validator_error_points_at_the_key_it_names(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("impatient", "grumpy"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (6, "persona.temperament")
    assert error.message.startswith("unknown temperament 'grumpy'")


def test_literal_error_suggests_a_close_value(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("temperament: impatient", "type: bussy"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (6, "persona.type")
    assert error.message.endswith("got 'bussy'; did you mean 'busy'?")


def test_number_where_text_is_expected_says_to_quote_it(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("id: small", "id: 2024"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == (
        f"{path}:1: id: expected a string, got 2024 (put it in quotes to use it as text)"
    )


def test_union_errors_become_one_message(tmp_path: Path) -> None:
    text = SMALL.replace("  goal: get a refund", "  goal: get a refund\n  ground_truth: {a: [1]}")
    path = write(tmp_path / "s.yaml", text)
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (8, "persona.ground_truth.a")
    assert error.message == "expected a string, an integer, a number or a boolean, got a list"


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("seed: 1\n", "seed: 1\nseed: 2\n"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:3: seed: duplicate key 'seed' (first defined on line 2)"


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("", "the file is empty; expected a scenario (a YAML mapping)", None),
        ("# only a comment\n", "the file is empty; expected a scenario (a YAML mapping)", None),
        (
            "\n- a\n- b\n",
            "expected a scenario (a YAML mapping of fields) at the top level, got a list",
            2,
        ),
    ],
)
def test_empty_or_non_mapping_file(
    tmp_path: Path, text: str, message: str, line: int | None
) -> None:
    path = write(tmp_path / "s.yaml", text)
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.message, error.line, error.field) == (message, line, None)


def test_control_character_reports_its_line() -> None:
    with pytest.raises(PolygonFileError) as exc:
        parse_yaml("id: x\nseed: 1\u0007\n", "s.yaml")
    assert str(exc.value) == "s.yaml:2: invalid YAML: character U+0007 is not allowed"


def test_error_string_omits_missing_parts() -> None:
    assert str(PolygonFileError("a.yaml", "no such file")) == "a.yaml: no such file"
    assert str(PolygonFileError("a.yaml", "m", line=3)) == "a.yaml:3: m"
    assert str(PolygonFileError("a.yaml", "m", field="tools[1]")) == "a.yaml: tools[1]: m"
    two_lines = PolygonFileError("a.yaml", "two\nlines", line=1, field="x")
    assert str(two_lines) == "a.yaml:1: x: two lines"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileErrors) as exc:
        load_scenario(tmp_path / "nope.yaml")
    assert str(only_error(exc)) == f"{tmp_path / 'nope.yaml'}: no such file"


def test_merge_keys_report_the_line_that_wins(tmp_path: Path) -> None:
    text = "id: m\npersona:\n  <<: {goal: g, difficulty: 2}\n  difficulty: 7\n"
    with pytest.raises(FileErrors) as exc:
        load_scenario(write(tmp_path / "m.yaml", text))
    assert str(only_error(exc)) == (
        f"{tmp_path / 'm.yaml'}:4: persona.difficulty: must be at most 5, got 7"
    )
