"""A planted-values corpus imported through the real import path: nothing planted survives.

Thirty-two values of the kinds docs/import-formats.md says are redacted (e-mails, IDN ones too;
phone numbers of seven countries; cards; IBANs; passports by cue word and by JSON key; addresses in
English and Russian, written and spoken; digits said as words, in both languages and as Polygon's
own noise reads them) are planted in every place an import stores: turn text, tool-call arguments,
results, errors and ids, and the external id. They are imported as Polygon JSON Lines, CSV and a
Vapi export, and every byte Polygon then holds (artifact store and database) is searched for each
value, as written and as its bare digits. Controls (order numbers, prices, dates, times, short
numbers, a card's last four digits) must be stored exactly as said.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.models import STORED, Conversation
from polygon_core.noise._numbers import read_digit_string

NOISE_DIGITS = read_digit_string("4155550176", "en")  # Polygon's noise reading a phone number

# kind → the planted value (as it is written in the export)
PLANTED: dict[str, str] = {
    "email": "jane.doe@example.com",
    "email_idn": "иван.петров@почта.рф",
    "email_plus": "j.smith+billing@mail.example.co.uk",
    "phone_us_national": "(415) 555-0132",
    "phone_us_intl": "+1 415 555 0199",
    "phone_gb": "+44 20 7946 0958",
    "phone_gb_mobile": "+44 7911 123456",
    "phone_ru": "+7 916 123-45-67",
    "phone_ru_national": "8 (916) 765-43-21",
    "phone_cn": "+86 138 0013 8000",
    "phone_cn_compact": "+8613912345678",
    "phone_br": "+55 11 98765-4321",
    "phone_de": "+49 30 1234567",
    "card_spaced": "4111 1111 1111 1111",
    "card_dashed": "5555-5555-5555-4444",
    "iban_spaced": "GB82 WEST 1234 5698 7654 32",
    "iban_compact": "FR7630006000011234567890189",
    "passport_cued_ru": "4510 123456",
    "passport_key": "533380006",
    "passport_number_key": "C01X00T47",
    "address_en": "221B Baker Street",
    "address_ru": "ул. Ленина, д. 5, кв. 12",
    "address_ru_spoken": "улице Тверская дом 7 квартира 3",
    "address_en_spoken": "forty two Elm Street apartment five",
    "digits_en": "four one five five five five zero one three two",
    "digits_ru": "девять один шесть один два три четыре пять шесть семь",
    "digits_noise": NOISE_DIGITS,
    "card_spoken": "four" + " one" * 15,  # 4111 1111 1111 1111 said digit by digit
    "phone_key": "415.555.0147",
    "iban_key": "GB29NWBK60161331926819",
    "phone_in_external_id": "+14155550123",
    "iban_in_csv_call_id": "DE44500105175407324931",
    "phone_in_vapi_ids": "+5511912345678",
}
P = PLANTED

# What must be stored exactly as said (the facts a judge grades on).
CONTROL_TEXT = ("Order 4821 ships on 2024-05-06 at 10:30; it costs $49.99 for 3 items, reference "
                "ORD-2024-000123, order number four eight two one, refund in 5 to 7 days.")
CONTROL_ARGUMENTS = {"order_id": "4821", "card_last4": "1111", "amount": 49.99, "date": "2024-05-06",
                     "time": "10:30", "quantity": 3, "phone": "", "email": None}


def _polygon_call() -> dict[str, object]:
    return {"id": f"call-{P['phone_in_external_id']}", "started_at": "2024-05-06T10:00:00Z", "turns": [
        {"speaker": "agent", "text": "Northwind support, how can I help?"},
        {"speaker": "caller", "text": f"Mail me at {P['email']} or {P['email_idn']}, or {P['email_plus']}."},
        {"speaker": "caller", "text": f"Call {P['phone_us_national']}, {P['phone_us_intl']}, "
                                      f"{P['phone_gb']} or {P['phone_gb_mobile']}."},
        {"speaker": "caller", "text": f"Мой номер {P['phone_ru']}, домашний {P['phone_ru_national']}."},
        {"speaker": "caller", "text": f"China {P['phone_cn']}, {P['phone_cn_compact']}; "
                                      f"Brazil {P['phone_br']}; Berlin {P['phone_de']}."},
        {"speaker": "caller", "text": f"Card {P['card_spaced']}, backup {P['card_dashed']}."},
        {"speaker": "caller", "text": f"Pay from {P['iban_spaced']} or {P['iban_compact']}."},
        {"speaker": "caller", "text": f"Мой паспорт {P['passport_cued_ru']}, выдан в Москве."},
        {"speaker": "caller", "text": f"I live at {P['address_en']}, London; раньше ул. Ленина, д. 5, кв. 12."},
        {"speaker": "caller", "text": f"Я живу на {P['address_ru_spoken']}."},
        {"speaker": "caller", "text": f"Send it to {P['address_en_spoken']}, thanks."},
        {"speaker": "caller", "text": f"my number is {P['digits_en']}"},
        {"speaker": "caller", "text": f"мой номер {P['digits_ru']}"},
        {"speaker": "caller", "text": f"it is {P['digits_noise']} okay"},
        {"speaker": "caller", "text": f"card number {P['card_spoken']}"},
        {"speaker": "caller", "text": CONTROL_TEXT},
        {"speaker": "agent", "text": "Let me check.", "tool_calls": [
            {"id": f"tool_{P['phone_in_external_id']}", "name": "verify_identity",
             "arguments": {"passport": P["passport_key"], "passport_number": P["passport_number_key"],
                           "customer_phone": P["phone_key"], "iban": P["iban_key"],
                           "note": f"caller gave {P['phone_br']}"},
             "result": {"matched": True, "address": P["address_en"], "contact": P["email_idn"]},
             "error": f"timeout calling {P['phone_cn']}"},
            {"id": "lookup-1", "name": "lookup_order", "arguments": CONTROL_ARGUMENTS,
             "result": {"status": "shipped", "eta": "2024-05-08 10:30", "total": "$49.99"}},
        ]},
    ]}


def _csv_file() -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["conversation_id", "turn", "speaker", "text", "tool_name", "tool_arguments", "tool_result"])
    ident = P["iban_in_csv_call_id"]
    writer.writerow([ident, 1, "caller", f"Passport number {P['passport_number_key']}, "
                                         f"phone {P['phone_cn']}.", "", "", ""])
    # No tool_call_id column: the call's id is made from the conversation id (`<id>-<turn>`).
    writer.writerow([ident, 2, "agent", "", "verify", json.dumps({"passport": P["passport_key"]}),
                     json.dumps({"email": P["email_idn"]})])
    writer.writerow([ident, 3, "agent", "Verified. Your order 4821 costs $49.99.", "", "", ""])
    writer.writerow([ident, 4, "caller", f"И ещё: я живу на {P['address_ru_spoken']}.", "", "", ""])
    return out.getvalue()


def _vapi_file() -> str:
    number = P["phone_in_vapi_ids"]
    return json.dumps([{
        "id": number, "startedAt": "2024-05-06T10:00:00Z", "endedReason": "customer-ended-call",
        "artifact": {"messages": [
            {"role": "bot", "message": "Hi, Northwind here.", "time": 1714989600000},
            {"role": "user", "message": f"My mobile is {P['phone_br']} and {P['digits_ru']}.",
             "time": 1714989601000},
            {"role": "tool_calls", "toolCalls": [{"id": f"call_{number}", "function": {
                "name": "verify", "arguments": json.dumps({"passport_number": P["passport_number_key"],
                                                           "phone": P["phone_cn_compact"]})}}]},
            {"role": "tool_call_result", "toolCallId": f"call_{number}", "name": "verify",
             "result": json.dumps({"iban": P["iban_key"], "ok": True})},
            {"role": "bot", "message": "Thanks, verified. Order 4821 ships at 10:30.", "time": 1714989602000},
        ]},
    }])


def _needles(value: str) -> list[str]:
    """The value as written, as JSON escapes it (`\\u0438…`), and its bare digits when they are long
    enough to be found by accident only if the value survived."""
    bare = re.sub(r"\D", "", value)
    return list(dict.fromkeys([value, json.dumps(value)[1:-1]] + ([bare] if len(bare) >= 7 else [])))


def _write_inputs(folder: Path) -> dict[str, Path]:
    files = {"polygon": folder / "calls.jsonl", "csv": folder / "calls.csv", "vapi": folder / "calls-vapi.json"}
    files["polygon"].write_text(json.dumps(_polygon_call(), ensure_ascii=False) + "\n", encoding="utf-8")
    files["csv"].write_text(_csv_file(), encoding="utf-8")
    files["vapi"].write_text(_vapi_file(), encoding="utf-8")
    return files


def _import_all(stores: usecases.Stores, tmp_path: Path) -> dict[str, Path]:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    files = _write_inputs(inputs)
    for fmt, path in files.items():
        summary = usecases.import_calls(stores, [str(path)], fmt, source=f"prod-{fmt}")
        assert (summary.imported, summary.rejected, summary.errors) == (1, 0, []), fmt
    return files


def _stored(polygon_home: Path, fmt: str) -> Conversation:
    (path,) = (polygon_home / "artifacts" / "imports").glob(f"prod-{fmt}-*/conversations/*.jsonl")
    return Conversation.model_validate_json(path.read_text(encoding="utf-8"), context=STORED)


def survivors(polygon_home: Path) -> list[tuple[str, str]]:
    """(kind, file) of every planted value found, as written or as bare digits, in Polygon's home."""
    found = []
    for path in sorted(p for p in polygon_home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for kind, value in PLANTED.items():
            if any(n.encode() in data for n in _needles(value)):
                found.append((kind, path.name))
    return found


@pytest.fixture
def imported(stores: usecases.Stores, polygon_home: Path, tmp_path: Path) -> dict[str, Path]:
    files = _import_all(stores, tmp_path)
    stores.repo.close()  # flush SQLite's WAL into the database file before reading its bytes
    return files


def test_every_planted_value_is_in_the_inputs(imported: dict[str, Path]) -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in imported.values())
    assert len(PLANTED) == 33
    assert [kind for kind, value in PLANTED.items() if not any(n in text for n in _needles(value))] == []


