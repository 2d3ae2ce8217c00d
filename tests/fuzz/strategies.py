"""Input strategies: YAML-ish and JSON-ish trees, hostile text, and field names Polygon knows."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# Keys the loaders and parsers look for, so generated trees reach their validation code.
KNOWN_KEYS = [
    "id", "seed", "max_turns", "language", "persona", "name", "goal", "temperament", "type",
    "difficulty", "ground_truth", "unknown", "hidden", "traits", "context", "tools", "assertions",
    "forbidden_phrases", "probes", "noise", "knowledge_base", "tags", "prompt", "prompt_file",
    "model", "callable", "endpoint", "sampling", "temperature", "description", "parameters",
    "properties", "pattern", "kind", "response", "rules", "when", "events", "state", "op", "path",
    "record", "match", "latency", "errors", "rate", "ends_call", "rubric", "seeds", "concurrency",
    "turns", "speaker", "text", "at", "messages", "role", "content", "tool_calls", "function",
    "arguments", "transcript", "call_id", "started_at", "ended_at", "end_reason", "metadata",
    "conversation_id", "turn", "timestamp", "tool_name", "tool_result", "messages", "call",
    "start_timestamp", "end_timestamp", "transcript_object", "words", "callId", "startedAt",
    "artifact", "endedReason", "results", "result", "type", "object",
]

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["", "{{ args.x }}", "{% for %}", "True", "args.x > 1", "caller", "agent",
                     "user", "assistant", "tool", "system", "object", "string", "rules", "state",
                     "template", "fixed", "append", "update", "read", "^[0-9]+$", "(", "*",
                     "refund_issued()", "2024-05-06T10:00:00Z", "1e999", "-0", "0x10"]),
)

KEYS = st.one_of(st.sampled_from(KNOWN_KEYS), st.text(max_size=10))


def trees(max_leaves: int = 25) -> st.SearchStrategy[Any]:
    """Nested mappings and lists of scalars, keyed mostly by names Polygon reads."""
    return st.recursive(
        SCALARS,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(KEYS, children, max_size=6),
        ),
        max_leaves=max_leaves,
    )


def mappings(max_leaves: int = 25) -> st.SearchStrategy[dict[Any, Any]]:
    """A top-level mapping (what every Polygon file and import record is)."""
    return st.dictionaries(KEYS, trees(max_leaves), min_size=1, max_size=10)


YAML_NOISE = st.sampled_from([
    "&a ", "*a", "<<: *a\n", "[", "]", "{", "}", "- ", ": ", "\n", "\t", "  ", "#", "'", '"', "|\n",
    ">\n", "---\n", "...\n", "!!python/object:os.system ", "!!binary ", "? ", "%YAML 1.2\n", "\x07",
    "\ufeff", "\u2028", "ü", "0o17", "~",
])


def yaml_texts() -> st.SearchStrategy[str]:
    """Text made of YAML punctuation, keys and scalars: mostly invalid, sometimes nearly valid."""
    pieces = st.one_of(YAML_NOISE, st.sampled_from(KNOWN_KEYS), st.text(max_size=8))
    return st.lists(pieces, max_size=60).map("".join)
