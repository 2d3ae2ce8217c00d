"""Whether a persona set can give what the prompt says the agent will ask for.

A prompt that says "confirm the caller's identity: name and date of birth" makes an agent that asks
every caller for a date of birth; a persona set where no caller has one fails every call, and the
failure says nothing about the agent (issue 31). So generation warns, naming the field and the
sentence, for each fact the prompt asks for that no persona knows (or knows it does not know).

What the prompt asks for is read twice: the facts its reading found (`PromptReading.facts`), and,
independently, every known kind (`KINDS`) named in a sentence that asks or requires something
(«нужны фамилия и дата рождения»), since a reading that missed a list ("…identity: name and date of
birth", read as the identity alone) is exactly when the personas lack the field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..callers import KINDS, OBJECT_KINDS
from ..models import Persona
from ._morph_ru import WORD, lemmas
from ._reading import PromptReading

# Kinds a sentence names without asking the caller for them ("how much", "the charge", "a time").
_NOT_SCANNED = frozenset({"amount", "charge_date", "slot", "weight"}) | OBJECT_KINDS
_ASKING_EN = re.compile(r"\b(?:ask|asks|request|collect|verify|confirm|check|need|needs|require|requires|take down|"
                        r"note down|must give|must provide)\b", re.IGNORECASE)
_NEGATED_EN = re.compile(r"\b(?:never|not|don't|don’t|cannot|can't)\s+(?:\w+\s+){0,2}?(?:ask|request|collect)\b",
                         re.IGNORECASE)
_ASKING_RU = frozenset({"спросить", "спрашивать", "уточнить", "уточнять", "узнать", "запросить", "запрашивать",
                        "проверить", "проверять", "подтвердить", "нужный", "нужно", "требоваться", "назвать",
                        "попросить", "просить"})
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _kinds_en(sentence: str) -> list[str]:
    low = sentence.lower()
    spans: list[tuple[int, int, str]] = []
    for key, cues, _ru in KINDS:
        for cue in cues:
            spans += [(m.start(), m.end(), key) for m in re.finditer(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", low)]
    return _longest(spans)


def _kinds_ru(sentence: str) -> list[str]:
    said = [w.replace("ё", "е") for w in lemmas(WORD.findall(sentence.lower()))]
    spans: list[tuple[int, int, str]] = []
    for key, _en, cues in KINDS:
        for cue in cues:
            words = [w.replace("ё", "е") for w in cue]
            spans += [(i, i + len(words), key) for i in range(len(said) - len(words) + 1)
                      if said[i:i + len(words)] == words]
    return _longest(spans)


def _longest(spans: list[tuple[int, int, str]]) -> list[str]:
    """The kinds of spans no longer span of another kind covers ("card number" in "library card number")."""
    out: list[str] = []
    for start, end, key in spans:
        covered = any(k != key and s <= start and end <= e and e - s > end - start for s, e, k in spans)
        if not covered and key not in out:
            out.append(key)
    return out


def asked_in_prompt(prompt: str, reading: PromptReading) -> list[tuple[str, str]]:
    """(fact key, the sentence that asks for it) for each fact the prompt says the agent asks for."""
    out: dict[str, str] = {}
    for sentence in (s.strip() for s in _SENTENCE.split(prompt) if s.strip()):
        if reading.language == "ru":
            said = set(lemmas(WORD.findall(sentence.lower())))
            if not said & _ASKING_RU or {"не", "никогда"} & said:
                continue
            kinds = _kinds_ru(sentence)
        else:
            if not _ASKING_EN.search(sentence) or _NEGATED_EN.search(sentence):
                continue
            kinds = _kinds_en(sentence)
        for key in kinds:
            if key not in _NOT_SCANNED:
                out.setdefault(key, sentence)
    for key in reading.facts:
        out.setdefault(key, "")
    return list(out.items())


def coverage_warnings(prompt: str, reading: PromptReading, personas: Sequence[Persona]) -> list[str]:
    """One warning per fact the prompt asks for that no persona has (nor says it does not know)."""
    names = {name: key for key, name in reading.fact_names}
    covered = {k for p in personas for k in p.ground_truth}
    covered |= {names.get(u, u.replace(" ", "_")) for p in personas for u in p.unknown}
    warnings = []
    for key, sentence in asked_in_prompt(prompt, reading):
        if key not in covered and key not in OBJECT_KINDS:
            warnings.append(f"no persona has {key}, which the prompt says the agent asks for"
                            + (f" ({sentence!r})" if sentence else "")
                            + ": every call that asks for it will fail for want of it")
    return warnings