def test_no_planted_value_survives_anywhere(imported: dict[str, Path], polygon_home: Path) -> None:
    assert survivors(polygon_home) == []


def test_the_stored_polygon_call_reads_with_placeholders(imported: dict[str, Path],
                                                         polygon_home: Path) -> None:
    conv = _stored(polygon_home, "polygon")
    assert [t.text for t in conv.turns if t.speaker == "caller"] == [
        "Mail me at [EMAIL] or [EMAIL], or [EMAIL].",
        "Call [PHONE], [PHONE], [PHONE] or [PHONE].",
        "Мой номер [PHONE], домашний [PHONE].",
        "China [PHONE], [PHONE]; Brazil [PHONE]; Berlin [PHONE].",
        "Card [CARD], backup [CARD].",
        "Pay from [IBAN] or [IBAN].",
        "Мой паспорт [PASSPORT], выдан в Москве.",
        "I live at [ADDRESS], London; раньше [ADDRESS].",
        "Я живу на [ADDRESS].",
        "Send it to [ADDRESS], thanks.",
        "my number is [PHONE]",
        "мой номер [PHONE]",
        "it is [PHONE] okay",
        "card number [CARD]",
        CONTROL_TEXT,
    ]
    verify, lookup = conv.turns[-1].tool_calls
    assert re.fullmatch(r"redacted-[0-9a-f]{24}", verify.id)
    assert (verify.arguments, verify.result, verify.error) == (
        {"passport": "[PASSPORT]", "passport_number": "[PASSPORT]", "customer_phone": "[PHONE]",
         "iban": "[IBAN]", "note": "caller gave [PHONE]"},
        {"matched": True, "address": "[ADDRESS]", "contact": "[EMAIL]"},
        "timeout calling [PHONE]")
    # The controls: kept exactly, empty and null values under personal keys too.
    assert (lookup.id, lookup.arguments, lookup.result) == (
        "lookup-1", CONTROL_ARGUMENTS, {"status": "shipped", "eta": "2024-05-08 10:30", "total": "$49.99"})


