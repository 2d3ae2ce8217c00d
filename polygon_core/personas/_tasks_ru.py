"""Russian task phrases in the caller's words, coordinated objects, handovers and their triggers.

- The caller's verb is perfective and its own: the agent «записывает клиентов на замену масла», the
  caller wants «записаться на замену масла»; the agent «сообщает», the caller «узнаёт».
- Coordinated objects share the verb and its preposition: «на замену масла, шиномонтаж и
  диагностику подвески» are three tasks.
- Words that only describe the agent's record («уже назначенную») and the lookup key after «по»
  («по номеру телефона», a fact) are not part of the caller's goal.
- A handover's trigger is the caller's goal: «Если клиент хочет вернуть деньги за ремонт, переведите
  звонок старшему мастеру» → «вернуть деньги за ремонт» (a transfer task).
"""

from __future__ import annotations

import re

from ._facts import known_key_ru, stem
from ._morph_ru import WORD, morph, parse
from ._readingtypes import TaskSpec, slug

# Imperfective → perfective, for the verbs an agent does and a caller asks for.
PERFECTIVE = {"записывать": "записать", "записываться": "записаться", "бронировать": "забронировать",
              "оформлять": "оформить", "отменять": "отменить", "переносить": "перенести",
              "продлевать": "продлить", "заказывать": "заказать", "проверять": "проверить",
              "резервировать": "зарезервировать", "доставлять": "доставить", "отслеживать": "отследить",
              "вызывать": "вызвать", "менять": "поменять", "изменять": "изменить", "блокировать": "заблокировать",
              "регистрировать": "зарегистрировать", "подключать": "подключить", "возвращать": "вернуть",
              "подбирать": "подобрать", "выдавать": "выдать", "узнавать": "узнать", "получать": "получить",
              "восстанавливать": "восстановить", "продавать": "купить", "рассчитывать": "рассчитать",
              "назначать": "назначить", "ставить": "поставить", "советовать": "посоветовать",
              "рекомендовать": "порекомендовать", "давать": "дать", "обещать": "пообещать",
              "показывать": "показать", "присылать": "прислать", "отправлять": "отправить",
              "жаловаться": "пожаловаться", "требовать": "потребовать", "отказываться": "отказаться",
              "настаивать": "настоять", "спрашивать": "спросить"}
_REFLEXIVE = {"записать": "записаться"}
# The agent's verbs in the caller's words: the agent «сообщает», the caller «узнаёт».
CALLER_VERB = {"сообщить": "узнать", "сообщать": "узнать", "рассказать": "узнать", "рассказывать": "узнать",
               "назвать": "узнать", "называть": "узнать", "принять": "сделать", "принимать": "сделать",
               "подсказать": "узнать", "подсказывать": "узнать", "объяснить": "узнать", "продать": "купить"}
_CLIENT = frozenset({"пациент", "клиент", "покупатель", "абонент", "звонящий", "гость", "посетитель", "владелец"})
# Nouns after «по» that name a lookup key («по номеру», «по фамилии»), not part of the goal.
_KEY_HEADS = frozenset({"номер", "телефон", "фамилия", "паспорт", "имя", "адрес", "код"})
_WHOM = _CLIENT | {"питомец", "животное", "ребёнок", "ребенок", "собака", "кошка", "автомобиль", "машина"}
_STOP_LEMMAS = frozenset({"уже", "также", "ещё", "еще", "пожалуйста"})


def caller_verb(verb: str) -> str:
    """The caller's perfective verb for the agent's («записывать» → «записать», «сообщать» → «узнать»)."""
    verb = CALLER_VERB.get(verb, verb)
    return PERFECTIVE.get(verb, verb)


def clean_object(obj: list[str]) -> list[str]:
    """The object without the agent's descriptions («уже назначенную») and its lookup key («по номеру…»)."""
    out: list[str] = []
    for i, word in enumerate(obj):
        lemma, pos = parse(word)
        after = [parse(w)[0] for w in obj[i + 1:i + 3]]
        if lemma == "по" and (known_key_ru(after) or (after[:1] and after[0] in _KEY_HEADS)):
            break
        # «уже назначенную запись» describes the agent's record; «утерянную карту» is the caller's own words.
        described = pos == "ADVB" or (pos == "PRTF" and i > 0 and parse(obj[i - 1])[1] == "ADVB")
        if lemma in _STOP_LEMMAS or (described and i + 1 < len(obj)):
            continue
        out.append(word)
    return out


def head(obj: list[str]) -> list[str]:
    """The lemma of the object's first noun (its first word when it has none), for a task name."""
    # Whom the service is for («питомца», «ребёнка») names no task: what it is («на приём») does.
    nouns = [_name_form(w) for w in obj if parse(w)[1] == "NOUN" and parse(w)[0] not in _WHOM]
    return nouns[:1] or [parse(w)[0] for w in obj[:1]]


