"""Reading a Russian prompt: tasks, asked-for facts, refusals, handovers and prices, by lemma.

Words are lemmatised with ``pymorphy3`` (its dictionary ships in the ``pymorphy3-dicts-ru`` wheel;
nothing is downloaded), so «фамилию», «фамилия» and «фамилии» are one cue. A task is an infinitive
in a sentence that says what the agent does («помогаешь узнать наличие лекарств, забронировать
лекарство»), or a service verb in the imperative («записывай на приём»), with the words after it as
its object; a price is «X стоит N рублей» or «стоимость X»; a refusal is what a prohibition forbids
(«не давай медицинских советов» → «попросить медицинских советов»), or an action allowed only on a
condition («бронируй только при наличии рецепта» → «… без рецепта»); a handover is «переведи на
фармацевта».
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from ._readingtypes import Parts, TaskSpec, slug

_WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)?|[A-Za-z]+|\d+(?:[.,]\d+)?|[,:;()«»—–-]")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
# Lemmas that say a sentence lists what the agent does.
_FRAME = frozenset({"помогать", "помочь", "мочь", "уметь", "задача", "принимать", "отвечать",
                    "обрабатывать", "можно"})
# Imperative service verbs that name a task on their own («записывай клиентов на приём»).
_SERVICE = frozenset({"записывать", "записать", "бронировать", "забронировать", "оформлять",
                      "оформить", "принимать", "принять", "отменять", "отменить", "переносить",
                      "перенести", "продлевать", "продлить", "заказывать", "заказать", "доставлять",
                      "проверять", "проверить", "резервировать", "зарезервировать"})
# Verbs whose prohibition a caller asks for as «попросить <object>».
_GIVE = frozenset({"давать", "дать", "советовать", "посоветовать", "рекомендовать", "сообщать",
                   "сообщить", "называть", "назвать", "говорить", "сказать", "обещать", "пообещать",
                   "ставить", "поставить", "выдавать", "выдать", "раскрывать", "предлагать"})
_OBJECT_STOP = frozenset({"и", "или", "а", "но", "если", "когда", "чтобы", "пока", "потому", "только",
                          "лишь", "затем", "потом"})
_NEGATION = frozenset({"не", "никогда", "нельзя", "запрещено"})
_CALLBACK = re.compile(r"перезвон|обратн\w* звон|перезвони", re.IGNORECASE)
_HANDOVER_WORDS = re.compile(r"перевод\w*|переключ\w*|передава\w*|оператор\w*|специалист\w*|"
                             r"администратор\w*|фармацевт\w*|врач\w*", re.IGNORECASE)
_TRANSFER = re.compile(r"\b(?:переведи|переводи|переведите|переключи|переключите|соедини|соедините)\s+"
                       r"(?:звонок\s+|клиента\s+|покупателя\s+)?(?:на|с)\s+([а-яё]+(?:\s+[а-яё]+)?)",
                       re.IGNORECASE)
_PRICE_VERB = re.compile(r"([А-ЯЁа-яё][а-яё]+(?:\s+[а-яё]+){0,3}?)\s+сто(?:ит|ят)\s+(\d[\d\s]*)\s*(?:руб|₽)",
                         re.IGNORECASE)
_PRICE_NOUN = re.compile(r"\b(?:стоимость|цена|цену|стоимости)\s+([а-яё]+(?:\s+[а-яё]+){0,3}?)(?=[.,;:—–-]|\s+[-—–]|\s+\d|$)",
                         re.IGNORECASE)
_MONEY = re.compile(r"(\d[\d\s]*(?:[.,]\d+)?)\s*(?:руб|₽)", re.IGNORECASE)
_ONLY = re.compile(r"\b(?:только|лишь)\s+(?:при\s+наличии|при|с|после)\s+([а-яё]+(?:\s+[а-яё]+)?)",
                   re.IGNORECASE)

FACTS: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("account_id", (("лицевой", "счёт"), ("номер", "договор"), ("номер", "счёт"))),
    ("postcode", (("почтовый", "индекс"), ("индекс",))),
    ("name", (("фамилия",), ("имя",), ("фио",))),
    ("email", (("почта",), ("email",), ("e-mail",))),
    ("date_of_birth", (("дата", "рождение"),)),
    ("phone", (("телефон",), ("номер", "телефон"))),
    ("address", (("адрес",),)),
    ("order_number", (("номер", "заказ"),)),
    ("insurance_id", (("полис",), ("снилс",))),
    ("reference", (("номер", "бронь"), ("номер", "брони"))),
    ("amount", (("сумма",),)),
)


@cache
def _morph() -> Any:
    # Loaded once: the dictionary takes a third of a second to open.
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@cache
def _parse(word: str) -> tuple[str, str]:
    """(lemma, part of speech) of one word; ё is kept as the dictionary spells it."""
    parsed = _morph().parse(word.lower())[0]
    return parsed.normal_form, str(parsed.tag.POS or "")


def _lemmas(tokens: list[str]) -> list[str]:
    return [_parse(t)[0] if t[:1].isalpha() else t for t in tokens]


def _object_after(tokens: list[str], start: int) -> list[str]:
    out: list[str] = []
    for tok in tokens[start:]:
        if not tok[:1].isalnum() or tok.lower() in _OBJECT_STOP or len(out) >= 5:
            break
        if _parse(tok)[1] in ("INFN",) and out:
            break
        out.append(tok)
    while out and _parse(out[-1])[1] in ("PREP", "CONJ", "PRCL"):
        out.pop()
    return out


# The agent's object «пациента», «клиента» is the caller: «записать пациента на приём» is, in the
# caller's words, «записаться на приём».
_CLIENT = frozenset({"пациент", "клиент", "покупатель", "абонент", "звонящий", "гость", "посетитель"})
_REFLEXIVE = {"записать": "записаться", "записывать": "записываться"}


# The agent's verbs in the caller's words: the agent «сообщает», the caller «узнаёт».
_CALLER_VERB = {"сообщить": "узнать", "сообщать": "узнать", "рассказать": "узнать", "рассказывать": "узнать",
                "назвать": "узнать", "называть": "узнать", "принять": "сделать", "принимать": "сделать"}


def _task(verb: str, obj: list[str]) -> TaskSpec:
    if obj and _parse(obj[0])[0] in _CLIENT:
        obj, verb = obj[1:], _REFLEXIVE.get(verb, verb)
    verb = _CALLER_VERB.get(verb, verb)
    return TaskSpec(slug("_".join([verb, *_head(obj)])), (), (" ".join([verb, *obj]),))


def _head(obj: list[str]) -> list[str]:
    """The lemma of the object's first noun (its first word when it has none), for a task name."""
    nouns = [_parse(w)[0] for w in obj if _parse(w)[1] == "NOUN"]
    return nouns[:1] or [_parse(w)[0] for w in obj[:1]]


