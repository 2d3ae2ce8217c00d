"""Personal data is replaced by typed placeholders before anything is stored or judged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon_core.checks import Checks
from polygon_core.judging import judge_offline
from polygon_core.models import Conversation
from polygon_core.redaction import IdentifierRedactor, RedactionSettings, Redactor, luhn_valid

CARD = "4111 1111 1111 1111"
BAD_CARD = "4111 1111 1111 1112"  # fails Luhn: not a card number
PHONE = "(415) 555-0132"
EMAIL = "jane.doe@example.com"


def test_text_redaction_exact() -> None:
    r = Redactor()
    assert r.text(f"card {CARD}, call {PHONE} or +44 20 7946 0958, mail {EMAIL}.") == \
        "card [CARD], call [PHONE] or [PHONE], mail [EMAIL]."
    assert r.text(f"ref {BAD_CARD} stays") == f"ref {BAD_CARD} stays"
    assert r.text("card 4242-4242-4242-4242 and account A-1042, 49 dollars") == \
        "card [CARD] and account A-1042, 49 dollars"
    assert dict(r.counts) == {"[EMAIL]": 1, "[CARD]": 2, "[PHONE]": 2}


def test_luhn() -> None:
    assert luhn_valid("4111111111111111") and luhn_valid("79927398713")
    assert not luhn_valid("4111111111111112")


def test_custom_patterns_and_switches() -> None:
    r = Redactor(RedactionSettings(patterns={"ACCOUNT": r"\bA-\d{4}\b"}, phones=False))
    assert r.text(f"account A-1042, phone {PHONE}") == f"account [ACCOUNT], phone {PHONE}"
    with pytest.raises(ValueError, match="use UPPER_CASE"):
        RedactionSettings(patterns={"acct": "x"})


PII_CALL = {
    "id": "pii-1", "started_at": "2024-05-06T10:00:00Z",
    "turns": [
        {"speaker": "agent", "text": "Northwind billing, how can I help?"},
        {"speaker": "caller", "text": f"My card is {CARD}, my number is {PHONE} and mail {EMAIL}."},
        {"speaker": "agent", "text": f"Thanks. Your reference {BAD_CARD} is noted.",
         "tool_calls": [{"id": "t1", "name": "lookup_account",
                         "arguments": {"email": EMAIL, "phone": PHONE},
                         "result": {"card_on_file": CARD}}]},
    ],
}
SECRETS = [CARD, PHONE, EMAIL, CARD.replace(" ", ""), "jane.doe"]


def _all_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _import_and_grade(stores: usecases.Stores, tmp_path: Path) -> list[Conversation]:
    path = tmp_path / "pii.jsonl"
    path.write_text(json.dumps(PII_CALL) + "\n", encoding="utf-8")
    summary = usecases.import_calls(stores, [str(path)], "polygon", source="prod")
    assert (summary.imported, summary.rejected) == (1, 0)
    seen: list[Conversation] = []

    def recording_judge(conv: Conversation, checks: Checks) -> dict[str, Any]:
        seen.append(conv)
        return judge_offline(conv, checks, None)

    (run,) = usecases.grade_production(stores, "prod", "2024-05-06", "2024-05-06",
                                       judge_fn=recording_judge)
    assert run.source == "production"
    return seen


def test_stored_and_judged_with_placeholders_only(stores: usecases.Stores, polygon_home: Path,
                                                  tmp_path: Path) -> None:
    seen = _import_and_grade(stores, tmp_path)
    stores.repo.close()  # flush SQLite's WAL into the database file before reading its bytes
    files = _all_bytes(polygon_home)
    assert any(name.endswith("polygon.db") for name in files)
    assert len([n for n in files if n.endswith(".jsonl")]) == 1  # the import pool
    assert len([n for n in files if n.endswith(".json")]) == 1  # the run's transcript
    for name, data in files.items():
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret!r} found in {name}"
    (judged,) = seen
    assert [t.text for t in judged.turns] == [
        "Northwind billing, how can I help?",
        "My card is [CARD], my number is [PHONE] and mail [EMAIL].",
        f"Thanks. Your reference {BAD_CARD} is noted.",
    ]
    (call,) = judged.turns[2].tool_calls
    assert (call.arguments, call.result) == ({"email": "[EMAIL]", "phone": "[PHONE]"},
                                             {"card_on_file": "[CARD]"})
    # The Luhn-failing number is left alone, in storage too.
    artifact = next(d for n, d in files.items() if n.endswith(".json") and "/runs/" in n)
    assert BAD_CARD.encode() in artifact
    assert list((polygon_home / "artifacts" / "imports").glob("*/originals")) == []


def test_keeping_originals_needs_the_setting(polygon_home: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_REDACT_KEEP_ORIGINALS", "true")
    opened = usecases.open_stores()
    try:
        path = tmp_path / "pii.jsonl"
        path.write_text(json.dumps(PII_CALL) + "\n", encoding="utf-8")
        usecases.import_calls(opened, [str(path)], "polygon", source="prod")
    finally:
        opened.repo.close()
    (original,) = (polygon_home / "artifacts" / "imports").glob("*/originals/*.jsonl")
    assert CARD.encode() in original.read_bytes()
    (redacted,) = (polygon_home / "artifacts" / "imports").glob("*/conversations/*.jsonl")
    assert CARD.encode() not in redacted.read_bytes()


def test_custom_patterns_from_settings(polygon_home: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_REDACT_PATTERNS", json.dumps({"ACCOUNT": r"\bA-\d{4}\b"}))
    opened = usecases.open_stores()
    try:
        path = tmp_path / "a.jsonl"
        call = {"id": "a", "turns": [{"speaker": "caller", "text": "account A-1042"}]}
        path.write_text(json.dumps(call) + "\n", encoding="utf-8")
        usecases.import_calls(opened, [str(path)], "polygon", source="prod")
        assert usecases.production_run_info(opened, "none") is None
    finally:
        opened.repo.close()
    (stored,) = (polygon_home / "artifacts" / "imports").glob("*/conversations/*.jsonl")
    assert Conversation.model_validate_json(stored.read_text()).turns[0].text == "account [ACCOUNT]"


def test_a_model_judge_and_probe_answerer_receive_placeholders_only(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Production grading by real models: the HTTP bodies they receive carry no personal data."""
    from polygon_core.imports import NOT_APPLICABLE_CRITERIA, NOT_APPLICABLE_PROBES
    from tests.fakes.llm_server import FakeLLMServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    stores = usecases.open_stores()
    path = tmp_path / "pii.jsonl"
    path.write_text(json.dumps(PII_CALL) + "\n", encoding="utf-8")
    usecases.import_calls(stores, [str(path)], "polygon", source="prod")
    with FakeLLMServer() as server:
        name = f"openai:gpt-4o-mini@{server.openai_url}"
        (run,) = usecases.grade_production(stores, "prod", "2024-05-06", "2024-05-06",
                                           judge_model=name, probe_model=name)
        bodies = [json.dumps(b) for b in server.behaviour.seen]
    assert run.models["judge"] == run.models["probe"] == name
    assert len(bodies) == 2  # one judge call, one probe call
    for body in bodies:
        for secret in SECRETS:
            assert secret not in body and json.dumps(secret)[1:-1] not in body
    assert "[CARD]" in bodies[0] and "[PHONE]" in bodies[0] and "[EMAIL]" in bodies[0]
    # Probes that need ground truth are not asked; they are answered na, by the model's label.
    asked = json.loads(bodies[1])["response_format"]["json_schema"]["schema"]["properties"]
    from polygon_core.probes import default_probes

    assert set(asked) == {p.id for p in default_probes()} - set(NOT_APPLICABLE_PROBES)
    answers = {a.probe_id: a for a in stores.repo.probe_answers(run.id)}
    assert {a.answered_by for a in answers.values()} == {name}
    assert all(answers[p].answer == "na" for p in NOT_APPLICABLE_PROBES)
    (judgment,) = stores.repo.judgments(run.id)
    assert judgment.judge_model == name and set(judgment.not_applicable) == set(NOT_APPLICABLE_CRITERIA)
    assert judgment.composite is not None