def _name_form(word: str) -> str:
    # A plural the caller says as is («деньги», whose dictionary lemma is «деньга») stays plural.
    tags = str(morph().parse(word.lower())[0].tag)
    return word.lower() if "plur" in tags and ("nomn" in tags or "accs" in tags) else parse(word)[0]


def _taken(verb: str, obj: list[str]) -> tuple[str, list[str]]:
    """What the agent takes in, in the caller's words: «принимать заказы такси» → «заказать такси»,
    «принимать заявки на ремонт» → «сделать заявку на ремонт» (one caller makes one)."""
    if verb not in ("принимать", "принять") or not obj or parse(obj[0])[1] != "NOUN":
        return verb, obj
    rest = obj[1:]
    if parse(obj[0])[0] == "заказ" and rest and parse(rest[0])[1] == "NOUN" and _genitive(rest[0]):
        return "заказать", [_inflected(rest[0], "accs"), *rest[1:]]
    if rest and parse(rest[0])[0] in _CLIENT | _RESIDENTS:  # «обращения жителей»: whose it is, the caller
        rest = rest[1:]
    return _FILED.get(parse(obj[0])[0], verb), [_inflected(obj[0], "sing", "accs"), *rest]


# What a caller files rather than makes: «принимать обращения» → «подать обращение».
_FILED = {"обращение": "подать", "заявка": "подать", "заявление": "подать", "жалоба": "подать"}
_RESIDENTS = frozenset({"житель", "гражданин", "заявитель", "пассажир", "потребитель", "жилец"})


def _genitive(word: str) -> bool:
    return any(p.tag.POS == "NOUN" and p.tag.case == "gent" for p in morph().parse(word.lower()))


def _inflected(word: str, *grammemes: str) -> str:
    """`word` in the given number and case («заказы» → «заказ», «пиццы» → «пиццу»), else as it is."""
    parsed = next((p for p in morph().parse(word.lower()) if p.tag.POS == "NOUN"), morph().parse(word.lower())[0])
    form = parsed.inflect(set(grammemes))
    return form.word if form else word.lower()


def _one(verb: str, obj: list[str]) -> list[str]:
    """One caller has one of the agent's plural things: «заблокировать утерянные карты» →
    «заблокировать утерянную карту» (a direct object up to its noun; not what it asks to learn)."""
    at = next((k for k, w in enumerate(obj) if parse(w)[1] in ("NOUN", "PREP")), None)
    if verb == "узнать" or at is None or parse(obj[at])[1] != "NOUN":
        return obj
    noun = next((p for p in morph().parse(obj[at].lower())
                 if p.tag.POS == "NOUN" and p.tag.number == "plur" and p.tag.case == "accs"), None)
    one = noun.inflect({"sing", "accs"}) if noun is not None else None
    # «деньги» has no singular a caller says («деньгу» is a rare form): kept as it is.
    if noun is None or one is None or "Pltm" in noun.tag or "anim" in noun.tag or "Infr" in one.tag:
        return obj
    gender = str(noun.tag.gender or "masc")
    words = [_inflected(w, "sing", "accs", gender) if k < at else w for k, w in enumerate(obj[:at])]
    return [*words, _inflected(obj[at], "sing", "accs"), *obj[at + 1:]]


def _one_whom(obj: list[str]) -> list[str]:
    """A caller calls about its own one: «записать детей на приём» → «записать ребёнка на приём»."""
    if not obj:
        return obj
    whom = next((p for p in morph().parse(obj[0].lower()) if p.tag.POS == "NOUN" and p.normal_form in _WHOM
                 and p.tag.number == "plur" and p.tag.case == "accs"), None)
    one = whom.inflect({"sing", "accs"}) if whom is not None else None
    return [one.word, *obj[1:]] if one is not None else obj


def make_task(verb: str, obj: list[str], kind: str = "success") -> TaskSpec:
    """A task for the agent's verb and object, in the caller's words and aspect."""
    obj = _one_whom(clean_object(obj))
    # «записать его на чистку», said of the caller: the caller «записаться на чистку».
    if obj and (parse(obj[0])[0] in _CLIENT or (obj[0].lower() in ("его", "её", "ее", "их") and len(obj) > 1)):
        obj, verb = obj[1:], _REFLEXIVE.get(caller_verb(verb), caller_verb(verb))
    verb, obj = _taken(verb, obj)
    verb = caller_verb(verb)
    obj = _one(verb, obj)
    cues = (stem(verb), *(stem(parse(w)[0]) for w in obj if parse(w)[1] in ("NOUN", "ADJF")))
    return TaskSpec(slug("_".join([verb, *head(obj)])), tuple(dict.fromkeys(cues)), (" ".join([verb, *obj]),),
                    kind=kind)


