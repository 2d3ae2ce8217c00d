"""Recognition noise: what the agent hears when the caller says `text`.

Tokens are the whitespace-separated words of the text as said; a token's leading and trailing
punctuation stays attached to it (``"card,"`` is the word ``card`` with a trailing comma). A
distortion's ``position`` is the index of its (first) token in the text as said, counting every
token, punctuation-only ones included. ``original`` and ``replacement`` are the words without the
surrounding punctuation.

Units. Tokens are grouped into units before any distortion: a number (a digit string such as
``4821``, ``49.00`` or ``21st``, or the longest run of tokens that spells one number in words, in any
case or as an ordinal, such as ``two thousand and five``, ``сорока девяти`` or ``двадцать первого``;
a run never crosses punctuation, and one word for one digit stays a word) is one unit, every other token
with letters or digits is a unit of its own, and punctuation-only tokens (``—``) are never units and
are always kept. Each unit receives at most one distortion, so a number is read digit by digit, or
dropped as a whole, or left alone: it is never half-dropped.

Passes, always in this order, each with its own random stream seeded from
``stable_seed("polygon.noise", kind, conversation_id, turn, language)``:

1. ``digits`` (rate = intensity per number unit): the number is read digit by digit
   (``fifty`` → ``five zero``, ``4821`` → ``four eight two one``, ``49.00`` →
   ``four nine point zero zero``; see `_numbers`). A number whose reading is unchanged (``five``) is
   not a distortion.
2. ``homophone`` (rate = 0.5 × intensity per single-token unit with a homophone, not yet changed):
   the word is replaced by a word that sounds alike (`_homophones`), first-letter case preserved.
3. ``drop`` (rate = 0.2 × intensity per unit not yet changed): the unit disappears with its
   punctuation. If every unit of the utterance would go, the last one chosen is kept.
4. ``filler`` (rate = intensity²): a filler is put before the first word (``position`` 0,
   ``original`` ""): ``uh``, ``um``, ``hmm``, ``hello?``; ``э-э``, ``хм``, ``ну``, ``алло?``. At
   intensity 1 every non-empty utterance gets one, so full noise always changes something.

Every pass draws the same numbers from its stream whatever happened before (a fixed number of draws
per unit, or per utterance for the filler), and the intensity is not part of the seed, so for one
(conversation, turn, language) raising the intensity only adds digit readings and homophones.
Distortions are listed in the order they were applied: by pass, then by position.

Intensity 0, and text without any word, is the identity: ``heard == text``, no distortions. The
whitespace between the words that remain is the original whitespace.
"""

from __future__ import annotations

import functools
import math
import numbers
import random
import re
from dataclasses import dataclass
from typing import NamedTuple

from polygon_core._hashing import stable_seed
from polygon_core.models import Distortion

from ._homophones import homophones, match_case
from ._numbers import (
    is_digit_string,
    may_be_number_word,
    normalise_number_words,
    number_lexicon,
    parse_number_words,
    read_digit_string,
    read_value,
    split_number_token,
)

_LANGUAGES = ("en", "ru")
_FILLERS: dict[str, tuple[str, ...]] = {
    "en": ("uh", "um", "hmm", "hello?"),
    "ru": ("э-э", "хм", "ну", "алло?"),
}
_HOMOPHONE_WEIGHT = 0.5
# The longest run of tokens read as one number ("two hundred and forty-five thousand and six").
_MAX_NUMBER_TOKENS = 12
_DROP_WEIGHT = 0.2
_WORD = re.compile(r"\S+")  # a token: a maximal run of non-whitespace characters


class NoiseResult(NamedTuple):
    """What the agent heard, and every distortion that made it differ from what was said."""

    heard: str
    distortions: list[Distortion]


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    lead: str
    core: str
    trail: str


@dataclass(frozen=True)
class _Unit:
    first: int  # token index of the first token
    last: int  # token index of the last token (inclusive)
    reading: str | None  # digit-by-digit reading when the unit is a number


