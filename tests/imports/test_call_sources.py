"""The shared turn builder, the import-format registry (a new format in one file), the sources file,
and the voice platforms' webhook signatures and payload readers."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.files import FileErrors
from polygon_core.imports import (
    FORMATS,
    ImportedCall,
    ParseItem,
    SpeakerMap,
    TurnBuilder,
    format_for,
    get_format,
    import_format,
    load_sources,
    read_calls,
    unregister_format,
)
from polygon_core.imports._common import parse_values
from polygon_core.imports._retell import retell_signature, verify_retell
from polygon_core.imports._vapi import vapi_hmac_signature, verify_vapi

DEMO_AGENT = Path(__file__).resolve().parents[2] / "polygon_core" / "demo" / "agents" / "agent_v1.yaml"

# -- the shared builder ---------------------------------------------------------------------------


def test_tool_calls_wait_for_the_agents_next_words_and_take_their_results() -> None:
    built = TurnBuilder()
    built.say("agent", "Hello", "t0")
    built.say("caller", "My bill?")
    built.call("c1", "lookup", {"id": "A1"})
    built.call("c2", "lookup", {"id": "A2"})
    assert built.result(None, "first", name="lookup") is True  # no id: the first of that name
    assert built.result("c2", {"found": True}) is True
    assert built.result("zz", "nobody") is False
    built.say("agent", "")  # a tool-calling step: no turn, the calls keep waiting
    built.say("caller", "hm")  # a caller turn never takes the agent's calls
    built.say("agent", "Found both.")
    built.call("c3", "hang_up")
    turns = built.turns()
    assert [(t.speaker, t.text, [(c.id, c.result) for c in t.tool_calls]) for t in turns] == [
        ("agent", "Hello", []), ("caller", "My bill?", []), ("caller", "hm", []),
        ("agent", "Found both.", [("c1", "first"), ("c2", {"found": True})]),
        ("agent", "", [("c3", None)])]


def _calls(fmt: str, record: dict[str, Any]) -> ImportedCall:
    (item,) = list(read_calls(io.StringIO(json.dumps(record) + "\n"), fmt, name="x.jsonl"))
    assert isinstance(item, ImportedCall), item
    return item


def test_vapi_and_retell_attach_a_result_without_id_the_same_way() -> None:
    # The two parsers used to disagree: Vapi matched a result without an id by name, Retell dropped it.
    vapi = _calls("vapi", {"id": "v", "artifact": {"messages": [
        {"role": "user", "message": "hi"},
        {"role": "tool_calls", "toolCalls": [{"id": "k1", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool_call_result", "name": "lookup", "result": "{\"ok\": 1}"},
        {"role": "bot", "message": "done"}]}})
    retell = _calls("retell", {"call_id": "r", "transcript_with_tool_calls": [
        {"role": "user", "content": "hi"},
        {"role": "tool_call_invocation", "tool_call_id": "k1", "name": "lookup", "arguments": "{}"},
        {"role": "tool_call_result", "name": "lookup", "content": "{\"ok\": 1}"},
        {"role": "agent", "content": "done"}]})
    for call in (vapi, retell):
        assert [(t.speaker, t.text, [(c.name, c.result) for c in t.tool_calls]) for t in call.turns] == [
            ("caller", "hi", []), ("agent", "done", [("lookup", {"ok": 1})])]


# -- the registry: a new format end to end in one file (the docs' worked example) ------------------

DEFAULTS = {"customer": "caller", "bot": "agent"}


def _convert(value: Any, line: int, speakers: SpeakerMap) -> ImportedCall:
    built = TurnBuilder()
    for step in value["steps"]:
        if "tool" in step:
            built.call(step["tool"]["id"], step["tool"]["name"], step["tool"].get("args"))
        elif "output" in step:
            built.result(step["output"]["id"], step["output"]["value"])
        else:
            built.say(speakers(step["who"]), step["said"])
    return ImportedCall(external_id=str(value["ref"]), line=line, turns=built.turns())


def parse_tiny(stream: TextIO, speaker_map: Mapping[str, Any] | None = None, *,
               lines: bool = True) -> Iterator[ParseItem]:
    speakers = SpeakerMap(DEFAULTS, speaker_map)  # type: ignore[arg-type]
    return parse_values(stream, lambda v, n: _convert(v, n, speakers), lines=True)


@pytest.fixture
def tiny_format() -> Iterator[str]:
    import_format("tiny", "Tiny call logs: {ref, steps: [...]}, JSON Lines", name_hints=("tiny",))(parse_tiny)
    try:
        yield "tiny"
    finally:
        unregister_format("tiny")


def test_a_registered_format_is_read_guessed_and_listed(tiny_format: str) -> None:
    text = json.dumps({"ref": 7, "steps": [{"who": "customer", "said": "balance?"},
                                           {"tool": {"id": "t1", "name": "balance"}},
                                           {"output": {"id": "t1", "value": 12}},
                                           {"who": "bot", "said": "12 euros"}]}) + "\n{broken\n"
    first, second = read_calls(io.StringIO(text), tiny_format, name="x.jsonl")
    assert isinstance(first, ImportedCall)
    assert (first.external_id, [(t.speaker, t.text, [(c.name, c.result) for c in t.tool_calls])
                                for t in first.turns]) == (
        "7", [("caller", "balance?", []), ("agent", "12 euros", [("balance", 12)])])
    assert str(second).startswith("line 2: ")
    assert format_for("exports/tiny-2024.jsonl") == "tiny"
    assert FORMATS["tiny"] == "Tiny call logs: {ref, steps: [...]}, JSON Lines"
    with pytest.raises(ValueError, match="is registered twice"):
        import_format("tiny", "again")(parse_tiny)


def test_format_guessing_and_unknown_formats() -> None:
    assert [format_for(n) for n in ("a/vapi_calls.json", "retell.jsonl", "x.csv", "openai_x.jsonl", "x.json")] == [
        "vapi", "retell", "csv", "openai", "polygon"]
    assert format_for("x.csv", "vapi") == "vapi"
    with pytest.raises(ValueError, match="unknown import format 'nope'; expected one of: csv, openai, polygon, retell, vapi"):
        get_format("nope")


# -- the sources file -------------------------------------------------------------------------------


def _sources(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "sources.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_valid_sources_file_resolves_paths(tmp_path: Path) -> None:
    path = _sources(tmp_path, f"""sources:
  support:
    platform: vapi
    secret_env: VAPI_SECRET
    agent: {DEMO_AGENT}
    grade_on_arrival: true
    redaction_region: gb
  nightly:
    platform: csv
    s3_prefix: s3://calls/nightly/
