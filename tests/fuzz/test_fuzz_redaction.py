"""Fuzzing the redactor: any text comes back as text, and known personal data put into any text is
gone from the result (wherever it sits between clear separators)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from polygon_core.redaction import Redactor

from ._settings import fuzz

SECRETS = st.sampled_from([
    "jane.doe@example.com", "4111 1111 1111 1111", "GB82 WEST 1234 5698 7654 32",
    "DE89370400440532013000", "+44 20 7946 0958", "8 (916) 123-45-67", "(415) 555-0132",
])
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120)


@fuzz(300)
@given(TEXT)
def test_any_text(text: str) -> None:
    assert isinstance(Redactor().text(text), str)


@fuzz(300)
@given(st.lists(st.one_of(TEXT, st.sampled_from(["passport", "паспорт", "ул.", "Street", "д.", "+", "(",
                                                   "-", " ", "0", "1", "9", "IBAN", "GB82", "@"])),
                max_size=30).map("".join))
def test_text_full_of_cues_and_digits(text: str) -> None:
    assert isinstance(Redactor().text(text), str)


@fuzz(200)
@given(TEXT, SECRETS, TEXT)
def test_a_secret_between_separators_never_survives(before: str, secret: str, after: str) -> None:
    redacted = Redactor().text(f"{before} | {secret} | {after}")
    assert secret not in redacted
