"""Faults only a model playing the caller makes: speaking as the agent, or in another language.

A small model given the caller's part sometimes swaps roles: it apologises for "our" problem, offers
to help the agent, acts on or reports done "your" booking ("Let me look into your account", "Your
refund has been processed", «Ваш возврат оформлен»), closes the call as an agent does, or asks the
agent for its account number (the rule is stated above `_AGENT_SPEECH`). It may also drift into another
language than the scenario's. The offline caller never does either, so these checks run for
model-backed callers only (see `simulator_faults`). Both are conservative: a phrase an ordinary
caller would say ("sorry to bother you", "can you help me?") is never a role reversal, and a line of
fewer than `_MIN_WORDS` words, or one that is mostly names, numbers and addresses, is never judged for
its language.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE


def _any(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


# The rule: a line is the agent's when it performs a speech act only the agent's side performs
# (offering service, acting on the caller's own records, reporting such an act done, the closing
# formulas of a service call, apologising for the company, asking for the caller's details). Most
# of these hinge on who owns the thing acted on: the agent acts on *your* booking, the caller asks
# about *my* booking ("I'd like to confirm my booking", "can you check my account?"), so a caller's
# ordinary request, apology or question never has that shape.

# What a caller owns and an agent handles for them.
_EN_ITEMS = _any("account", "booking", "reservation", "appointment", "order", "refund", "records?", "file",
                 "details", "request", "claim", "prescription", "policy", "subscription", "payment",
                 "ticket", "case", "profile", "balance", "return", "exchange", "delivery", "cancellation",
                 "password", "card", "visit", "transfer", "complaint", "application")
# First-person service verbs (what the agent does to the caller's records, now or next).
_EN_SERVICE = _any("check(?: on)?", "look into", "look up", "pull up", "bring up", "review", "verify",
                   "process", "cancel", "book", "reschedule", "update", "access", "locate", "open up",
                   "take a look at", "have a look at", "go over", "amend", "change", "reset", "refund")
# Back-office results, reported done.
_EN_DONE = _any("processed", "confirmed", "booked", "cancell?ed", "issued", "updated", "scheduled",
                "rescheduled", "approved", "refunded", "completed", "submitted", "reset", "shipped",
                "created", "renewed", "activated", "reactivated", "credited", "registered", "set up",
                "arranged", "received", "logged", "escalated", "sent", "all set", "on its way")
_EN_I = r"\b(?:i|we)(?:'ll| will| can| could|'m going to| am going to| are going to)?"
_EN_ADVERB = r"(?: just| quickly| now| certainly| gladly| go ahead and| be able to)?"

_RU_ITEMS = _any("заказ", "запис", "брон", "возврат", "сч[её]т", "заявк", "обращени", "аккаунт", "уч[её]тн",
                 "рецепт", "полис", "пл[ао]т[её]ж", "оплат", "карт", "договор", "визит", "при[её]м", "пароль",
                 "доставк", "посылк", "подписк", "жалоб", "билет", "тариф")
_RU_SERVICE = _any("проверю", "посмотрю", "уточню", "оформлю", "отменю", "перенесу", "забронирую", "найду",
                   "открою", "подниму", "подтвержу", "обработаю", "запишу", "изменю", "обновлю", "верну",
                   "проверим", "посмотрим", "оформим", "отменим", "перенес[её]м", "найд[её]м")
_RU_DONE = _any("оформлен", "подтвержд[её]н", "отмен[её]н", "обработан", "принят", "создан", "перенес[её]н",
                "забронирован", "выполнен", "отправлен", "зачислен", "одобрен", "восстановлен", "обновл[её]н",
                "сброшен", "продл[её]н", "активирован", "записан", "возвращ[её]н", "зарегистрирован", "готов")
_RU_DID = _any("оформил", "отменил", "подтвердил", "перен[её]с(?:ла)?", "обработал", "забронировал", "записал",
               "вернул", "обновил", "изменил", "продлил", "восстановил", "сбросил")

# What the agent's side says, per language: (what it shows, pattern).
_AGENT_SPEECH: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "en": (
        ("apologises for the company", re.compile(
            r"\b(?:sorry|apologi[sz]e)\b[^.!?]*\b(?:for the inconvenience|for any inconvenience|"
            r"our (?:mistake|error|fault|problem|issue|service|system|records|side|end))\b|\bwe apologi[sz]e\b|"
            r"\bon our (?:end|side)\b", _FLAGS)),
        ("closes the call", re.compile(
            r"\banything else (?:i|we) (?:can|could|may) (?:help|assist)(?: you)?\b|"
            r"\banything else (?:i|we) (?:can|could|may) do for you\b|"
            r"\bthank(?:s| you) for (?:calling|contacting|choosing|your call)\b(?! me| back)", _FLAGS)),
        ("offers service", re.compile(
            r"\b(?:how|what) (?:can|may|could) (?:i|we) (?:help|assist|do for) you\b|"
            r"\b(?:i|we)(?:'d| would)? be (?:more than )?(?:happy|glad|delighted|pleased) to (?:help|assist)\b|"
            r"\b(?:i|we)(?:'ll| will| can| could)(?: certainly| definitely| gladly| absolutely)? (?:help|assist) you\b|"
            r"\blet me help you\b|\bhappy to help you\b|"
            r"\bwould you like me to (?:book|process|cancel|schedule|reschedule|arrange|put you through|"
            r"transfer you|look into)\b|"
            rf"(?:\blet me|{_EN_I}){_EN_ADVERB} {_EN_SERVICE}\b[^.!?]{{0,12}}?\byour (?:new |current |recent )?"
            rf"{_EN_ITEMS}\b|"
            rf"(?:\blet me|{_EN_I}){_EN_ADVERB} (?:{_EN_SERVICE}|arrange|sort|set|take care of|handle|fix)"
            r"(?: (?:that|this|it|them|those))?(?: (?:out|up|over))? for you\b", _FLAGS)),
        ("reports an action on the caller's records as done", re.compile(
            rf"\byour (?:new |recent )?{_EN_ITEMS}\b(?: (?:for|on|at|with|of|to)\b[^.!?,]{{0,30}}?)?"
            rf"(?: has| have| had)?(?: been| is| was| are| is now| are now)(?: now| successfully| all| fully)? "
            rf"{_EN_DONE}\b|"
            rf"\b(?:i|we)(?:'ve| have| just| already| now| successfully)* {_EN_DONE} your (?:new |recent )?"
            rf"{_EN_ITEMS}\b|"
            r"\byou(?:'re| are) all set\b|\byou(?:'ll| will) (?:receive|get) (?:a |an |your )?confirmation\b",
            _FLAGS)),
        ("asks for the agent's details", re.compile(
            r"\b(?:can|could|may) (?:i|you) (?:please )?(?:have|get|take|give me|confirm|verify) your "
            r"(?:account number|postcode|zip code|date of birth|full name|phone number|email|address|"
            r"order number|member id)\b|\bwhat(?:'s| is) your (?:account number|postcode|zip code|date of birth|"
            r"order number|member id)\b|\bverify your identity\b", _FLAGS)),
    ),
    "ru": (
        ("apologises for the company", re.compile(
            r"приносим\s+(?:свои\s+)?извинения|извините\s+за\s+(?:доставленные\s+)?неудобства|"
            r"(?:наша|нашей|наш|нашего)\s+(?:ошибк|вин|компани|систем|сервис|аптек|клиник)\w*", _FLAGS)),
        ("closes the call", re.compile(
            r"могу\s+ли\s+(?:я\s+)?(?:вам\s+)?(?:ещ[её]\s+)?(?:чем-?\s?(?:то|нибудь)\s+)?(?:ещ[её]\s+)?(?:вам\s+)?помочь|"
            r"могу\s+(?:я\s+)?(?:вам\s+)?ещ[её]\s+(?:чем-?\s?(?:то|нибудь)\s+)?(?:вам\s+)?помочь|"
            r"спасибо\s+за\s+(?:ваш\s+)?(?:звонок|обращение)|спасибо,?\s+что\s+(?:позвонили|обратились|выбрали)|"
            r"(?:остались|есть)\s+ли\s+у\s+вас\s+(?:ещ[её]\s+)?(?:какие-?\s?(?:то|нибудь)\s+)?вопросы", _FLAGS)),
        ("offers service", re.compile(
            r"чем\s+(?:я\s+)?(?:ещ[её]\s+)?(?:могу|можем)\s+(?:вам\s+)?(?:помочь|быть\s+полез)|"
            r"\b(?:я|мы)\s+(?:могу|можем|готов[аы]?|рад[аы]?)\s+(?:вам\s+)?помочь|"
            r"с\s+удовольствием\s+(?:вам\s+)?помо(?:гу|жем)|\b(?:я|мы)\s+(?:вам\s+)?помо(?:гу|жем)\b|"
            r"давайте\s+я\s+(?:вам\s+)?помогу|"
            rf"\b{_RU_SERVICE}\s+(?:\w+\s+)?(?:ваш\w*\s+(?:\w+\s+)?{_RU_ITEMS}|вас\b)|"
            rf"\b{_RU_SERVICE}\s+(?:это\s+|все\s+|всё\s+)?для\s+вас\b", _FLAGS)),
        ("reports an action on the caller's records as done", re.compile(
            rf"\bваш\w*\s+{_RU_ITEMS}\w*(?:\s+(?!не\b)[^\s.!?,]+){{0,3}}?\s+(?:был[аио]?\s+|уже\s+|успешно\s+)*{_RU_DONE}\w*|"
            rf"\b(?:я|мы)\s+(?:уже\s+|успешно\s+)*{_RU_DID}[аи]?\s+(?:вам\s+)?(?:ваш\w*\s+{_RU_ITEMS}|вас\b)|"
            r"\bвы\s+(?:успешно\s+)?(?:записаны|зарегистрированы)\b", _FLAGS)),
        ("asks for the agent's details", re.compile(
            r"(?:назовите|продиктуйте|подтвердите|уточните),?\s+(?:пожалуйста,?\s+)?(?:ваш[уеи]?\s+|свою\s+|свой\s+)?"
            r"(?:фамилию|номер|дату\s+рождения|телефон|адрес|полис)", _FLAGS)),
    ),
}
_SCRIPTS = {"en": re.compile(r"[a-z]", _FLAGS), "ru": re.compile(r"[а-яё]", _FLAGS)}
_WORD = re.compile(r"[^\W\d_]+")
_MIN_WORDS = 4
# From this share of the letters in another language's script, a line is in that language.
_OTHER_SHARE = 0.6


def role_reversal(text: str, language: str) -> str | None:
    """What the caller said as if it were the agent, or None."""
    for what, pattern in _AGENT_SPEECH.get(language, ()) + (_AGENT_SPEECH["en"] if language != "en" else ()):
        match = pattern.search(text)
        if match is not None:
            return f"{what}: {match.group(0)!r}"
    return None


def other_language(text: str, language: str) -> str | None:
    """The language a caller's line is in when it is not `language` (judged by script), or None."""
    if language not in _SCRIPTS:
        return None
    # Tokens with digits or an @ (addresses, codes, emails) say nothing about the language spoken.
    words = [w for w in text.split() if not re.search(r"[\d@]", w)]
    letters = "".join(_WORD.findall(" ".join(words)))
    if len(words) < _MIN_WORDS or not letters:
        return None
    for code, script in _SCRIPTS.items():
        if code != language and len(script.findall(letters)) / len(letters) >= _OTHER_SHARE:
            return code
    return None