# The cases each preposition governs, so a conjunct shares the preposition it agrees with.
PREPOSITION_CASES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("на", "в", "во"), frozenset({"accs", "loct", "loc2"})),
    **dict.fromkeys(("к", "ко"), frozenset({"datv"})), "по": frozenset({"datv", "loct", "accs"}),
    **dict.fromkeys(("о", "об", "при"), frozenset({"loct"})),
    **dict.fromkeys(("без", "для", "от", "до", "из", "у", "около", "после", "вместо"), frozenset({"gent"})),
    **dict.fromkeys(("с", "со"), frozenset({"ablt", "gent"})), "за": frozenset({"accs", "ablt"}),
    "над": frozenset({"ablt"}), "под": frozenset({"accs", "ablt"}), "через": frozenset({"accs"}),
}


def agrees(preposition: str, word: str) -> bool:
    """Whether `word` can stand after `preposition` («к педиатру» yes, «на педиатру» no); a
    preposition or word we know no cases of agrees."""
    cases = PREPOSITION_CASES.get(preposition.lower())
    forms = {str(p.tag.case) for p in morph().parse(word.lower()) if p.tag.POS in ("NOUN", "ADJF", "NUMR", "NPRO")}
    return cases is None or not forms or bool(cases & forms)


def conjuncts(tokens: list[str], start: int, first: list[str]) -> list[list[str]]:
    """Objects coordinated with `first` after `start`: «…, шиномонтаж и диагностику подвески»."""
    # What the conjuncts share: the words of the first object up to its preposition («клиентов на»),
    # the last one the conjunct agrees with («на приём к педиатру, стоматологу» shares «на приём к»).
    preps = [k for k, w in enumerate(first) if parse(w)[1] == "PREP"]
    at = preps[0] if preps else None
    prep = first[: at + 1] if at is not None else [w for w in first[:1] if parse(w)[0] in _CLIENT]
    out: list[list[str]] = []
    i = start
    while i < len(tokens) and tokens[i].lower() in (",", "и", "или"):
        j = i + 1 + (tokens[i] == "," and i + 1 < len(tokens) and tokens[i + 1].lower() in ("и", "или"))
        words: list[str] = []
        while j < len(tokens) and tokens[j][:1].isalnum() and tokens[j].lower() not in ("и", "или") and len(words) < 4:
            words.append(tokens[j])
            j += 1
        if not words or parse(words[0])[1] not in ("NOUN", "ADJF", "PREP") or words[0].lower() in ("если", "когда"):
            break
        agreeing = [k for k in preps if agrees(first[k], words[0])]
        if parse(words[0])[1] != "PREP" and agreeing:
            prep = first[: agreeing[-1] + 1]
        # «записать питомца на приём или на вакцинацию»: the direct object is shared too.
        out.append([w for w in prep if parse(w)[1] != "PREP"] + words if parse(words[0])[1] == "PREP" else prep + words)
        i = j
    return out


_TRANSFER = re.compile(r"\b(?:переведи|переводи|переведите|переключи|переключите|переключайте|соедини|соедините|"
                       r"передай|передайте)\s+(?:звонок\s+|клиента\s+|покупателя\s+|его\s+|её\s+|вызов\s+)?"
                       r"(?:(?:на|с|со|к|ко|в|во)\s+)?(?!(?:на|с|со|к|ко|в|во)\b)"  # never the preposition itself
                       r"(\w+(?:-\w+)?(?:\s+[а-яё]+)?)", re.IGNORECASE)  # «IT-отдел», «2-ю линию»


def handovers(sentence: str) -> list[str]:
    """Whom a sentence hands the call over to, in the nominative («старшему мастеру» → «старший мастер»)."""
    out = []
    for m in _TRANSFER.finditer(sentence):
        words = m.group(1).split()
        first, pos = parse(words[0])
        if pos == "NOUN" and first == "звонок":
            continue
        second = words[1:2]
        agreeing = bool(second) and pos in ("ADJF", "NOUN", "PRTF") and _agree(words[0], second[0])
        if second and not agreeing and not (
                "gent" in str(morph().parse(second[0])[0].tag) and parse(second[0])[1] == "NOUN"):
            second = []
        if agreeing:  # «старшему мастеру» → «старший мастер»: both in the nominative
            noun = morph().parse(second[0])[0]
            gender = str(noun.tag.gender or "masc")
            adjective = morph().parse(words[0])[0].inflect({"nomn", "sing", gender})
            out.append(f"{adjective.word if adjective else first} {noun.normal_form}")
        elif pos in ("PRTF", "ADJF") and not second:  # «управляющей» is a person: «управляющая», not «управлять»
            form = morph().parse(words[0].lower())[0].inflect({"nomn"})
            out.append(form.word if form else first)
        else:
            # A name in Latin letters keeps its case («IT-отдел», not «it-отдел»).
            out.append(" ".join([words[0] if first == words[0].lower() else first, *second]))
    return out


