"""What a call is about: the object of the caller's task, its details, and the formats the prompt gives.

A caller who wants to "change a flight" knows which flight and the new date; one who wants to
«забронировать лекарство» knows which medicine and its dose (issue 31). The object is read from the
task's own words (`object_kinds`), or from the prompt's "ask which …" lists (the readers strip the
question word, so «какое лекарство» is the `medicine` kind). Its value comes from the prompt's own
vocabulary where the prompt names candidates ("a check-up, a hygiene appointment or a filling",
«к педиатру, к стоматологу или к окулисту»), the task's own word first, else from a locale table;
a flight is numbered with the airline's code made from its name ("Bluebird Airways" → ``BL``).

A typed identifier is generated as the prompt types it: "the 6-character booking reference" is six
letters and digits (``K7Q2MX``), «8-значный номер заказа» eight digits (`formats`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

from ..models import FactValue
from ._facts import known_key_en, known_key_ru
from ._morph_ru import WORD, lemmas
from ._readingtypes import slug

# Words of a task's goal (English, lowercase; Russian, lemmas) that name the object kind it is about.
_OBJECT_WORDS: dict[str, dict[str, str]] = {
    "en": {"flight": "flight", "flights": "flight", "medicine": "medicine", "medication": "medicine",
           "medicines": "medicine", "medications": "medicine", "prescription": "medicine"},
    "ru": {"рейс": "flight", "лекарство": "medicine", "препарат": "medicine", "медикамент": "medicine"},
}
# Details that go with an object: a medicine's dose; a changed flight's new date.
_WITH = {"medicine": ("dosage",)}
_CHANGE = re.compile(r"^(?:change|move|reschedule|rebook|amend|поменять|изменить|перенести|сменить)\b",
                     re.IGNORECASE)
# Candidate values per kind and language: a prompt that names some of them narrows the choice to those.
_CANDIDATES: dict[str, dict[str, tuple[str, ...]]] = {
    "medicine": {"en": ("ibuprofen", "amoxicillin", "atorvastatin", "metformin", "losartan"),
                 "ru": ("Ибупрофен", "Амоксициллин", "Аторвастатин", "Метформин", "Лозартан")},
    "doctor": {"en": ("GP", "dentist", "hygienist", "paediatrician", "optician", "dermatologist"),
               "ru": ("педиатр", "стоматолог", "окулист", "терапевт", "лор", "хирург", "невролог", "кардиолог")},
    "treatment": {"en": ("a check-up", "a hygiene appointment", "a filling", "a cleaning", "a crown", "an extraction",
                         "a consultation", "a massage", "a haircut"),
                  "ru": ("консультация", "чистка", "пломба", "массаж", "стрижка", "маникюр", "осмотр")},
}
# A medicine's usual strength, so the dose a caller gives fits the medicine it names.
_DOSES = {"ibuprofen": "200", "amoxicillin": "500", "atorvastatin": "20", "metformin": "850", "losartan": "50"}
_MG = {"en": "{n} mg", "ru": "{n} мг"}
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I, O, 0, 1: said aloud, they are confused
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
            "twelve": 12}
_TYPED_EN = re.compile(r"\b(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twelve)[- ]"
                       r"(character|char|letter|digit|symbol)s?\b((?:\s+[a-z']+){1,3})", re.IGNORECASE)
_TYPED_RU = re.compile(r"(\d{1,2})-?\s*(значн|символьн|буквенн|цифров)\w*((?:\s+[а-яё]+){1,3})", re.IGNORECASE)
_AIRLINE = re.compile(r"\b([A-Z][a-z]+)\s+(?:Airways|Airlines|Air\b|Aviation)|авиакомпани\w*\s+«([А-ЯЁA-Z])")


# A caller who asks the agent to choose ("recommend a medicine", «назначить лекарства») knows no object.
_CHOOSING = re.compile(r"recommend|prescri|advi[cs]e|suggest|назнач|подобр|посовет|порекоменд|совет", re.IGNORECASE)


def object_kinds(goal: str, language: str) -> tuple[str, ...]:
    """The object kinds (and their details) a task's goal is about: "change a flight" → flight and
    new date; «забронировать лекарство для самовывоза» → medicine and dosage."""
    table = _OBJECT_WORDS.get(language, {})
    if _CHOOSING.search(goal):
        return ()
    said = lemmas(WORD.findall(goal)) if language == "ru" else re.findall(r"[a-z]+", goal.lower())
    kinds: list[str] = []
    for word in said:
        kind = table.get(word.lower())
        if kind and kind not in kinds:
            kinds += [kind, *_WITH.get(kind, ())]
    if "flight" in kinds and _CHANGE.search(goal):
        kinds.append("new_date")
    return tuple(kinds)


def formats(prompt: str, language: str) -> tuple[tuple[str, int, str], ...]:
    """(fact key, length, ``character`` | ``digit``) for each identifier the prompt types by length."""
    out: list[tuple[str, int, str]] = []
    if language == "ru":
        for m in _TYPED_RU.finditer(prompt):
            key = known_key_ru(lemmas(WORD.findall(m.group(3))))
            if key:
                out.append((key, int(m.group(1)), "digit" if m.group(2).lower().startswith(("знач", "цифр"))
                            else "character"))
        return tuple(out)
    for m in _TYPED_EN.finditer(prompt):
        key = known_key_en(m.group(3).lower())
        n = m.group(1).lower()
        if key:
            out.append((key, int(n) if n.isdigit() else _NUMBERS[n], "digit" if m.group(2).lower() == "digit"
                        else "character"))
    return tuple(out)


def vocabulary(prompt: str, language: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(kind, the candidates the prompt names) for each object kind it names any of, and the
    airline's two-letter code (``flight_code``) when it names an airline."""
    low = prompt.lower()
    said = set(lemmas(WORD.findall(low))) if language == "ru" else set()
    out: list[tuple[str, tuple[str, ...]]] = []
    for kind, by_language in _CANDIDATES.items():
        named = tuple(c for c in by_language.get(language, ()) if _named(c, low, said, language))
        if named:
            out.append((kind, named))
    airline = _AIRLINE.search(prompt)
    if airline:
        brand = airline.group(1) or airline.group(2)
        out.append(("flight_code", ((brand[:2].upper() if len(brand) > 1 else "SU"),)))
    return tuple(out)


