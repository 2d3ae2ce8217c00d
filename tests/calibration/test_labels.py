"""The labels file: CSV and JSON Lines, strict, every bad row named by file:line and field."""

from __future__ import annotations

import pytest

from polygon_core.calibration import Label, LabelsError, labels_hash, parse_labels

CRITERIA = ["goal_completion", "dialogue_quality"]


def test_csv_with_conversation_and_external_ids() -> None:
    text = ("conversation_id,external_id,source,rater,criterion,score\n"
            "conv-1,,,amara,overall,4\n"
            "\n"
            ",call-7,support,bo, goal_completion ,5\n")
    assert parse_labels(text, file="l.csv", criteria=CRITERIA) == [
        Label(file="l.csv", line=2, rater="amara", criterion="overall", score=4, conversation_id="conv-1"),
        Label(file="l.csv", line=4, rater="bo", criterion="goal_completion", score=5, external_id="call-7",
              source="support"),
    ]


def test_json_lines() -> None:
    text = ('{"conversation_id": "c1", "rater": "a", "criterion": "overall", "score": 3}\n'
            '\n'
            '{"external_id": "x", "rater": "a", "criterion": "dialogue_quality", "score": 2.0}\n')
    assert parse_labels(text, file="labels.jsonl", criteria=CRITERIA) == [
        Label(file="labels.jsonl", line=1, rater="a", criterion="overall", score=3, conversation_id="c1"),
        Label(file="labels.jsonl", line=3, rater="a", criterion="dialogue_quality", score=2, external_id="x"),
    ]


def _errors(text: str, file: str) -> list[str]:
    with pytest.raises(LabelsError) as info:
        parse_labels(text, file=file, criteria=CRITERIA)
    return info.value.errors


def test_every_bad_csv_row_is_named() -> None:
    text = ("external_id,rater,criterion,score\n"
            "a,r1,overall,4\n"
            "a,r1,overall,5\n"
            "b,,overall,6\n"
            "c,r2,tone,3\n"
            "d,r2,overall,4.5\n"
            "e,r1,overall\n")
    assert _errors(text, "l.csv") == [
        "l.csv:3: row: rater 'r1' already rated 'overall' of 'a' at line 2; expected one rating per rater "
        "and criterion",
        "l.csv:4: rater: missing; expected a non-empty rater name",
        "l.csv:4: score: expected an integer from 1 to 5, got '6'",
        "l.csv:5: criterion: unknown criterion 'tone'; expected one of overall, goal_completion, dialogue_quality",
        "l.csv:6: score: expected an integer from 1 to 5, got '4.5'",
        "l.csv:7: row: 3 cells; expected 4 (external_id, rater, criterion, score)",
    ]


def test_unknown_column_is_one_error_at_the_header() -> None:
    assert _errors("conversation,rater,criterion,score\nc,a,overall,3\n", "l.csv") == [
        "l.csv:1: header: unknown or repeated column(s) 'conversation'; expected columns among "
        "conversation_id, external_id, source, rater, criterion, score"]


def test_every_bad_json_line_is_named() -> None:
    text = ('{"conversation_id": "x", "rater": "a", "criterion": "overall", "score": true}\n'
            '{"conversation_id": "x", "external_id": "y", "rater": "a", "criterion": "overall", "score": 3}\n'
            '[1]\n'
            '{bad\n'
            '{"conversation_id": "x", "rater": "a", "criterion": "overall", "score": 4, "note": "hm"}\n'
            '{"conversation_id": "z", "source": "s", "rater": "a", "criterion": "overall", "score": 4}\n')
    assert _errors(text, "l.jsonl") == [
        "l.jsonl:1: score: expected an integer from 1 to 5, got True",
        "l.jsonl:2: row: give exactly one of conversation_id and external_id",
        "l.jsonl:3: row: a JSON list; expected an object with conversation_id, external_id, source, rater, "
        "criterion, score",
        "l.jsonl:4: row: not valid JSON (Expecting property name enclosed in double quotes at column 2); "
        "expected one JSON object per line",
        "l.jsonl:5: note: unknown field; expected fields among conversation_id, external_id, source, rater, "
        "criterion, score",
        "l.jsonl:6: row: source only goes with external_id (an imported call)",
    ]


def test_an_empty_file_is_an_error() -> None:
    assert _errors("conversation_id,rater,criterion,score\n", "l.csv") == [
        "l.csv: no ratings found (expected a header row and one rating per row)"]


def test_labels_hash_is_sha256_of_the_bytes() -> None:
    assert labels_hash(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
