"""Judging: the judge and probe passes, and turning raw passes into Judgments.

- `judge_offline` / `answer_probes_offline`: the offline heuristic tier (labelled
  `offline-heuristic`), derived from the deterministic checks, quoting the transcript.
- `conversation_signals`: every deterministic signal of a conversation (what the heuristic
  scores from and a fitted judge learns from), each with the turn it was seen at.
- `judge_request` / `read_judge_reply`, `probe_request` / `read_probe_reply`: pure prompt builders
  and reply readers for model-backed judges and probe answerers (the providers send the requests).
- `build_judgment`: k raw repeats → aggregate, gates, verdict, evidence checked against the transcript.
"""

from ._cues import CUES, cue_pattern
from ._grade import (
    agent_failure,
    agent_failure_judgment,
    build_judgment,
    evidence_supported,
    judge_error_judgment,
    probe_error_answers,
)
from ._heuristic import HEURISTIC_JUDGE, SCORERS, judge_offline, scores_only
from ._heuristic_version import HEURISTIC_VERSION
from ._identity import FITTED_JUDGE_PREFIX, judge_prompt_hash
from ._model import judge_with_model, probe_with_model
from ._probe_prompt import (
    PROBE_FLAG_MISSING,
    PROBE_FLAG_UNPARSEABLE,
    PROBE_FLAG_UNREADABLE,
    probe_request,
    probe_response_schema,
    read_probe_reply,
    to_probe_answers,
)
from ._probes_offline import answer_probes_offline
from ._prompt import (
    UNPARSEABLE_REPLY,
    UNPARSEABLE_TEXT,
    escape_data,
    judge_request,
    judge_response_schema,
    judge_system_prompt,
    read_judge_reply,
    reply_problem,
    transcript_block,
)
from ._signals import END_REASONS, Signals, conversation_signals

__all__ = [
    "CUES",
    "END_REASONS",
    "FITTED_JUDGE_PREFIX",
    "HEURISTIC_JUDGE",
    "HEURISTIC_VERSION",
    "PROBE_FLAG_MISSING",
    "PROBE_FLAG_UNPARSEABLE",
    "PROBE_FLAG_UNREADABLE",
    "SCORERS",
    "UNPARSEABLE_REPLY",
    "UNPARSEABLE_TEXT",
    "Signals",
    "agent_failure",
    "agent_failure_judgment",
    "answer_probes_offline",
    "build_judgment",
    "conversation_signals",
    "cue_pattern",
    "escape_data",
    "evidence_supported",
    "judge_error_judgment",
    "judge_offline",
    "judge_prompt_hash",
    "judge_request",
    "judge_response_schema",
    "judge_system_prompt",
    "judge_with_model",
    "probe_error_answers",
    "probe_request",
    "probe_response_schema",
    "probe_with_model",
    "read_judge_reply",
    "read_probe_reply",
    "reply_problem",
    "scores_only",
    "to_probe_answers",
    "transcript_block",
]