""")
    loaded = load_sources(path)
    assert sorted(loaded.sources) == ["nightly", "support"]
    support = loaded.sources["support"]
    assert (support.agent, support.redaction_region, support.receives_webhooks) == (str(DEMO_AGENT), "GB", True)
    assert loaded.sources["nightly"].receives_webhooks is False
    result = CliRunner().invoke(app, ["sources", "validate", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{path}: valid" in result.output


def test_every_problem_names_its_line_and_field(tmp_path: Path) -> None:
    path = _sources(tmp_path, """sources:
  a:
    platform: zoom
  b:
    platform: retell
    grade_on_arrival: true
  c:
    platform: csv
    secret_env: lower-case
    redaction_region: XX
    s3_prefix: bucket/x
""")
    with pytest.raises(FileErrors) as caught:
        load_sources(path)
    lines = [str(e) for e in caught.value.errors]
    # Every problem: the field errors of a and c do not hide b's cross-field ones.
    assert lines == [
        f"{path}:3: sources.a.platform: unknown platform 'zoom'; expected one of: csv, openai, polygon, retell, vapi",
        f"{path}:9: sources.c.secret_env: 'lower-case' is not an environment variable name (A-Z, 0-9, _)",
        f"{path}:10: sources.c.redaction_region: 'XX' is not a phone-number region (ISO 3166 code such as US, GB)",
        f"{path}:11: sources.c.s3_prefix: 'bucket/x' is not an s3://bucket/prefix",
        f"{path}:5: sources.b.platform: retell webhooks are signed: set secret_env",
        f"{path}:6: sources.b.grade_on_arrival: grading on arrival needs the source's agent",
    ]
    result = CliRunner().invoke(app, ["sources", "validate", str(path)])
    assert result.exit_code == 2
    assert "unknown platform 'zoom'" in result.output and "Traceback" not in result.output


def test_webhook_sources_need_a_secret_and_grading_needs_an_agent(tmp_path: Path) -> None:
    path = _sources(tmp_path, "sources:\n  b:\n    platform: retell\n    grade_on_arrival: true\n"
                              "    agent: missing.yaml\n")
    with pytest.raises(FileErrors) as caught:
        load_sources(path)
    assert [str(e) for e in caught.value.errors] == [
        f"{path}:3: sources.b.platform: retell webhooks are signed: set secret_env",
        f"{path}:5: sources.b.agent: file not found: {tmp_path / 'missing.yaml'}"]


# -- signatures (test vectors computed with `openssl dgst -sha256 -hmac`) -----------------------------

RETELL_BODY = b'{"event":"call_ended","call":{"call_id":"c1"}}'
RETELL_DIGEST = "39dc8b4beead00f146f8abd51bf61b87bd3f0d154aeac07b626ae0e510d1ebd0"
VAPI_BODY = b'{"message":{"type":"end-of-call-report"}}'
VAPI_DIGEST = "68d54c0c044ab6b9d36eb458f8c4588455dc6b061bc9a1cf2271dc5bd5c68e82"
NOW = 1714999200.0


def test_retell_signature_vector() -> None:
    header = f"v=1714999200000,d={RETELL_DIGEST}"
    assert retell_signature("key_retell_test_123", RETELL_BODY, 1714999200000) == header
    ok = {"x-retell-signature": header}
    assert verify_retell("key_retell_test_123", RETELL_BODY, ok, NOW + 60) is True
    assert verify_retell("key_retell_test_123", RETELL_BODY + b" ", ok, NOW) is False  # tampered
    assert verify_retell("another-key", RETELL_BODY, ok, NOW) is False  # forged
    assert verify_retell("key_retell_test_123", RETELL_BODY, ok, NOW + 300) is True  # the window's edge
    assert verify_retell("key_retell_test_123", RETELL_BODY, ok, NOW + 301) is False  # replayed later
    assert verify_retell("key_retell_test_123", RETELL_BODY, ok, NOW - 301) is False  # dated in the future
    assert verify_retell("key_retell_test_123", RETELL_BODY, {"x-retell-signature": RETELL_DIGEST}, NOW) is False
    assert verify_retell("key_retell_test_123", RETELL_BODY, {}, NOW) is False
    for stamp in ("²", "1" * 400, "9" * 5000, "-1", " 1714999200000"):  # refused, never an exception
        assert verify_retell("key_retell_test_123", RETELL_BODY, {"x-retell-signature": f"v={stamp},d=ab"}, NOW) is False


def test_vapi_secret_token_and_hmac_vectors() -> None:
    assert vapi_hmac_signature("vapi-hmac-secret", "1714999200", VAPI_BODY) == VAPI_DIGEST
    signed = {"x-signature": VAPI_DIGEST, "x-timestamp": "1714999200"}
    assert verify_vapi("vapi-hmac-secret", VAPI_BODY, signed, NOW) is True
    assert verify_vapi("vapi-hmac-secret", VAPI_BODY, {**signed, "x-signature": "sha256=" + VAPI_DIGEST}, NOW) is True
    assert verify_vapi("vapi-hmac-secret", VAPI_BODY, signed, NOW + 301) is False
    assert verify_vapi("vapi-hmac-secret", VAPI_BODY, signed, NOW - 301) is False  # dated in the future
    assert verify_vapi("vapi-hmac-secret", VAPI_BODY + b"x", signed, NOW) is False
    assert verify_vapi("s3cret", VAPI_BODY, {"x-vapi-signature": "s3cret"}, NOW) is True
    assert verify_vapi("s3cret", VAPI_BODY, {"x-vapi-secret": "s3cret"}, NOW) is True
    assert verify_vapi("s3cret", VAPI_BODY, {"x-vapi-signature": "guess"}, NOW) is False
    assert verify_vapi("s3cret", VAPI_BODY, {}, NOW) is False


def test_webhook_readers_take_finished_calls_only() -> None:
    vapi, retell = get_format("vapi").webhook, get_format("retell").webhook
    assert vapi is not None and retell is not None
    report = {"message": {"type": "end-of-call-report", "endedReason": "customer-ended-call",
                          "call": {"id": "c9", "startedAt": "2024-05-06T10:00:00Z"},
                          "artifact": {"messages": [{"role": "user", "message": "hi"}]}}}
    assert vapi(report) == [{"id": "c9", "startedAt": "2024-05-06T10:00:00Z", "endedReason": "customer-ended-call",
                             "artifact": {"messages": [{"role": "user", "message": "hi"}]}}]
    assert vapi({"message": {"type": "status-update"}}) is None
    assert retell({"event": "call_analyzed", "call": {"call_id": "x"}}) == [{"call_id": "x"}]
    assert retell({"event": "call_started", "call": {}}) is None