def _agree(adjective: str, noun: str) -> bool:
    """Whether an adjective and a noun agree in gender and case («старшему мастеру», not «старшего смены»)."""
    for a in morph().parse(adjective):
        for n in morph().parse(noun):
            if a.tag.POS == "ADJF" and n.tag.POS == "NOUN" and a.tag.case == n.tag.case and (
                    a.tag.gender == n.tag.gender or a.tag.number == n.tag.number == "plur"):
                return True
    return False


def is_handover(sentence: str) -> bool:
    """Whether a sentence hands the call over."""
    return _TRANSFER.search(sentence) is not None


_CONDITION = re.compile(r"\bесли\s+([^,;:.]+)", re.IGNORECASE)


# What a caller does in a handover's condition, in its own perfective words: «пассажир жалуется на
# водителя» → «пожаловаться на водителя», «клиент требует возврата» → «потребовать возврата».
_CALLER_ACTS = frozenset({"жаловаться", "требовать", "спрашивать", "интересоваться", "отказываться", "настаивать",
                          "просить", "хотеть", "сообщать", "сообщить"})


def _caller_act(words: list[str]) -> TaskSpec | None:
    """The caller's own act when a condition's subject is a person doing it («пассажир жалуется …»)."""
    if len(words) < 3:
        return None
    subject = morph().parse(words[0].lower())[0]
    verb = morph().parse(words[1].lower())[0]
    if not (subject.tag.POS == "NOUN" and "anim" in subject.tag and subject.tag.case == "nomn"
            and verb.tag.POS == "VERB" and verb.normal_form in _CALLER_ACTS):
        return None
    if parse(words[2])[1] == "INFN":  # «хочет / просит вернуть деньги»: the wish is the goal
        return make_task(words[2].lower(), words[3:], "transfer") if words[3:] else None
    if verb.normal_form in ("хотеть", "просить"):  # «хочет компенсацию»: to get it
        return make_task("получить", words[2:], "transfer")
    # «житель сообщает об аварии»: the caller reports it («сообщить», not the agent's «узнать»).
    said = {"интересоваться": "узнать", "сообщать": "сообщить"}.get(verb.normal_form) or caller_verb(verb.normal_form)
    rest = [w.lower() for w in words[2:]]
    return TaskSpec(slug("_".join([said, *head(words[2:])])), (stem(said), *(stem(parse(w)[0]) for w in rest)),
                    (" ".join([said, *rest]),), kind="transfer")


def _displeased(words: list[str]) -> TaskSpec | None:
    """«клиент недоволен работой мастера» → «пожаловаться на работу мастера»."""
    if len(words) < 3 or parse(words[1])[0] != "недовольный" or parse(words[2])[1] != "NOUN":
        return None
    first = morph().parse(words[2].lower())[0].inflect({"accs"})
    rest = [first.word if first else words[2].lower(), *(w.lower() for w in words[3:])]
    return TaskSpec(slug("_".join(["pozhalovatsya", *head(words[2:])])),
                    (stem("пожаловаться"), *(stem(parse(w)[0]) for w in rest)),
                    (" ".join(["пожаловаться", "на", *rest]),), kind="transfer")


def situation_task(sentence: str) -> TaskSpec | None:
    """«Если животное без сознания, переведите…» → the caller reports «животное без сознания»;
    «Если пассажир жалуется на водителя, …» → the caller «пожаловаться на водителя»."""
    m = _CONDITION.search(sentence)
    if not m or re.search(r"\b(?:вы|ты|не уверен\w*)\b", m.group(1), re.IGNORECASE):
        return None
    words = [w for w in WORD.findall(m.group(1)) if w[:1].isalnum()]
    if len(words) <= 2 and words and morph().parse(words[-1].lower())[0].normal_form in _CALLER_ACTS:
        return None  # «Если клиент просит, переключите …»: a handover on request, no goal of its own
    act = _caller_act(words) or _displeased(words)
    if act:
        return act
    goal = "сообщить, что " + " ".join(w.lower() for w in words)
    return TaskSpec(slug("_".join(["soobshchit", *head(words)])), tuple(stem(parse(w)[0]) for w in words), (goal,),
                    kind="transfer")