ID_PHONE = "+44 20 7946 0958"
ID_EMAIL = "jane.doe@example.com"


def _calls_named(*ids: str) -> str:
    return "".join(json.dumps({"id": ident, "started_at": "2024-05-06T10:00:00Z",
                               "turns": [{"speaker": "caller", "text": "Hello?"}]}) + "\n" for ident in ids)


def test_external_ids_holding_personal_data_are_stored_as_keyed_digests(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    import hmac

    from polygon_core.adapters.storage import ImportLedger

    key = "k" * 32
    monkeypatch.setenv("POLYGON_REDACT_ID_KEY", key)
    path = tmp_path / "ids.jsonl"
    path.write_text(_calls_named(ID_PHONE, ID_EMAIL, "call-7") + "{broken\n", encoding="utf-8")
    opened = usecases.open_stores()
    try:
        first = usecases.import_calls(opened, [str(path)], "polygon", source="prod")
        again = usecases.import_calls(opened, [str(path)], "polygon", source="prod")
        stored = {r.external_id for r in ImportLedger(opened.repo.engine).select("prod")}
    finally:
        opened.repo.close()
    digest = {i: "redacted-" + hmac.new(key.encode(), i.encode(), hashlib.sha256).hexdigest()[:24]
              for i in (ID_PHONE, ID_EMAIL)}
    assert stored == {digest[ID_PHONE], digest[ID_EMAIL], "call-7"}  # a plain id stays as it is
    ids = IdentifierRedactor(RedactionSettings(), key.encode())
    assert ids(digest[ID_PHONE]) == digest[ID_PHONE]  # a stored id passed again stays the same
    disguised = f"redacted-{ID_EMAIL}"  # the prefix alone is no pass
    assert ids(disguised) == "redacted-" + hmac.new(key.encode(), disguised.encode(), hashlib.sha256).hexdigest()[:24]
    assert (first.imported, again.imported, again.duplicates) == (3, 0, 3)  # still idempotent
    for name, data in _all_bytes(polygon_home).items():
        for secret in (ID_PHONE, ID_PHONE.replace(" ", ""), ID_EMAIL):
            assert secret.encode() not in data, f"{secret!r} found in {name}"


def test_without_a_configured_key_one_is_made_once_and_kept(polygon_home: Path, tmp_path: Path) -> None:
    from polygon_core.adapters.storage import ImportLedger

    path = tmp_path / "ids.jsonl"
    path.write_text(_calls_named(ID_PHONE), encoding="utf-8")
    for _ in range(2):  # two processes' worth: each opens the stores afresh
        opened = usecases.open_stores()
        try:
            summary = usecases.import_calls(opened, [str(path)], "polygon", source="prod")
            (record,) = ImportLedger(opened.repo.engine).select("prod")
        finally:
            opened.repo.close()
    assert (summary.imported, summary.duplicates) == (0, 1)
    assert record.external_id.startswith("redacted-") and len(record.external_id) == len("redacted-") + 24
    key = (polygon_home / "artifacts" / "keys" / "identifier.key").read_text()
    assert len(bytes.fromhex(key)) == 32


def test_threads_making_the_first_key_at_once_all_use_the_one_kept(polygon_home: Path) -> None:
    import threading

    from polygon.usecases._identifiers import identifier_redactor

    stores = usecases.open_stores()
    start, keys = threading.Barrier(8), []

    def make() -> None:
        start.wait()
        keys.append(identifier_redactor(stores, RedactionSettings()).key)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kept = (polygon_home / "artifacts" / "keys" / "identifier.key").read_text().strip().encode("ascii")
    assert keys == [kept] * 8
    stores.repo.close()
