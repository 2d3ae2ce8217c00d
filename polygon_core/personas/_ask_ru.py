"""The facts a Russian prompt asks callers for, and the tasks each list is for.

«Перед записью всегда спросите марку автомобиля, госномер и удобную дату» names three facts
(`_facts.KINDS`) for the booking tasks; «Обязательно уточните имя владельца, кличку и вид животного»
names them for every task. The asking verb is an imperative («спросите», «уточни», «узнайте»,
«запросите»); «проверьте» lists count only the kinds we know.
"""

from __future__ import annotations

from ._facts import Ask, known_key_ru, stem, vague
from ._morph_ru import addressed, parse
from ._readingtypes import slug

_ASK = frozenset({"спросить", "спрашивать", "уточнить", "уточнять", "узнать", "узнавать", "запросить",
                  "запрашивать", "выяснить", "выяснять"})
_CHECK = frozenset({"проверить", "проверять", "подтвердить", "сверить"})
# Words that end a list: a clause or a purpose of its own.
_END = frozenset({"если", "когда", "чтобы", "перед", "для", "до", "после", "потому", "так", "при", ".", ";", ":",
                  "!", "?", "—", "–"})
_SEPARATORS = frozenset({",", "и", "или"})
_SCOPE_POS = frozenset({"NOUN", "INFN", "VERB"})
_SCOPE_STOP = frozenset({"клиент", "пациент", "покупатель", "звонящий", "абонент", "гость", "всегда", "обязательно",
                         "также", "вы", "ты", "сначала"})
# A list's own clause that scopes it («…, перед записью», «…, чтобы вызвать курьера»).
_PURPOSE = frozenset({"перед", "для", "чтобы", "при", "до"})
_NEGATION = frozenset({"не", "никогда", "нельзя"})


def _items(tokens: list[str]) -> tuple[list[list[str]], int]:
    items: list[list[str]] = [[]]
    i = 0
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if low in _END or (low == "а" and i + 1 < len(tokens) and tokens[i + 1].lower() == "также"):
            if low in _END:
                break
            items.append([])
            continue
        if low in _SEPARATORS:
            items.append([])
            continue
        if low == "также" or tok == "(" or tok == ")":
            continue
        items[-1].append(tok)
    else:
        i = len(tokens)
    return [it for it in items if it], i


# Question words of an item («какое лекарство», «к какому врачу нужна запись»): the fact is the noun.
_QUESTION = frozenset({"какой", "который", "каков", "именно", "нужный", "нужно", "нужен", "нужна", "требоваться"})


def _content(item: list[str]) -> list[str]:
    """An item without its question words and the preposition before them («к какому врачу» → «врачу»)."""
    if not any(parse(w)[0] in _QUESTION for w in item if w[:1].isalpha()):
        return item
    words = [w for w in item if not (w[:1].isalpha() and parse(w)[0] in _QUESTION)]
    while words and parse(words[0])[1] == "PREP":
        words = words[1:]
    # «к какому врачу нужна запись»: what follows the noun says what it is for, not which fact.
    nouns = [i for i, w in enumerate(words) if parse(w)[1] == "NOUN"]
    return words[: nouns[0] + 1] if nouns else words


def _key(item: list[str], known_only: bool) -> str | None:
    words = [w for w in _content(item) if w[:1].isalnum()]
    if not words:
        return None
    item_lemmas = [parse(w)[0] for w in words]
    if vague(item_lemmas) or all(parse(w)[1] in ("ADVB", "PRCL", "CONJ", "PREP", "NPRO") for w in words):
        return None
    key = known_key_ru(item_lemmas)
    if key or known_only or len(words) > 4 or parse(words[0])[1] not in ("NOUN", "ADJF", "PRTF"):
        return key
    return slug("_".join(item_lemmas))


def _scope(tokens: list[str]) -> tuple[str, ...]:
    out = []
    for tok in tokens:
        lemma, pos = parse(tok) if tok[:1].isalpha() else (tok, "")
        if pos in _SCOPE_POS and lemma not in _SCOPE_STOP and lemma not in _ASK and lemma not in _CHECK:
            out.append(stem(lemma))
    return tuple(dict.fromkeys(out))


def russian_asks(tokens: list[str], lemmas: list[str]) -> list[Ask]:
    """The «спросите …» lists of one sentence, with the task words that scope each."""
    asks = []
    for i, tok in enumerate(tokens):
        asking = lemmas[i] in _ASK or lemmas[i] in _CHECK
        if not asking or not addressed(tok) or (i and lemmas[i - 1] in _NEGATION):
            continue
        items, end = _items(tokens[i + 1:])
        named = {}
        for it in items:
            key = _key(it, lemmas[i] in _CHECK)
            if key and key not in named:
                named[key] = " ".join(w.lower() for w in _content(it) if w[:1].isalnum())
        if named:
            tail = tokens[i + 1 + end:]
            tail = tail if tail and tail[0].lower() in _PURPOSE else []
            asks.append(Ask(tuple(named), _scope(tokens[:i] + tail), tuple(named.values())))
    return asks
