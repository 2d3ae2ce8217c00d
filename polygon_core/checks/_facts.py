"""Tool arguments that contradict what the caller knows: acting on data the caller never gave.

A tool argument and a persona's ground-truth fact are *the same fact* when their keys name the same
kind of personal fact: a name (`name`, `patient_name`, `full_name`, `last_name`), a date of birth
(`dob`, `date_of_birth`, `birthday`), a phone number, an email address, a postcode, or an account,
member, policy, customer or patient number (`account_id`, `policy_number`). Keys are compared as
words (`patientName`, `patient-name` and `patient_name` are one key); a nested argument counts by
its path (`patient: {name: …}` is `patient_name`). An argument names another person's fact when
its words say so (`doctor_name`, `medicine_name`, `pharmacy_phone` are not the caller's).

The argument *contradicts* the fact when its value cannot be the caller's: a name with a word the
caller's name does not have (fuzzily, so a misspelt "Whitfeld" is the caller's; an initial counts),
another day of birth (ISO, d/m/y or m/d/y, or written with an English or Russian month name), a
phone number neither of whose digits ends the other's, another email, postcode or number (case,
spaces and punctuation ignored). A value that cannot be read as its kind contradicts nothing: the
check says "no" only when it is sure.

Only a call that went through (valid arguments, no injected fault) counts, and a later call of the
same tool that gives that fact right corrects it (the agent misheard, asked again and fixed it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz

from ..models import Conversation, DomainModel, Persona, ToolCall

__all__ = ["FactMismatch", "fact_kind", "fact_mismatches", "same_fact_value"]

# Words that may qualify a key of the caller's own fact ("patient_name", "account_holder_name").
_OWNER = frozenset({"full", "first", "last", "given", "family", "middle", "patient", "customer", "caller",
                    "client", "member", "holder", "account", "contact", "user", "person", "your", "my",
                    "policyholder", "cardholder", "card", "primary", "legal", "the", "of", "new", "old",
                    "current", "previous", "registered", "home"})
_NUMBER = frozenset({"id", "number", "no", "num", "nr", "ref", "reference"})
_ID_OWNERS = ("account", "member", "policy", "customer", "patient", "client")
_NAME_WORDS = frozenset({"name", "surname", "firstname", "lastname", "fullname"})
_PHONE_WORDS = frozenset({"phone", "telephone", "mobile", "tel", "cell", "msisdn", "phonenumber"})
_EMAIL_WORDS = frozenset({"email", "mail", "e"})
_POSTCODE_WORDS = frozenset({"postcode", "zip", "zipcode", "postal", "code", "post"})
_BIRTH_WORDS = frozenset({"dob", "birth", "birthday", "birthdate", "born", "date"})
# A name word this similar (rapidfuzz ratio, 0-100) to one of the caller's is the same word misspelt.
_NAME_RATIO = 80.0
_MIN_PHONE_DIGITS = 6

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORDS = re.compile(r"[^\W_]+")
_MONTHS = {
    **{m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                       "nov", "dec"))},
    **{m: i + 1 for i, m in enumerate(("янв", "фев", "мар", "апр", "ма", "июн", "июл", "авг", "сен", "окт",
                                       "ноя", "дек"))},
}
_ISO = re.compile(r"\b(\d{4})[-./](\d{1,2})[-./](\d{1,2})\b")
_NUMERIC = re.compile(r"\b(\d{1,2})[-./](\d{1,2})[-./](\d{2}|\d{4})\b")
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_DAY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\b")


class FactMismatch(DomainModel):
    """A tool argument whose value contradicts the caller's ground truth for the same fact."""

    turn: int
    tool: str
    argument: str
    given: str
    fact: str
    expected: str
    acts: bool = False  # the tool acts (changes something): see ToolBase.acts

    @property
    def detail(self) -> str:
        """`book_medicine(patient_name='John Smith')`, the caller's name is 'Dana Whitfield'."""
        return (f"{self.tool}({self.argument}={self.given!r}) where the caller's {self.fact} is "
                f"{self.expected!r}")


def _key_words(key: str) -> list[str]:
    return [w.casefold() for w in _WORDS.findall(_CAMEL.sub("_", key))]


def fact_kind(key: str) -> str | None:
    """The kind of personal fact a key names (`name`, `birth_date`, `phone`, `email`, `postcode`,
    `account_id`, …), or None when it names none or another person's (`doctor_name`)."""
    words = _key_words(key)
    if not words:
        return None
    rest = [w for w in words if w not in _OWNER]
    if set(words) & _NAME_WORDS and all(w in _NAME_WORDS for w in rest):
        return "name"
    if "dob" in words or ("birth" in words or "birthday" in words or "birthdate" in words or "born" in words):
        return "birth_date" if all(w in _BIRTH_WORDS | {"of"} for w in rest) else None
    if set(words) & _PHONE_WORDS and all(w in _PHONE_WORDS | _NUMBER for w in rest):
        return "phone"
    if set(words) & {"email", "mail"} and all(w in _EMAIL_WORDS | {"address"} for w in rest):
        return "email"
    if set(words) & {"postcode", "zip", "zipcode", "postal"} and all(w in _POSTCODE_WORDS for w in rest):
        return "postcode"
    for owner in _ID_OWNERS:
        if owner in words and set(words) & _NUMBER and all(w in _NUMBER or w == owner for w in rest):
            return f"{owner}_id"
    return None


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")