def test_csv_and_vapi_ids_and_texts(imported: dict[str, Path], polygon_home: Path) -> None:
    csv_conv, vapi_conv = _stored(polygon_home, "csv"), _stored(polygon_home, "vapi")
    assert [t.text for t in csv_conv.turns] == [
        "Passport number [PASSPORT], phone [PHONE].", "Verified. Your order 4821 costs $49.99.",
        "И ещё: я живу на [ADDRESS]."]
    (csv_call,) = csv_conv.turns[1].tool_calls
    assert re.fullmatch(r"redacted-[0-9a-f]{24}", csv_call.id)
    assert (csv_call.arguments, csv_call.result) == ({"passport": "[PASSPORT]"}, {"email": "[EMAIL]"})
    assert [t.text for t in vapi_conv.turns] == [
        "Hi, Northwind here.", "My mobile is [PHONE] and [PHONE].",
        "Thanks, verified. Order 4821 ships at 10:30."]
    (vapi_call,) = vapi_conv.turns[2].tool_calls
    assert re.fullmatch(r"redacted-[0-9a-f]{24}", vapi_call.id)
    assert (vapi_call.arguments, vapi_call.result) == (
        {"passport_number": "[PASSPORT]", "phone": "[PHONE]"}, {"iban": "[IBAN]", "ok": True})