def _split_punctuation(word: str) -> tuple[str, str, str]:
    i, j = 0, len(word)
    while i < j and not word[i].isalnum():
        i += 1
    while j > i and not word[j - 1].isalnum():
        j -= 1
    return word[:i], word[i:j], word[j:]


def _tokenise(text: str) -> list[_Token]:
    # `\s` matches exactly the characters `str.isspace` accepts (every code point checked).
    tokens: list[_Token] = []
    for match in _WORD.finditer(text):
        lead, core, trail = _split_punctuation(match.group())
        tokens.append(_Token(match.start(), match.end(), lead, core, trail))
    return tokens


def _longest_run(tokens: list[_Token], i: int, wordy: list[bool]) -> int:
    """The last token a number starting at token `i` could reach (`i - 1` when none).

    A run stops before a token without a number's word (`wordy`), before punctuation that leads a
    token, and after punctuation that trails one: no longer run can be read as one number, so
    `_number_unit` never parses it (most tokens are ordinary words and stop at once).
    """
    last = i - 1
    for j in range(i, min(len(tokens), i + _MAX_NUMBER_TOKENS)):
        if not wordy[j] or (j > i and tokens[j].lead):
            break
        last = j
        if tokens[j].trail:
            break
    return last


def _number_unit(tokens: list[_Token], i: int, language: str, wordy: list[bool]) -> _Unit | None:
    """The longest number starting at token `i`, or None.

    A single word for a single digit ("five", "пяти", "first") is left as a word: read digit by
    digit it is the same digit, and its case form carries grammar a recogniser keeps. A scale word
    right after a digit string ("5 тысяч") belongs to that number, so it is not read on its own.
    """
    if is_digit_string(tokens[i].core, language):
        return _Unit(i, i, read_digit_string(tokens[i].core, language))
    for last in range(_longest_run(tokens, i, wordy), i - 1, -1):
        words = [w for t in tokens[i : last + 1] for w in split_number_token(t.core)]
        parsed = parse_number_words(words, language)
        if parsed is None:
            continue
        if parsed.words == 1 and parsed.value < 10:
            return None
        first = number_lexicon(language).get(normalise_number_words(words[0]))
        if first is not None and first.kind == "scale" and i > 0 and is_digit_string(tokens[i - 1].core):
            return None
        return _Unit(i, last, read_value(parsed.value, language))
    return None


@functools.lru_cache(maxsize=8192)
def _wordy(core: str, language: str) -> bool:
    # Callers repeat their words from turn to turn and conversation to conversation.
    return bool(core) and all(may_be_number_word(w, language) for w in split_number_token(core))


def _units(tokens: list[_Token], language: str) -> list[_Unit]:
    # Whether each token is made only of words a number can hold: once per token, not per run tried.
    wordy = [_wordy(t.core, language) for t in tokens]
    units: list[_Unit] = []
    i = 0
    while i < len(tokens):
        if not tokens[i].core:
            i += 1
            continue
        unit = _number_unit(tokens, i, language, wordy) or _Unit(i, i, None)
        units.append(unit)
        i = unit.last + 1
    return units


def _stream(kind: str, conversation_id: str, turn: int, language: str) -> random.Random:
    return random.Random(stable_seed("polygon.noise", kind, conversation_id, turn, language))


def _said(tokens: list[_Token], unit: _Unit) -> str:
    return " ".join(t.core for t in tokens[unit.first : unit.last + 1])


