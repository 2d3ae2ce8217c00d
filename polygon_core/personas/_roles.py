"""Faults only a model playing the caller makes: speaking as the agent, or in another language.

A small model given the caller's part sometimes swaps roles: it apologises for "our" problem, offers
to help the agent, or asks the agent for its account number. It may also drift into another
language than the scenario's. The offline caller never does either, so these checks run for
model-backed callers only (see `simulator_faults`). Both are conservative: a phrase an ordinary
caller would say ("sorry to bother you", "can you help me?") is never a role reversal, and a line of
fewer than `_MIN_WORDS` words, or one that is mostly names, numbers and addresses, is never judged for
its language.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE
# What the agent's side says, per language: (what it shows, pattern).
_AGENT_SPEECH: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "en": (
        ("apologises for the company", re.compile(
            r"\b(?:sorry|apologi[sz]e)\b[^.!?]*\b(?:for the inconvenience|for any inconvenience|"
            r"our (?:mistake|error|fault|problem|issue|service|system|records|side|end))\b|\bwe apologi[sz]e\b|"
            r"\bon our (?:end|side)\b", _FLAGS)),
        ("offers the agent help", re.compile(
            r"\bhow (?:can|may) i (?:help|assist) you\b|\bis there anything else i can (?:help|do)\b|"
            r"\bthank you for calling\b|\bi(?:'ll| will| can)(?: gladly)? (?:look into|process|arrange|"
            r"check|sort) (?:that|this|it) for you\b|\bhappy to help you\b", _FLAGS)),
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
        ("offers the agent help", re.compile(
            r"чем\s+(?:я\s+)?могу\s+(?:вам\s+)?помочь|могу\s+(?:ли\s+я\s+)?(?:ещё|еще)\s+чем-?\s?(?:то|нибудь)\s+помочь|"
            r"спасибо\s+за\s+(?:ваш\s+)?звонок|я\s+(?:сейчас\s+)?(?:всё\s+|все\s+)?(?:проверю|оформлю|уточню)\s+для\s+вас",
            _FLAGS)),
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
