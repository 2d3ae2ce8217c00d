"""Conflicts between rules read as (condition, action, polarity), checked pair by pair.

A rule's sentence is split into its condition (``If the caller is in a hurry, …``, ``…, если клиент
торопится``), its action (the verbs, grouped by what they do, and their objects) and what it exempts
(``… without verifying``, ``… без проверки``, ``no need to …``). Verbs that do one thing are one
class (give/tell/quote → *tell*; называть/сообщать → *tell*), nouns that name one thing are one key
(price/cost → *price*; цена/стоимость → *price*), and Russian words are compared by their lemma
(``pymorphy3``), so «цены» and «цену» are one word. Two checks:

- an exception waters a rule down: an unconditional obligation, and a conditional rule that does the
  same action without part of it (``Always verify identity before booking`` + ``If the caller is in
  a hurry, book without verifying``); or an unconditional prohibition and a conditional permission or
  order to do that very action;
- actions that exclude each other: one rule forbids what another asks for or allows, the same kind
  of action on mostly the same objects, under conditions that can hold at once (``Never give prices`` +
  ``Always tell the caller the price of a cleaning``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ._text import Unit, words_in
from .patterns import LanguagePatterns


@dataclass(frozen=True)
class _Config:
    condition: re.Pattern[str]
    trailing: re.Pattern[str]
    exemption: re.Pattern[str]
    classes: dict[str, str]


def _en_config(stem: Callable[[str], str]) -> _Config:
    groups = {
        "tell": "give tell quote share provide say mention disclose state reveal explain inform read",
        "book": "book booking schedule reserve reservation appointment",
        "verify": "verify verification verifying check confirm validate authenticate identify",
        "refund": "refund reimburse reimbursement",
        "transfer": "transfer escalate",
        "promise": "promise guarantee",
        "find": "find look search locate",
        "offer": "offer suggest propose",
        "price": "price prices cost costs fee fees",
    }
    return _Config(
        condition=re.compile(r"^\W*(?:if|when|whenever|unless|in case)\s+(.+?),\s*(.+)$", re.I | re.S),
        trailing=re.compile(r",?\s+(?:if|when|whenever|unless)\s+(.+)$", re.I | re.S),
        exemption=re.compile(r"\b(?:without|no need to|(?:do not|don't|don’t) (?:need|have) to|need not|"
                             r"skip(?:ping)?)\s+(.+)$", re.I | re.S),
        classes={stem(w): name for name, words in groups.items() for w in words.split()})


@cache
def _morph() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@cache
def _ru_lemma(word: str) -> str:
    return str(_morph().parse(word.lower())[0].normal_form).replace("ё", "е")


def _ru_config() -> _Config:
    groups = {
        "tell": "называть назвать сообщать сообщить говорить сказать озвучивать озвучить давать дать "
                "рассказывать рассказать объяснять объяснить информировать",
        "book": "записывать записать бронировать забронировать оформлять оформить запись бронь бронирование",
        "verify": "проверять проверить проверка подтверждать подтвердить подтверждение уточнять уточнить",
        "refund": "возвращать вернуть возврат",
        "transfer": "переводить перевести соединять соединить",
        "promise": "обещать пообещать гарантировать",
        "find": "искать найти поискать отыскать",
        "offer": "предлагать предложить",
        "price": "цена стоимость тариф",
    }
    return _Config(
        condition=re.compile(r"^\W*(?:если|когда|в случае,? если|в случае)\s+(.+?),\s*(.+)$", re.I | re.S),
        trailing=re.compile(r",?\s+(?:если|когда)\s+(.+)$", re.I | re.S),
        exemption=re.compile(r"(?<!\w)(?:без|не нужно|не надо|не обязательно|можно не|можешь не|пропусти|"
                             r"пропускай)\s+(.+)$", re.I | re.S),
        classes={_ru_lemma(w): name for name, words in groups.items() for w in words.split()})


@cache
def _config(code: str, stem: Callable[[str], str]) -> _Config:
    return _ru_config() if code == "ru" else _en_config(stem)


@dataclass(frozen=True)
class Statement:
    """One rule as condition, action and polarity; every set holds comparison keys."""

    unit: Unit
    polarity: str
    condition: frozenset[str]
    verbs: frozenset[str]
    objects: frozenset[str]
    exempt: frozenset[str]

    @property
    def action(self) -> frozenset[str]:
        """The verbs and objects together."""
        return self.verbs | self.objects


def _keys(text: str, patterns: LanguagePatterns, config: _Config) -> tuple[set[str], set[str]]:
    """(verb classes, other keys) of the content words of `text`."""
    verbs: set[str] = set()
    others: set[str] = set()
    for word in words_in(text):
        low = word.text.lower().replace("’", "'")
        if len(low) <= 2 or low in patterns.stopwords:
            continue
        key = _ru_lemma(low) if patterns.code == "ru" else patterns.stem(low)
        name = config.classes.get(key)
        if name == "price":
            others.add(name)
        elif name is not None:
            verbs.add(name)
        else:
            others.add(key)
    return verbs, others


def action_keys(text: str, patterns: LanguagePatterns) -> set[str]:
    """The comparison keys of the content words of `text`: verb classes, lemmas (Russian) or stems."""
    verbs, others = _keys(text, patterns, _config(patterns.code, patterns.stem))
    return verbs | others


def has_imperative(text: str) -> bool:
    """Whether a Russian `text` holds a verb in the imperative mood anywhere («Постоянным клиентам
    предлагай скидку»): a rule even when it does not open with its verb."""
    return any("impr" in _morph().parse(word.text.lower())[0].tag for word in words_in(text))


def disjoint(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two conditions that cannot be meant to hold at once: both set, and each names something the
    other does not (``a business customer`` / ``a private customer``)."""
    return bool(a) and bool(b) and not a <= b and not b <= a