def _named(candidate: str, low: str, said: set[str], language: str) -> bool:
    if language == "ru":
        return candidate.lower() in said
    bare = re.sub(r"^(?:a|an)\s+", "", candidate.lower())
    return re.search(rf"(?<![a-z]){re.escape(bare)}s?(?![a-z])", low) is not None


def object_value(key: str, rng: random.Random, language: str, goal: str,
                 vocab: Mapping[str, tuple[str, ...]]) -> FactValue | None:
    """A value for object kind `key` (None for a key that is no object kind): the one the task's goal
    names, else one of the prompt's candidates, else one of the locale's."""
    if key == "flight":
        code = vocab.get("flight_code", ("SU" if language == "ru" else "BA",))[0]
        return f"{code} {rng.randint(100, 1999)}"
    if key not in _CANDIDATES:
        return None
    pool = vocab.get(key) or _CANDIDATES[key][language]
    said = goal.lower()
    said_lemmas = set(lemmas(WORD.findall(said))) if language == "ru" else set()
    own = [c for c in pool if _named(c, said, said_lemmas, language)]
    return rng.choice(own or list(pool))


def dose_for(medicine: FactValue, rng: random.Random, language: str) -> str:
    """A dose that fits `medicine` (its usual strength), in the language's units."""
    n = _DOSES.get(str(medicine).lower(), _DOSES.get(_latin(str(medicine)), rng.choice(("10", "20", "250", "500"))))
    return _MG[language].format(n=n)


_RU_NAMES = {"ибупрофен": "ibuprofen", "амоксициллин": "amoxicillin", "аторвастатин": "atorvastatin",
             "метформин": "metformin", "лозартан": "losartan"}


def _latin(name: str) -> str:
    return _RU_NAMES.get(name.lower(), name.lower())


def typed_value(kind: str, length: int, rng: random.Random) -> str:
    """An identifier of `length` characters: digits, or upper-case letters and digits (at least one
    of each, as an airline's booking code is)."""
    if kind == "digit":
        return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(length - 1))
    while True:
        code = "".join(rng.choice(_CODE_ALPHABET) for _ in range(length))
        if length < 2 or (any(c.isdigit() for c in code) and any(c.isalpha() for c in code)):
            return code


# "get a refill without a prescription", «забронировать препараты без рецепта»: what the caller lacks.
_WITHOUT = re.compile(r"\b(?:without|без)\s+(?:(?:a|an|the|any)\s+)?([^\W\d_]+)", re.IGNORECASE)
_PRESCRIPTION = re.compile(r"^(?:prescri|рецеп)", re.IGNORECASE)


def without(keys: list[str], goal: str) -> list[str]:
    """The facts of a caller whose goal is to do something without X: none about X (its number),
    and, for a prescription, the `prescription` fact itself (False: asked, the caller says it has none)."""
    m = _WITHOUT.search(goal)
    if not m:
        return keys
    lacked = slug(m.group(1))[:5]
    out = [k for k in keys if lacked not in k]
    if _PRESCRIPTION.match(m.group(1)) and "prescription" not in out:
        out.append("prescription")
    return out


def lacks_prescription(goal: str) -> bool:
    """Whether the goal is to get something without a prescription."""
    m = _WITHOUT.search(goal)
    return bool(m and _PRESCRIPTION.match(m.group(1)))