def _name_consistent(given: str, expected: str) -> bool | None:
    said = _WORDS.findall(_fold(given))
    known = _WORDS.findall(_fold(expected))
    if not said or not known:
        return None
    for word in said:
        if len(word) == 1:
            ok = any(k.startswith(word) for k in known)  # an initial
        else:
            ok = any(fuzz.ratio(word, k) >= _NAME_RATIO for k in known)
        if not ok:
            return False
    return True


def _month(word: str) -> int | None:
    for stem, number in _MONTHS.items():
        if word.startswith(stem) and (len(stem) > 2 or word in ("май", "мая", "мае")):
            return number
    return None


def _dates(text: str) -> set[tuple[int | None, int, int]]:
    """Every (year or None, month, day) `text` may mean."""
    folded = _fold(text)
    out: set[tuple[int | None, int, int]] = set()
    for y, m, d in _ISO.findall(folded):
        out.add((int(y), int(m), int(d)))
    for a, b, y in _NUMERIC.findall(folded):
        year = int(y) if len(y) == 4 else 1900 + int(y) if int(y) > 30 else 2000 + int(y)
        out |= {(year, int(a), int(b)), (year, int(b), int(a))}  # m/d/y or d/m/y
    months = [m for w in _WORDS.findall(folded) if (m := _month(w))]
    if months and not out:
        year_match = _YEAR.search(folded)
        written_year = int(year_match.group(1)) if year_match else None
        days = [int(d) for d in _DAY.findall(_YEAR.sub(" ", folded)) if 1 <= int(d) <= 31]
        if days:
            out.add((written_year, months[0], days[0]))
    return {(y, m, d) for y, m, d in out if 1 <= m <= 12 and 1 <= d <= 31}


def _date_consistent(given: str, expected: str) -> bool | None:
    said, known = _dates(given), _dates(expected)
    if not said or not known:
        return None
    return any(m1 == m2 and d1 == d2 and (y1 is None or y2 is None or y1 == y2)
               for y1, m1, d1 in said for y2, m2, d2 in known)


def _phone_consistent(given: str, expected: str) -> bool | None:
    said, known = re.sub(r"\D", "", given).lstrip("0"), re.sub(r"\D", "", expected).lstrip("0")
    if len(said) < _MIN_PHONE_DIGITS or len(known) < _MIN_PHONE_DIGITS:
        return None
    return said.endswith(known) or known.endswith(said)


def _code_consistent(given: str, expected: str) -> bool | None:
    said, known = "".join(_WORDS.findall(_fold(given))), "".join(_WORDS.findall(_fold(expected)))
    if not said or not known:
        return None
    return said == known


def same_fact_value(kind: str, given: Any, expected: Any) -> bool | None:
    """Whether `given` can be the caller's `expected` value of a fact of `kind` (None: cannot tell)."""
    if isinstance(given, bool) or isinstance(expected, bool) or given is None or expected is None:
        return None
    said, known = str(given), str(expected)
    if kind == "name":
        return _name_consistent(said, known)
    if kind == "birth_date":
        return _date_consistent(said, known)
    if kind == "phone":
        return _phone_consistent(said, known)
    return _code_consistent(said, known)


def _leaves(arguments: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in arguments.items():
        path = f"{prefix}_{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            yield from _leaves(value, path)
        elif not isinstance(value, (list, tuple)):
            yield path, value


def _facts(persona: Persona) -> dict[str, list[tuple[str, Any]]]:
    """kind → every (ground-truth key, value) of that kind: a caller changing their postcode knows
    the old one and the new one (`postcode`, `new_postcode`), and either is theirs."""
    out: dict[str, list[tuple[str, Any]]] = {}
    for key, value in persona.ground_truth.items():
        kind = fact_kind(key)
        if kind is not None:
            out.setdefault(kind, []).append((key, value))
    return out


def _went_through(call: ToolCall) -> bool:
    return call.valid and not call.error


def fact_mismatches(conversation: Conversation, persona: Persona | None,
                    acting: Sequence[str] = ()) -> list[FactMismatch]:
    """Tool arguments that contradict the caller's ground truth (see the module docstring), in call
    order; `acting` names the tools that act (`FactMismatch.acts`)."""
    if persona is None or not persona.ground_truth:
        return []
    facts = _facts(persona)
    if not facts:
        return []
    calls = [(t.index, c) for t in conversation.turns for c in t.tool_calls if _went_through(c)]
    found: list[FactMismatch] = []
    for pos, (turn, call) in enumerate(calls):
        for path, value in _leaves(call.arguments):
            known = facts.get(fact_kind(path) or "")
            if not known:
                continue
            kind = fact_kind(path) or ""
            checked = [same_fact_value(kind, value, expected) for _, expected in known]
            if False not in checked or True in checked:
                continue
            if _corrected_later(calls[pos + 1:], call.name, kind, [v for _, v in known]):
                continue
            key, expected = known[0]
            found.append(FactMismatch(turn=turn, tool=call.name, argument=path, given=str(value),
                                      fact=key, expected=str(expected), acts=call.name in acting))
    return found


def _corrected_later(later: Sequence[tuple[int, ToolCall]], tool: str, kind: str, known: Sequence[Any]) -> bool:
    return any(call.name == tool and any(fact_kind(p) == kind and any(same_fact_value(kind, v, e) for e in known)
                                         for p, v in _leaves(call.arguments))
               for _, call in later)