def _polarity(text: str, patterns: LanguagePatterns) -> str:
    if patterns.prohibition.search(text):
        return "order" if patterns.condition.search(text) else "never"
    if patterns.obligation.search(text):
        return "must"
    if patterns.permission.search(text):
        return "may"
    return "do"


def statement_of(unit: Unit, patterns: LanguagePatterns) -> Statement:
    """Split one rule's unit into condition, action, exemption and polarity."""
    config = _config(patterns.code, patterns.stem)
    main, condition = unit.text, ""
    if (m := config.condition.match(main)) is not None:
        condition, main = m.group(1), m.group(2)
    elif (m := config.trailing.search(main)) is not None:
        condition, main = m.group(1), main[: m.start()]
    exempt_text = ""
    if (m := config.exemption.search(main)) is not None:
        exempt_text, main = m.group(1), main[: m.start()]
    verbs, objects = _keys(main, patterns, config)
    exempt_verbs, exempt_objects = _keys(exempt_text, patterns, config)
    cond_verbs, cond_objects = _keys(condition, patterns, config)
    return Statement(unit, _polarity(main, patterns), frozenset(cond_verbs | cond_objects),
                     frozenset(verbs), frozenset(objects), frozenset(exempt_verbs | exempt_objects))


def main_clause(unit: Unit, patterns: LanguagePatterns) -> Unit | None:
    """The main clause of a conditional sentence (``If X, book …`` → ``book …``), as a unit with
    its exact span, or None when the sentence has no leading condition."""
    m = _config(patterns.code, patterns.stem).condition.match(unit.text)
    if m is None:
        return None
    return Unit(unit.index, unit.start + m.start(2), unit.start + m.end(2), m.group(2))


_POSITIVE = ("must", "do", "may")


def waters_down(rule: Statement, exception: Statement) -> bool:
    """`exception` is a conditional rule that relaxes the unconditional `rule`."""
    if rule.condition or not exception.condition:
        return False
    if rule.polarity in ("must", "do") and exception.exempt & rule.action:
        return bool(exception.action & rule.action) and not exception.exempt <= exception.action
    if rule.polarity == "never" and exception.polarity in _POSITIVE:
        shared = rule.action & exception.action
        return bool(rule.verbs & exception.verbs) and (bool(rule.objects & exception.objects) or len(shared) >= 2)
    return False


def exclusive(a: Statement, b: Statement) -> bool:
    """One forbids what the other asks for or allows: same kind of action, a shared object, and
    conditions that can hold together (not `disjoint`)."""
    if {a.polarity, b.polarity} not in ({"never", "must"}, {"never", "do"}, {"never", "may"}):
        return False
    if disjoint(a.condition, b.condition):
        return False
    # The objects must be mostly the same thing: "rates of other hotels" is not "the room rate".
    shared = a.objects & b.objects
    return bool(a.verbs & b.verbs) and len(shared) > 0.5 * min(len(a.objects), len(b.objects))
