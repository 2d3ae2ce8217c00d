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
from typing import Any

from ._ask_ru import russian_asks
from ._facts import Ask, known_key_ru, stem
from ._morph_ru import WORD as _WORD
from ._morph_ru import lemmas, morph, parse
from ._readingtypes import Parts, TaskSpec, slug
from ._tasks_ru import caller_verb, conjuncts, handovers, is_handover, make_task, situation_task

# «предложи два свободных времени»: options the agent offers a caller to choose from, not a goal.
OPTIONS_RU = re.compile(r"^(?:\d+|два|две|три|несколько|все|любые)?\s*(?:свободн|доступн)\w*\s+\w+", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
# Lemmas that say a sentence lists what the agent does.
_FRAME = frozenset({"помогать", "помочь", "мочь", "уметь", "задача", "принимать", "отвечать",
                    "обрабатывать", "можно", "работа", "обязанность", "функция"})
# Imperative service verbs that name a task on their own («записывай клиентов на приём»).
_SERVICE = frozenset({"записывать", "записать", "бронировать", "забронировать", "оформлять",
                      "оформить", "принимать", "принять", "отменять", "отменить", "переносить",
                      "перенести", "продлевать", "продлить", "заказывать", "заказать", "доставлять",
                      "проверять", "проверить", "резервировать", "зарезервировать"})
_OBJECT_STOP = frozenset({"и", "или", "а", "но", "если", "когда", "чтобы", "пока", "потому", "только",
                          "лишь", "затем", "потом"})
_NEGATION = frozenset({"не", "никогда", "нельзя", "запрещено"})
_HANDING = frozenset({"переводить", "перевести", "переключать", "переключить", "соединять", "соединить"})
_CALLBACK = re.compile(r"перезвон|обратн\w* звон|перезвони", re.IGNORECASE)
_HANDOVER_WORDS = re.compile(r"перевод\w*|переключ\w*|передава\w*|оператор\w*|специалист\w*|"
                             r"администратор\w*|фармацевт\w*|врач\w*", re.IGNORECASE)
_PRICE_VERB = re.compile(r"([А-ЯЁа-яё][а-яё]+(?:\s+[а-яё]+){0,3}?)\s+сто(?:ит|ят)\s+(\d[\d\s]*)\s*(?:руб|₽)",
                         re.IGNORECASE)
_PRICE_NOUN = re.compile(r"(?<!\bо )(?<!\bоб )\b(?:стоимость|цена|цену|стоимости)\s+([а-яё]+(?:\s+[а-яё]+){0,3}?)(?=[.,;:—–-]|\s+[-—–]|\s+\d|$)",
                         re.IGNORECASE)
_MONEY = re.compile(r"(\d[\d\s]*(?:[.,]\d+)?)\s*(?:руб|₽)", re.IGNORECASE)
_ONLY = re.compile(r"\b(?:только|лишь)\s+(?:при\s+наличии|при|с|после)\s+([а-яё]+(?:\s+[а-яё]+)?)",
                   re.IGNORECASE)

_parse = parse
_lemmas = lemmas
_morph = morph


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


def _task(verb: str, obj: list[str]) -> TaskSpec:
    return make_task(verb, obj)


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
            objects = [obj, *conjuncts(tokens, i + 1 + len(obj), obj)]
            tasks += [_task(v, o) for v in [*pending, verb] for o in objects]
        pending = []
    return tasks


def _infinitive_tasks(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    words = [t for t in tokens if t[:1].isalpha()]
    # A list item that opens with an infinitive («- принять заказ;») is a task on its own, and so is
    # one after a colon («Твоя работа: блокировать карты, …»).
    colon = ":" in tokens and tokens.index(":") + 1 < len(tokens) and _parse(tokens[tokens.index(":") + 1])[1] == "INFN"
    if not _FRAME & set(lemmas) and not (words and _parse(words[0])[1] == "INFN") and not colon:
        return []
    # «переводить клиентов на специалиста» is a handover, not a task a caller asks for.
    found = [(i, tok.lower()) for i, tok in enumerate(tokens)
             if _parse(tok)[1] == "INFN" and not (i and lemmas[i - 1] in _NEGATION) and lemmas[i] not in _HANDING]
    return _with_shared_objects(tokens, found)


def _imperative_tasks(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    found = [(i, lemmas[i]) for i, tok in enumerate(tokens)
             if lemmas[i] in _SERVICE and _parse(tok)[1] == "VERB" and not (i and lemmas[i - 1] in _NEGATION)]
    return _with_shared_objects(tokens, found)


_ASKS = re.compile(r"\b(?:клиент|пациент|покупатель|звонящий|абонент|гость|владелец)\w*\s+(?:просит|хочет|спрашивает)\s+",
                   re.IGNORECASE)


def _asked_tasks(sentence: str, kind: str = "success") -> list[TaskSpec]:
    # «Если пациент просит вернуть деньги»: what callers ask for is a task; «хочет компенсацию»
    # is «получить компенсацию».
    tasks = []
    for m in _ASKS.finditer(sentence):
        tokens = _WORD.findall(sentence[m.end():])
        if tokens and _parse(tokens[0])[1] == "INFN":
            obj = _object_after(tokens, 1)
            if obj:
                tasks.append(make_task(tokens[0].lower(), obj, kind))
        elif tokens and _parse(tokens[0])[1] in ("NOUN", "ADJF"):
            tasks.append(make_task("получить", _object_after(tokens, 0), kind))
    return tasks


_ANSWERS = re.compile(r"(?<!не )\bотвеча\w*\s+на\s+(?:любые\s+|все\s+|простые\s+)?вопросы\s+(о|об|по|про)\s+", re.IGNORECASE)


def _answer_tasks(sentence: str) -> list[TaskSpec]:
    # «отвечаете на вопросы о ценах»: the caller wants «узнать о ценах».
    tasks = []
    for m in _ANSWERS.finditer(sentence):
        obj = _object_after(_WORD.findall(sentence[m.end():]), 0)
        if obj:
            tasks.append(make_task("узнать", [m.group(1).lower(), *obj]))
    return tasks


def _offer_tasks(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    # «предложи ближайшее окно» → the caller wants «получить ближайшее окно».
    tasks = []
    for i, tok in enumerate(tokens):
        if lemmas[i] in ("предлагать", "предложить") and _parse(tok)[1] == "VERB" and not (
                i and lemmas[i - 1] in _NEGATION):
            obj = _object_after(tokens, i + 1)
            if obj and not _HANDOVER_WORDS.search(" ".join(obj)) and not OPTIONS_RU.search(" ".join(obj)):
                tasks.append(make_task("получить", obj))
    return tasks


# Prohibited verbs whose object is what the caller asks for («не давай советов» → «попросить советов»);
# other verbs stay in the goal, perfective («не назначайте лекарства» → «попросить назначить лекарства»).
_GIVE_THING = frozenset({"давать", "дать", "выдавать", "выдать", "предлагать", "предложить", "обещать", "пообещать"})
# Prohibited verbs of telling: what the agent must not say, the caller wants to find out.
_TELL = frozenset({"сообщать", "сообщить", "называть", "назвать", "говорить", "сказать", "раскрывать", "раскрыть",
                   "разглашать", "разгласить", "рассказывать", "рассказать"})
_ASKING = frozenset({"спрашивать", "спросить", "запрашивать", "запросить", "уточнять", "уточнить", "требовать",
                     "потребовать", "просить", "попросить", "проверять", "проверить", "переспрашивать"})
_WH = frozenset({"кто", "что", "где", "когда", "какой", "сколько", "куда", "чей"})
_ON_THE_PHONE = re.compile(r"\s+по телефону$")


def _refusals(sentence: str, tokens: list[str], lemmas: list[str]) -> list[str]:
    out = []
    for i in range(len(tokens)):
        if lemmas[i] not in _NEGATION or i + 1 >= len(tokens):
            continue
        j = i + 1 + (tokens[i + 1].lower() == "не")
        if j >= len(tokens) or _parse(tokens[j])[1] not in ("VERB", "INFN"):
            continue
        verb = lemmas[j]
        if verb in _ASKING:  # «никогда не спрашивай ПИН-код»: what the agent must not ask, no caller asks for
            continue
        if verb in _TELL and tokens[j + 1:j + 2] == [","] and j + 2 < len(tokens) and tokens[j + 2].lower() in _WH:
            clause = _object_after(tokens, j + 2)  # «не сообщай, кто получатель» → «узнать, кто получатель»
            out.append("узнать, " + " ".join(w.lower() for w in clause))
            continue
        # «не давай никаких рекомендаций»: the negative pronoun is the prohibition's, not the caller's.
        obj = [w for w in _object_after(tokens, j + 1) if _parse(w)[0] not in ("никакой", "ничей", "ни")]
        after = j + 1 + len(obj)
        if obj and after + 1 < len(tokens) and tokens[after].lower() in ("и", "или") and _parse(tokens[after + 1])[1] == "NOUN":
            obj += [tokens[after].lower(), *_object_after(tokens, after + 1)]  # «адреса и телефоны курьеров»
        if not obj:
            continue
        said = "узнать" if verb in _TELL else "попросить"
        goal = " ".join([said, *obj]) if verb in _GIVE_THING or verb in _TELL else " ".join(
            ["попросить", caller_verb(verb), *obj])
        out.append(_ON_THE_PHONE.sub("", goal))
    only = _ONLY.search(sentence)
    if only:
        head_tokens = _WORD.findall(sentence[: only.start()])
        head_lemmas = _lemmas(head_tokens)
        for task in _imperative_tasks(head_tokens, head_lemmas) or _object_first_task(head_tokens, head_lemmas):
            out.append(f"{task.goals[0]} без {only.group(1)}")
    return out


def _object_first_task(tokens: list[str], lemmas: list[str]) -> list[TaskSpec]:
    # «Рецептурные препараты бронируй …»: the object comes before the verb.
    for i, lemma in enumerate(lemmas):
        if lemma in _SERVICE and i:
            obj = [t for t in tokens[:i] if t[:1].isalpha()]
            verb = caller_verb(lemma)
            return [TaskSpec(slug(lemma), (), (" ".join([verb, *[w.lower() for w in obj]]),))]
    return []


_PRICE_DASH = re.compile(r"(?:^|,\s*)([А-ЯЁа-яё][а-яё]+(?:\s+[а-яё]+){0,3}?)\s+[—–-]\s+(?:от\s+)?\d[\d\s]*\s*(?:руб|₽)",
                         re.IGNORECASE)
# Heads of a stated amount that is not a price of something: «минимальная сумма заказа — 700 рублей».
_AMOUNT_HEADS = frozenset({"сумма", "стоимость", "цена", "плата", "тариф", "лимит", "комиссия", "взнос"})


def _accusative(words: list[str]) -> str:
    """«минимальная сумма заказа» → «минимальную сумму заказа» (up to the first noun)."""
    out, done = [], False
    for word in words:
        parsed = _morph().parse(word.lower())[0]
        form = parsed.inflect({"accs"}) if not done and "nomn" in str(parsed.tag) else None
        out.append(form.word if form else word.lower())
        done = done or parsed.tag.POS == "NOUN"
    return " ".join(out)


def _price_tasks(sentence: str) -> list[TaskSpec]:
    def task(phrase: str, goal: str) -> TaskSpec:
        return TaskSpec(slug("tsena_" + _parse(phrase.split()[0])[0]), tuple(stem(_parse(w)[0]) for w in phrase.split()),
                        (goal,))

    tasks = [task(m.group(1), f"узнать, сколько стоит {m.group(1).lower()}") for m in _PRICE_VERB.finditer(sentence)]
    tasks += [task(m.group(1), f"узнать стоимость {m.group(1).lower()}") for m in _PRICE_NOUN.finditer(sentence)]
    for m in _PRICE_DASH.finditer(sentence):
        words = m.group(1).split()
        lemmas_ = [_parse(w)[0] for w in words]
        amount = next((k for k, lemma in enumerate(lemmas_) if lemma in _AMOUNT_HEADS), None)
        if amount is not None:
            tasks.append(task(" ".join(words[amount:]), f"узнать {_accusative(words)}"))
        else:
            tasks.append(task(m.group(1), f"узнать, сколько стоит {m.group(1).lower()}"))
    return tasks


# A handover sentence that points back at the one before: «…; такие звонки переводите на врача».
_BACK = re.compile(r"^(?:переведи|переводи|переведите|переключи|переключите)\b|\b(?:такие|эти|таких|этих)\s+"
                   r"(?:звонки|вопросы|клиентов|звонков)\b", re.IGNORECASE)


def _sentence_tasks(sentence: str, tokens: list[str], lemmas_: list[str], parts: Parts, refusals: list[str],
                    before: list[str]) -> list[TaskSpec]:
    tasks: list[TaskSpec] = []
    if not _ONLY.search(sentence):
        tasks += _infinitive_tasks(tokens, lemmas_) + _imperative_tasks(tokens, lemmas_) + _offer_tasks(tokens, lemmas_)
        tasks += _answer_tasks(sentence)
        mentioned = [k for k in (known_key_ru(_lemmas(_WORD.findall(m.group(0)))) for m in _BY.finditer(sentence)) if k]
        if tasks and mentioned:  # «перенести запись по номеру телефона»: the lookup key is a fact for it
            parts.asks.append(Ask(tuple(mentioned), tuple(dict.fromkeys(t.cues[0] for t in tasks if t.cues))))
    tasks += _price_tasks(sentence)
    if is_handover(sentence):
        triggers = _asked_tasks(sentence, "transfer")
        if not triggers and not refusals and not _BACK.search(sentence):
            triggers = [t for t in [situation_task(sentence)] if t]
        if triggers:
            return triggers + tasks  # the handover's own trigger is the goal of a transfer caller
        parts.transferred += refusals or (before if _BACK.search(sentence) else [])
    elif not (set(lemmas_) & _NEGATION or _CALLBACK.search(sentence)):
        tasks += _asked_tasks(sentence)
    return tasks


_BY = re.compile(r"\bпо\s+[а-яё]+(?:\s+[а-яё]+)?", re.IGNORECASE)


def read_russian(prompt: str) -> Parts:
    """The parts of a Russian prompt (see the module docstring)."""
    parts = Parts()
    before: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE.split(prompt) if s.strip()):
        tokens = _WORD.findall(sentence)
        lemmas_ = _lemmas(tokens)
        asks = russian_asks(tokens, lemmas_)
        refusals = _refusals(sentence, tokens, lemmas_)
        parts.asks += asks
        if not asks:  # a sentence listing what to ask names no task of its own
            parts.tasks += _sentence_tasks(sentence, tokens, lemmas_, parts, refusals, before)
        parts.refusals += refusals
        parts.handovers += handovers(sentence)
        if _MONEY.search(sentence):
            parts.policies.append(sentence)
        before = refusals
    # Thousands are grouped by any space («1 500», a no-break «2\u00a0000»), the decimals by a comma.
    parts.amounts = [float(re.sub(r"\s", "", m).replace(",", ".")) for m in _MONEY.findall(prompt)]
    parts.facts = [key for ask in parts.asks for key in ask.keys]
    parts.callback = _CALLBACK.search(prompt) is not None
    parts.transfer = bool(parts.handovers) or _HANDOVER_WORDS.search(prompt) is not None
    return parts


def instrumental(phrase: str) -> str:
    """«фармацевт» → «фармацевтом», «старший мастер» → «старшим мастером»: the words up to the
    first noun in the instrumental case (for «поговорить с …»)."""
    out, done = [], False
    words = phrase.split()
    for i, word in enumerate(words):
        parsed = _adjective_before_noun(word, words[i + 1] if i + 1 < len(words) else None)
        inflected = parsed.inflect({"ablt"}) if not done else None
        # The inflected form is lowercase: the word's own capitals stay («IT-отдел» → «IT-отделом»).
        out.append("".join(c.upper() if o.isupper() else c for c, o in zip(inflected.word, word, strict=False))
                   + inflected.word[len(word):] if inflected else word)
        done = done or parsed.tag.POS == "NOUN"
    return " ".join(out)


def _adjective_before_noun(word: str, after: str | None) -> Any:
    # «старший» is a noun too («старший смены»), but before a noun in the nominative it is the
    # adjective of that noun («старший мастер» → «старшим мастером», not «старшим мастер»).
    parses = _morph().parse(word)
    nxt = _morph().parse(after)[0] if after else None
    if (parses[0].tag.POS == "NOUN" and nxt is not None and nxt.tag.POS == "NOUN" and nxt.tag.case == "nomn"):
        return next((p for p in parses if p.tag.POS == "ADJF"), parses[0])
    return parses[0]


def with_preposition(phrase: str) -> str:
    """«с» or «со» before `phrase` in the instrumental: «с фармацевтом», «со старшим смены»."""
    word = instrumental(phrase)
    vowels = "аеёиоуыэюя"
    heavy = len(word) > 1 and word[0] in "сзшжщ" and word[1] not in vowels
    return f"{'со' if heavy or word.startswith('мн') else 'с'} {word}"