def distort(
    text: str,
    intensity: float,
    *,
    conversation_id: str,
    turn: int,
    language: str,
    extra_homophones: tuple[tuple[str, ...], ...] = (),
) -> NoiseResult:
    """Apply recognition noise to a caller's utterance, deterministically.

    Args:
        text: the utterance as said.
        intensity: 0..1; 0 is the identity, 1 the noisiest (see the module doc for the rates).
        conversation_id: the conversation's stable id (part of the seed).
        turn: the turn index (part of the seed).
        language: ``"en"`` or ``"ru"``.
        extra_homophones: a user's own groups of words that sound alike, added to the bundled list
            (see `_homophones.parse_homophone_groups`).

    Returns:
        ``NoiseResult(heard, distortions)``; unpacks as a 2-tuple.

    Raises:
        ValueError: intensity outside 0..1 (or NaN), or an unsupported language.
    """
    if not isinstance(intensity, numbers.Real) or math.isnan(intensity) or not 0 <= intensity <= 1:
        raise ValueError(f"intensity must be within 0..1, got {intensity!r}")
    if language not in _LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; expected one of {_LANGUAGES}")
    tokens = _tokenise(text)
    units = _units(tokens, language)
    if intensity == 0 or not units:
        return NoiseResult(text, [])

    out: list[str | None] = [t.lead + t.core + t.trail for t in tokens]
    changed: set[int] = set()  # indices into `units`
    distortions: list[Distortion] = []

    # 1. digits
    rng = _stream("digits", conversation_id, turn, language)
    for n, unit in enumerate(units):
        u = rng.random()
        said = _said(tokens, unit)
        if unit.reading is None or unit.reading == normalise_number_words(said):
            continue
        if u < intensity:
            first, last = tokens[unit.first], tokens[unit.last]
            heard = match_case(unit.reading, first.core)
            out[unit.first] = first.lead + heard + last.trail
            for k in range(unit.first + 1, unit.last + 1):
                out[k] = None
            changed.add(n)
            distortions.append(
                Distortion(kind="digits", original=said, replacement=heard, position=unit.first)
            )

    # 2. homophones
    rng = _stream("homophone", conversation_id, turn, language)
    rate = _HOMOPHONE_WEIGHT * intensity
    for n, unit in enumerate(units):
        u, v = rng.random(), rng.random()
        if n in changed or unit.first != unit.last or u >= rate:
            continue
        token = tokens[unit.first]
        options = homophones(token.core, language, extra_homophones)
        if not options:
            continue
        heard = match_case(options[int(v * len(options))], token.core)
        out[unit.first] = token.lead + heard + token.trail
        changed.add(n)
        distortions.append(
            Distortion(kind="homophone", original=token.core, replacement=heard, position=unit.first)
        )

    # 3. drops (never every unit)
    rng = _stream("drop", conversation_id, turn, language)
    rate = _DROP_WEIGHT * intensity
    dropped = [n for n, _ in enumerate(units) if rng.random() < rate and n not in changed]
    if len(dropped) == len(units):
        dropped.pop()
    for n in dropped:
        unit = units[n]
        for k in range(unit.first, unit.last + 1):
            out[k] = None
        distortions.append(
            Distortion(kind="drop", original=_said(tokens, unit), replacement="", position=unit.first)
        )

    # 4. filler
    rng = _stream("filler", conversation_id, turn, language)
    u, v = rng.random(), rng.random()
    filler: str | None = None
    if u < intensity**2:
        options = _FILLERS[language]
        filler = options[int(v * len(options))]
        distortions.append(Distortion(kind="filler", original="", replacement=filler, position=0))

    if not distortions:
        return NoiseResult(text, [])
    return NoiseResult(_assemble(text, tokens, out, filler), distortions)


def _assemble(text: str, tokens: list[_Token], out: list[str | None], filler: str | None) -> str:
    pieces = [text[: tokens[0].start]]
    if filler is not None:
        pieces.append(filler + " ")
    kept = [i for i, word in enumerate(out) if word is not None]
    for k, i in enumerate(kept):
        if k:
            pieces.append(text[tokens[i - 1].end : tokens[i].start])
        pieces.append(out[i] or "")
    pieces.append(text[tokens[-1].end :])
    return "".join(pieces)
