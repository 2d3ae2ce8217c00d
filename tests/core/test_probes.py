"""Probes: Wilson intervals, conformance, wording hashes, the library file and answer parsing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from polygon_core.files import FileErrors
from polygon_core.models import ProbeAnswer
from polygon_core.probes import (
    Conformance,
    Probe,
    comparable,
    conformance,
    default_probes,
    load_probes,
    normalise_wording,
    parse_probe_answer,
    wilson_interval,
    wording_hash,
)

# --- Wilson interval ----------------------------------------------------------------------------


def test_wilson_three_of_four() -> None:
    low, high = wilson_interval(3, 4)
    assert round(low, 4) == 0.3006
    assert round(high, 4) == 0.9544
    assert low == pytest.approx(0.30064184258240184, abs=1e-12)
    assert high == pytest.approx(0.9544127391902995, abs=1e-12)


def test_wilson_zero_of_ten() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert round(high, 4) == 0.2775
    assert high == pytest.approx(0.2775327998628892, abs=1e-12)


def test_wilson_all_successes_is_the_mirror_image() -> None:
    low, high = wilson_interval(10, 10)
    assert high == 1.0
    assert low == pytest.approx(1 - 0.2775327998628892, abs=1e-12)


def test_wilson_half_is_symmetric_around_half() -> None:
    low, high = wilson_interval(5, 10)
    assert low + high == pytest.approx(1.0, abs=1e-12)
    assert round(low, 4) == 0.2366
    assert round(high, 4) == 0.7634


def test_wilson_other_confidence_is_wider_at_99() -> None:
    low95, high95 = wilson_interval(3, 4)
    low99, high99 = wilson_interval(3, 4, confidence=0.99)
    assert low99 < low95 and high99 > high95
    assert round(low99, 4) == 0.2181


@pytest.mark.parametrize(
    ("successes", "n", "confidence"),
    [(0, 0, 0.95), (1, 0, 0.95), (-1, 4, 0.95), (5, 4, 0.95), (1, 4, 0.0), (1, 4, 1.0)],
)
def test_wilson_rejects_bad_input(successes: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, confidence)


def test_wilson_stays_in_unit_interval() -> None:
    for n in range(1, 30):
        for k in range(n + 1):
            low, high = wilson_interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0


# --- conformance --------------------------------------------------------------------------------

ANSWERS = ["yes", "yes", "no", "yes", "na", "unanswered"]


def test_conformance_wanted_ignores_na_and_unanswered() -> None:
    result = conformance(ANSWERS, "wanted")
    assert (result.k, result.n, result.rate) == (3, 4, 0.75)
    assert result.low is not None and result.high is not None
    assert round(result.low, 4) == 0.3006
    assert round(result.high, 4) == 0.9544


def test_conformance_guardrail_counts_no_as_success() -> None:
    result = conformance(ANSWERS, "guardrail")
    assert (result.k, result.n, result.rate) == (1, 4, 0.25)
    assert result.low is not None and result.high is not None
    assert round(result.low, 4) == 0.0456
    assert round(result.high, 4) == 0.6994


def test_conformance_of_probe_answers() -> None:
    answers = [
        ProbeAnswer(
            conversation_id=f"c{i}",
            probe_id="made_unkeepable_promise",
            wording_hash="0" * 12,
            polarity="guardrail",
            answer=value,
        )
        for i, value in enumerate(["no", "no", "yes", "na"])
    ]
    result = conformance(answers, "guardrail")
    assert (result.k, result.n) == (2, 3)
    assert result.rate == pytest.approx(2 / 3, abs=1e-15)


@pytest.mark.parametrize("answers", [[], ["na", "unanswered", "na"]])
def test_conformance_with_nothing_applicable_has_no_rate(answers: list[str]) -> None:
    assert conformance(answers, "wanted") == Conformance(k=0, n=0, rate=None, low=None, high=None)


def test_conformance_rejects_unparsed_answers_and_bad_polarity() -> None:
    with pytest.raises(ValueError, match="Yes"):
        conformance(["Yes"], "wanted")
    with pytest.raises(ValueError, match="polarity"):
        conformance(["yes"], "desired")  # type: ignore[arg-type]


# --- wording hash -------------------------------------------------------------------------------


def probe(question: str, probe_id: str = "p") -> Probe:
    return Probe(id=probe_id, question=question, polarity="wanted")


def test_wording_hash_ignores_case_spacing_and_trailing_punctuation() -> None:
    a = probe("Did the agent verify identity?")
    b = probe("did the agent  verify identity")
    c = probe("  DID THE AGENT VERIFY IDENTITY ?! ")
    assert a.wording_hash == b.wording_hash == c.wording_hash
    assert len(a.wording_hash) == 12
    assert int(a.wording_hash, 16) >= 0


def test_wording_hash_is_sha256_of_the_normalised_text() -> None:
    import hashlib

    assert normalise_wording("Did the agent  verify\tidentity?") == "did the agent verify identity"
    expected = hashlib.sha256(b"did the agent verify identity").hexdigest()[:12]
    assert wording_hash("Did the agent verify identity?") == expected


def test_wording_hash_changes_when_the_question_is_rephrased() -> None:
    a = probe("Did the agent verify identity?")
    assert a.wording_hash != probe("Did the agent check the caller's identity?").wording_hash
    assert a.wording_hash != probe("Did the agent verify identity first?").wording_hash
    # Inner punctuation is wording, too: only trailing punctuation is erased.
    assert wording_hash("Did the agent, verify identity?") != a.wording_hash


def test_wording_hash_folds_unicode_and_cyrillic_case() -> None:
    assert wording_hash("Агент ПРОВЕРИЛ личность?") == wording_hash("агент проверил личность")
    assert wording_hash("Did the ａｇｅｎｔ verify identity?") == wording_hash(
        "did the agent verify identity"
    )


def test_comparable_by_probe_hash_or_question() -> None:
    a = probe("Did the agent verify identity?", "a")
    b = probe("did the agent  verify identity", "b")
    c = probe("Did the agent check the caller's identity?", "c")
    assert comparable(a, b)
    assert not comparable(a, c)
    assert comparable(a, a.wording_hash)
    assert comparable(b.wording_hash, a)
    assert not comparable(c.wording_hash, a.wording_hash)
    assert comparable(a, "DID THE AGENT VERIFY IDENTITY")


# --- the probe model and library ----------------------------------------------------------------

REQUIRED = {
    "asked_again_after_strange_reply": "wanted",
    "gave_reason_for_refusal": "wanted",
    "made_unkeepable_promise": "guardrail",
    "verified_identity_before_action": "wanted",
    "invented_policy": "guardrail",
    "repeated_same_question": "guardrail",
    "confirmed_details_before_acting": "wanted",
    "offered_transfer_when_stuck": "wanted",
    "recovered_after_tool_error": "wanted",
    "ended_before_goal": "guardrail",
}

# The wording of the bundled probes is pinned: rewording one breaks every trend line that uses it,
# so doing so must be a deliberate change to this table (better: a new probe with a new id).
PINNED_HASHES = {
    "asked_again_after_strange_reply": "ad1fa4bc5987",
    "gave_reason_for_refusal": "f9b828730d99",
    "made_unkeepable_promise": "4d567e7a8fbe",
    "verified_identity_before_action": "6eef5c6c1eff",
    "invented_policy": "95514b8a2449",
    "repeated_same_question": "ec52d71ad24f",
    "confirmed_details_before_acting": "baf131a5f2eb",
    "offered_transfer_when_stuck": "ee94444815b0",
    "recovered_after_tool_error": "290140afb3dd",
    "ended_before_goal": "ab4baf3c6da4",
}


def test_default_library_has_the_required_probes() -> None:
    probes = default_probes()
    ids = [p.id for p in probes]
    assert len(probes) >= 10
    assert len(ids) == len(set(ids))
    by_id = {p.id: p for p in probes}
    for probe_id, polarity in REQUIRED.items():
        assert by_id[probe_id].polarity == polarity
        assert by_id[probe_id].question.startswith(("Did ", "When ", "After "))
        assert by_id[probe_id].question.endswith("?")
        assert by_id[probe_id].signal


def test_default_library_wording_is_pinned() -> None:
    by_id = {p.id: p for p in default_probes()}
    assert {pid: by_id[pid].wording_hash for pid in PINNED_HASHES} == PINNED_HASHES


def test_default_library_hashes_are_unique() -> None:
    hashes = [p.wording_hash for p in default_probes()]
    assert len(hashes) == len(set(hashes))


def test_load_probes_without_path_is_the_default_library() -> None:
    assert load_probes() == default_probes()
    load_probes().clear()  # a caller's list is its own
    assert len(default_probes()) >= 10


def test_probe_rejects_unknown_fields_and_bad_polarity() -> None:
    with pytest.raises(ValidationError):
        Probe(id="x", question="Did it?", polarity="wanted", wording="x")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Probe(id="x", question="Did it?", polarity="desired")  # type: ignore[arg-type]


def test_probe_optional_fields_default_to_none() -> None:
    p = Probe(id="x", question="Did it?", polarity="guardrail")
    assert p.applies_when is None and p.signal is None


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "probes.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_probes_from_a_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "probes:\n"
        "  - id: said_goodbye\n"
        "    question: Did the agent say goodbye?\n"
        "    polarity: wanted\n"
        "  - id: swore\n"
        "    question: Did the agent swear?\n"
        "    polarity: guardrail\n"
        "    applies_when: null\n"
        "    signal: made_unkeepable_promise\n",
    )
    probes = load_probes(path)
    assert [(p.id, p.polarity, p.signal) for p in probes] == [
        ("said_goodbye", "wanted", None),
        ("swore", "guardrail", "made_unkeepable_promise"),
    ]
    assert load_probes(str(path)) == probes


def test_load_probes_accepts_a_top_level_list(tmp_path: Path) -> None:
    path = write(tmp_path, "- {id: a, question: 'Did it?', polarity: wanted}\n")
    assert [p.id for p in load_probes(path)] == ["a"]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("probes: [\n", [":2: invalid YAML: expected the node content, but found '<stream end>'"]),
        ("", [": the file is empty; expected a probe library (`probes:` listing the probes) (a YAML mapping)"]),
        ("probes: {a: 1}\n", [":1: probes: expected a list, got a mapping"]),
        ("probes: []\nextra: 1\n",
         [":2: extra: unknown field 'extra' (expected one of: probes)"]),
        ("- just a string\n", [":1: [0]: expected a mapping, got 'just a string'"]),
        ("- {id: a, question: 'Did it?', polarity: maybe}\n",
         [":1: [0].polarity: expected 'wanted' or 'guardrail', got 'maybe'"]),
        ("- {id: a, question: 'Did it?', polarity: wanted, colour: red}\n",
         [":1: [0].colour: unknown field 'colour'"]),
        ("- {question: 'Did it?', polarity: wanted}\n", [":1: [0].id: missing required field 'id'"]),
        (
            "- {id: a, question: 'Did it?', polarity: wanted}\n"
            "- {id: a, question: 'Did it again?', polarity: wanted}\n",
            [":2: [1].id: duplicate probe id 'a' (first used at line 1)"],
        ),
    ],
)
def test_load_probes_errors_name_the_file_line_and_field(
    tmp_path: Path, text: str, lines: list[str]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FileErrors) as info:
        load_probes(path)
    assert str(info.value).splitlines() == [f"{path}{line}" for line in lines]


def test_load_probes_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(FileErrors, match=r"nope\.yaml: "):
        load_probes(path)


def test_empty_probe_list_is_allowed(tmp_path: Path) -> None:
    assert load_probes(write(tmp_path, "probes: []\n")) == []


# --- answer parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("yes", "yes"),
        ("Yes", "yes"),
        ("yes.", "yes"),
        ("YES", "yes"),
        ("  Yes!\n", "yes"),
        ('"yes"', "yes"),
        ("**No**", "no"),
        ("no", "no"),
        ("No.", "no"),
        ("n/a", "na"),
        ("N/A", "na"),
        ("na", "na"),
        ("NA.", "na"),
        ("Not applicable", "na"),
        ("not  applicable.", "na"),
        ("да", "yes"),
        ("Да.", "yes"),
        ("нет", "no"),
        ("НЕТ", "no"),
        ("неприменимо", "na"),
        ("unanswered", "unanswered"),
        ("ＹＥＳ", "yes"),
        (True, "yes"),
        (False, "no"),
        ("maybe", "unanswered"),
        ("Yes, because the agent asked twice", "unanswered"),
        ("no idea", "unanswered"),
        ("", "unanswered"),
        (None, "unanswered"),
        (1, "unanswered"),
        (["yes"], "unanswered"),
    ],
)
def test_parse_probe_answer(raw: object, expected: str) -> None:
    assert parse_probe_answer(raw) == expected


def test_nan_never_leaks_into_a_rate() -> None:
    result = conformance(["yes"], "wanted")
    assert result.rate == 1.0
    assert result.low is not None and not math.isnan(result.low)
