"""Recognition noise: identity at intensity zero, validation and determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polygon_core.models import Distortion
from polygon_core.noise import NoiseResult, distort

from ._noise_helpers import CID

ROOT = Path(__file__).resolve().parents[2]

EN_TEXTS = [
    "My order number is 4821.",
    "I paid forty-nine dollars, not fifty.",
    "Their card was declined.",
    "Yes",
    "  spaced   out\ttext  ",
    "",
]
RU_TEXTS = [
    "Номер заказа 4821.",
    "Я заплатил сорок девять рублей, а не пятьдесят.",
    "Мой код не подходит.",
    "Да",
    "",
]


def _as_json(result: NoiseResult) -> str:
    heard, distortions = result
    return json.dumps(
        {"heard": heard, "distortions": [d.model_dump() for d in distortions]},
        ensure_ascii=False,
        sort_keys=True,
    )


# --- distort: identity, validation, determinism -----------------------------------------------


@pytest.mark.parametrize("text", EN_TEXTS)
def test_intensity_zero_is_identity_en(text: str) -> None:
    for turn in range(20):
        assert distort(text, 0, conversation_id=CID, turn=turn, language="en") == (text, [])


@pytest.mark.parametrize("text", RU_TEXTS)
def test_intensity_zero_is_identity_ru(text: str) -> None:
    for turn in range(20):
        assert distort(text, 0.0, conversation_id=CID, turn=turn, language="ru") == (text, [])


@pytest.mark.parametrize("intensity", [-0.01, 1.01, float("nan"), 2])
def test_invalid_intensity_raises(intensity: float) -> None:
    with pytest.raises(ValueError):
        distort("hello", intensity, conversation_id=CID, turn=0, language="en")


def test_unknown_language_raises() -> None:
    with pytest.raises(ValueError):
        distort("hallo", 0.5, conversation_id=CID, turn=0, language="de")


def test_result_is_a_named_pair() -> None:
    result = distort("My order number is 4821.", 0.5, conversation_id=CID, turn=6, language="en")
    heard, distortions = result
    assert heard == result.heard and distortions == result.distortions
    assert all(isinstance(d, Distortion) for d in distortions)


def test_same_inputs_same_output_in_process() -> None:
    for language, texts in (("en", EN_TEXTS), ("ru", RU_TEXTS)):
        for text in texts:
            for turn in range(10):
                first = distort(text, 0.7, conversation_id=CID, turn=turn, language=language)
                second = distort(text, 0.7, conversation_id=CID, turn=turn, language=language)
                assert first == second


def test_same_inputs_same_output_in_another_process() -> None:
    cases = [(EN_TEXTS[1], "en", 3), (EN_TEXTS[2], "en", 3), (RU_TEXTS[1], "ru", 5)]
    code = (
        "import json, sys\n"
        "from polygon_core.noise import distort\n"
        "cases = json.loads(sys.argv[1])\n"
        "out = []\n"
        "for text, language, turn in cases:\n"
        "    heard, ds = distort(text, 0.8, conversation_id='conv-1', turn=turn, language=language)\n"
        "    out.append(json.dumps({'heard': heard, 'distortions': [d.model_dump() for d in ds]},\n"
        "                          ensure_ascii=False, sort_keys=True))\n"
        "print(json.dumps(out))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(cases)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    there = json.loads(proc.stdout)
    here = [
        _as_json(distort(text, 0.8, conversation_id=CID, turn=turn, language=language))
        for text, language, turn in cases
    ]
    assert there == here
    assert any(json.loads(item)["distortions"] for item in here)


def test_different_turn_gives_different_output() -> None:
    text = "My order number is 4821."
    turn0 = distort(text, 0.5, conversation_id=CID, turn=0, language="en")
    turn1 = distort(text, 0.5, conversation_id=CID, turn=1, language="en")
    assert turn0.heard == "uh order number is four eight two one."
    assert turn1 == (text, [])


def test_intensity_one_changes_every_nonempty_utterance() -> None:
    for language, texts in (("en", EN_TEXTS), ("ru", RU_TEXTS)):
        for text in texts:
            if not text.strip():
                continue
            for turn in range(10):
                heard, distortions = distort(text, 1, conversation_id=CID, turn=turn, language=language)
                assert heard != text and distortions


def test_empty_text_is_never_distorted() -> None:
    assert distort("   ", 1.0, conversation_id=CID, turn=0, language="en") == ("   ", [])


def test_never_drops_every_word() -> None:
    for turn in range(200):
        for language, text in (("en", "Yes"), ("en", "no thanks"), ("ru", "Да нет")):
            heard, _ = distort(text, 1.0, conversation_id=CID, turn=turn, language=language)
            assert heard.strip()


def test_numbers_are_never_half_dropped() -> None:
    text = "I paid forty nine dollars and one hundred and five cents"
    whole_number_drops = 0
    for turn in range(200):
        for d in distort(text, 0.6, conversation_id=CID, turn=turn, language="en").distortions:
            if d.kind == "drop" and d.position in (2, 6):
                assert d.original in ("forty nine", "one hundred and five")
                whole_number_drops += 1
            assert not (d.kind == "drop" and d.position in (3, 7, 8, 9))
    assert whole_number_drops > 0


def test_raising_intensity_only_adds_digits_and_homophones() -> None:
    text = "Their card number is 4821 and the bill was forty nine dollars"
    for turn in range(30):
        previous: set[tuple[str, int]] = set()
        for intensity in (0.2, 0.4, 0.6, 0.8, 1.0):
            current = {
                (d.kind, d.position)
                for d in distort(text, intensity, conversation_id=CID, turn=turn, language="en").distortions
                if d.kind in ("digits", "homophone")
            }
            assert previous <= current
            previous = current