def _with_shared_objects(tokens: list[str], found: list[tuple[int, str]]) -> list[TaskSpec]:
    """Tasks for (index, verb) pairs; «перенести или отменить запись»: a verb with no object of its
    own, followed by «или»/«и»/«,» and another verb, shares that verb's object."""
    tasks: list[TaskSpec] = []
    pending: list[str] = []
    for i, verb in found:
        obj = _object_after(tokens, i + 1)
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        if not obj and nxt in ("или", "и", ","):
            pending.append(verb)
            continue
        if obj:
            tasks += [_task(v, obj) for v in [*pending, verb]]
        pending = []
    return tasks


def _infinitive_tasks(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    words = [t for t in tokens if t[:1].isalpha()]
    # A list item that opens with an infinitive («- принять заказ;») is a task on its own.
    if not _FRAME & set(lemmas) and not (words and _parse(words[0])[1] == "INFN"):
        return []
    found = [(i, tok.lower()) for i, tok in enumerate(tokens)
             if _parse(tok)[1] == "INFN" and not (i and lemmas[i - 1] in _NEGATION)]
    return _with_shared_objects(tokens, found)


def _imperative_tasks(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    found = [(i, lemmas[i]) for i, tok in enumerate(tokens)
             if lemmas[i] in _SERVICE and _parse(tok)[1] == "VERB" and not (i and lemmas[i - 1] in _NEGATION)]
    return _with_shared_objects(tokens, found)


_ASKS = re.compile(r"\b(?:клиент|пациент|покупатель|звонящий|абонент)\w*\s+(?:просит|хочет|спрашивает)\s+", re.IGNORECASE)


def _asked_tasks(sentence: str) -> list[TaskSpec]:
    # «Если пациент просит вернуть деньги»: what callers ask for is a task.
    tasks = []
    for m in _ASKS.finditer(sentence):
        tokens = _WORD.findall(sentence[m.end():])
        if tokens and _parse(tokens[0])[1] == "INFN":
            obj = _object_after(tokens, 1)
            if obj:
                tasks.append(_task(tokens[0].lower(), obj))
    return tasks


def _offer_tasks(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    # «предложи ближайшее окно» → the caller wants «получить ближайшее окно».
    tasks = []
    for i, tok in enumerate(tokens):
        if lemmas[i] in ("предлагать", "предложить") and _parse(tok)[1] == "VERB" and not (
                i and lemmas[i - 1] in _NEGATION):
            obj = _object_after(tokens, i + 1)
            if obj and not _HANDOVER_WORDS.search(" ".join(obj)):
                tasks.append(TaskSpec(slug("_".join(["poluchit", *_head(obj)])), (), (" ".join(["получить", *obj]),)))
    return tasks


def _refusals(sentence: str, tokens: list[str], lemmas: list[str]) -> list[str]:
    out = []
    for i in range(len(tokens)):
        if lemmas[i] not in _NEGATION or i + 1 >= len(tokens):
            continue
        j = i + 1 + (tokens[i + 1].lower() == "не")
        if j >= len(tokens) or _parse(tokens[j])[1] not in ("VERB", "INFN"):
            continue
        obj = _object_after(tokens, j + 1)
        if not obj:
            continue
        verb = lemmas[j]
        out.append(" ".join(["попросить", *obj]) if verb in _GIVE else " ".join(["попросить", verb, *obj]))
    only = _ONLY.search(sentence)
    if only:
        head = _WORD.findall(sentence[: only.start()])
        head_lemmas = _lemmas(head)
        for task in _imperative_tasks(head, head_lemmas) or _object_first_task(head, head_lemmas):
            out.append(f"{task.goals[0]} без {only.group(1)}")
    return out


def _object_first_task(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    # «Рецептурные препараты бронируй …»: the object comes before the verb.
    for i, lemma in enumerate(lemmas):
        if lemma in _SERVICE and i:
            obj = [t for t in tokens[:i] if t[:1].isalpha()]
            return [TaskSpec(slug(lemma), (), (" ".join([lemma, *[w.lower() for w in obj]]),))]
    return []


def _price_tasks(sentence: str) -> list[TaskSpec]:
    tasks = [TaskSpec(slug("tsena_" + _parse(m.group(1).split()[0])[0]), (),
                      (f"узнать, сколько стоит {m.group(1).lower()}",)) for m in _PRICE_VERB.finditer(sentence)]
    tasks += [TaskSpec(slug("tsena_" + _parse(m.group(1).split()[0])[0]), (),
                       (f"узнать стоимость {m.group(1).lower()}",)) for m in _PRICE_NOUN.finditer(sentence)]
    return tasks


def _fact_keys(lemmas: list[str]) -> list[str]:
    text = " " + " ".join(lemmas).replace("ё", "е") + " "
    found = []
    for key, cues in FACTS:
        if any(f" {' '.join(cue).replace('ё', 'е')} " in text for cue in cues):
            found.append(key)
    return found


def _handover(phrase: str) -> str:
    words = phrase.split()
    if not words:
        return phrase
    # «на фармацевта» → «фармацевт»: the lemma of the first word, which is whom the call goes to;
    # a genitive noun after it stays («старшего смены» → «старший смены»).
    second = words[1:2]
    if second and not ("gent" in str(_morph().parse(second[0])[0].tag) and _parse(second[0])[1] == "NOUN"):
        second = []
    return " ".join([_parse(words[0])[0], *second])


def read_russian(prompt: str) -> Parts:
    """The parts of a Russian prompt (see the module docstring)."""
    parts = Parts()
    all_lemmas: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE.split(prompt) if s.strip()):
        tokens = _WORD.findall(sentence)
        lemmas = _lemmas(tokens)
        all_lemmas += lemmas
        only = _ONLY.search(sentence)
        if not only:
            parts.tasks += _infinitive_tasks(tokens, lemmas) + _imperative_tasks(tokens, lemmas)
            parts.tasks += _offer_tasks(tokens, lemmas) + _asked_tasks(sentence)
        parts.tasks += _price_tasks(sentence)
        parts.refusals += _refusals(sentence, tokens, lemmas)
        parts.handovers += [_handover(m.group(1)) for m in _TRANSFER.finditer(sentence)]
        if _MONEY.search(sentence):
            parts.policies.append(sentence)
    parts.amounts = [float(m.replace(" ", "").replace(",", ".")) for m in _MONEY.findall(prompt)]
    parts.facts = _fact_keys(all_lemmas)
    parts.callback = _CALLBACK.search(prompt) is not None
    parts.transfer = bool(parts.handovers) or _HANDOVER_WORDS.search(prompt) is not None
    return parts


def instrumental(phrase: str) -> str:
    """«фармацевт» → «фармацевтом»: the first word in the instrumental case (for «поговорить с …»)."""
    words = phrase.split()
    if not words:
        return phrase
    inflected = _morph().parse(words[0])[0].inflect({"ablt"})
    return " ".join([inflected.word if inflected else words[0], *words[1:]])


def with_preposition(phrase: str) -> str:
    """«с» or «со» before `phrase` in the instrumental: «с фармацевтом», «со старшим смены»."""
    word = instrumental(phrase)
    vowels = "аеёиоуыэюя"
    heavy = len(word) > 1 and word[0] in "сзшжщ" and word[1] not in vowels
    return f"{'со' if heavy or word.startswith('мн') else 'с'} {word}"