def test_external_ids_are_digests_and_a_reimport_is_a_duplicate(
        stores: usecases.Stores, polygon_home: Path, tmp_path: Path) -> None:
    files = _import_all(stores, tmp_path)
    origins = {fmt: usecases.call_origins(stores, [_stored(polygon_home, fmt).id])
               for fmt in ("polygon", "csv", "vapi")}
    for fmt, found in origins.items():
        (origin,) = found.values()
        assert re.fullmatch(r"redacted-[0-9a-f]{24}", origin.external_id), fmt
    # Same input, same stored ids: the second import finds every call already there.
    for fmt, path in files.items():
        again = usecases.import_calls(stores, [str(path)], fmt, source=f"prod-{fmt}")
        assert (again.imported, again.duplicates) == (0, 1), fmt


SPOKEN_CONTROLS = [
    "order number four eight two one",
    "it costs forty nine ninety nine",
    "see you at ten thirty on the fifth",
    "oh one two three, no wait",
    "два три четыре, заказ пять шесть",
    "встретимся на улице в семь",
    "I waited 2 hours on the road",
    "the passport office opens at nine",
]


@pytest.mark.parametrize("text", SPOKEN_CONTROLS)
def test_short_spoken_numbers_and_street_words_alone_are_kept(text: str) -> None:
    from polygon_core.redaction import Redactor

    assert Redactor().text(text) == text


def test_the_same_input_gives_the_same_output() -> None:
    from polygon_core.redaction import Redactor

    text = json.dumps(_polygon_call(), ensure_ascii=False)
    first, second = Redactor(), Redactor()
    assert first.text(text) == second.text(text)
    assert first.counts == second.counts


def test_values_under_personal_keys() -> None:
    from polygon_core.redaction import Redactor, redact_value

    value = {"passportNumber": 533380006, "Passport-No": "C01X00T47", "home_phone_number": "555 0147",
             "shipping_address": {"line1": "Flat 2", "city": "Leeds"}, "customerIBAN": "see file 12",
             "email": "none", "phone": "unknown", "phone_status": "verified", "phone_attempts": 3,
             "email_sent": True, "card_last4": "1111", "order_id": "4821", "ip_address": "10.0.0.1"}
    assert redact_value(value, Redactor()) == {
        "passportNumber": "[PASSPORT]", "Passport-No": "[PASSPORT]", "home_phone_number": "[PHONE]",
        "shipping_address": {"line1": "[ADDRESS]", "city": "[ADDRESS]"}, "customerIBAN": "[IBAN]",
        "email": "none", "phone": "unknown", "phone_status": "verified", "phone_attempts": 3,
        "email_sent": True, "card_last4": "1111", "order_id": "4821", "ip_address": "10.0.0.1"}
