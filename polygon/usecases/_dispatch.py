"""One judge or probe pass over one conversation, whoever the judge is, stored with its outcome.

Every judge name goes through here: `offline-heuristic`, a fitted judge (`fitted:<name>@<hash>`)
and a model judge (`openai:…`, `anthropic:…`). Whatever happens is stored and visible: a broken
call is the agent's failure (verdict fail, not judged), a judge that fails after its retries or
answers nothing readable is a `judge_error` with its reason, a probe answerer that fails leaves
`error` answers with theirs (docs/design.md, "Verdicts"). Nothing is silent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from polygon_core.adapters.providers import UsageMeter, ledger_key, make_chat_model
from polygon_core.checks import Checks
from polygon_core.conversation import ProviderFailure
from polygon_core.judging import (
    HEURISTIC_JUDGE,
    agent_failure,
    agent_failure_judgment,
    answer_probes_offline,
    build_judgment,
    judge_error_judgment,
    judge_offline,
    judge_request,
    probe_error_answers,
    probe_request,
    read_judge_reply,
    read_probe_reply,
    reply_problem,
    to_probe_answers,
)
from polygon_core.models import Conversation, Judgment, ProbeAnswer
from polygon_core.probes import Probe
from polygon_core.providers import COMPACT_PREFIX
from polygon_core.scoring import Rubric, get_rubric

from ._common import Stores

OFFLINE_NAMES = frozenset({"offline", HEURISTIC_JUDGE})
FITTED_PREFIX = "fitted:"


def judge_style(name: str) -> str:
    """How a judge or probe answerer is asked: "compact" for `compact:` names, else "full"."""
    return "compact" if name.startswith(COMPACT_PREFIX) else "full"


def judge_label(name: str, model: Any = None) -> str:
    """The name a judge's results are stored under: `offline` is the heuristic judge."""
    if model is not None:
        return str(model.name)
    return HEURISTIC_JUDGE if name in OFFLINE_NAMES else name


@dataclass(frozen=True)
class JudgeSpec:
    """Who judges, under which rubric, how many repeats; `model` is an injected ChatModel (tests)."""

    name: str
    rubric: Rubric
    repeats: int = 1
    model: Any = None
    fitted: Any = None  # the loaded fitted judge, for `fitted:` names

    @classmethod
    def resolve(cls, stores: Stores, name: str, rubric_version: str, *, repeats: int = 1,
                model: Any = None) -> JudgeSpec:
        """A judge ready to use; a fitted judge is loaded once here (a bad name is a ValueError)."""
        label = judge_label(name, model)
        fitted = load_fitted_judge(stores, label) if label.startswith(FITTED_PREFIX) else None
        return cls(name=label, rubric=get_rubric(rubric_version), repeats=repeats, model=model, fitted=fitted)

    @property
    def offline(self) -> bool:
        """Computed in process (heuristic or fitted): no model call, nothing that can time out."""
        return self.model is None and (self.name == HEURISTIC_JUDGE or self.fitted is not None)


def load_fitted_judge(stores: Stores, name: str) -> Any:
    """The fitted judge stored under `name` (`fitted:<name>@<hash>`), from the artifact store."""
    from polygon_core.adapters.fitted_judges import load_fitted  # lazy: scikit-learn is only needed by fitted judges

    return load_fitted(stores, name)


def fitted_judge_warning(stores: Stores, name: str) -> str | None:
    """The line a scorecard shows under a fitted judge stored with `--force` (why it was refused),
    or None (not a fitted judge, or one stored without a warning)."""
    if not name.startswith(FITTED_PREFIX):
        return None
    from polygon_core.adapters.fitted_judges import fitted_warning  # lazy, as load_fitted_judge

    return fitted_warning(stores, name)


def check_model_name(stores: Stores, name: str, role: str = "judge") -> None:
    """Refuse a bad model name or a missing key before anything is sent or stored; a fitted judge
    must be stored, and can only judge."""
    if name in OFFLINE_NAMES:
        return
    if name.startswith(FITTED_PREFIX):
        if role != "judge":
            raise ValueError(f"{name!r} is a fitted judge: it can judge, not play the {role}")
        load_fitted_judge(stores, name)
        return
    model = make_chat_model(name, stores.settings)
    close = getattr(model, "aclose", None)
    if close is not None:
        asyncio.run(close())


def send(stores: Stores, run_id: str, step: str, conversation_id: str, name: str, model: Any,
         requests: list[Any]) -> list[Any]:
    """Send requests to a role's model in one event loop; a named model's usage goes to the run's
    ledger for `step`. Raises ProviderFailure when a request fails after its retries."""
    meter = UsageMeter()
    owned = model is None
    chat = make_chat_model(name, stores.settings, meter=meter) if owned else model

    async def go() -> list[Any]:
        try:
            return [await chat.chat(r) for r in requests]
        finally:
            close = getattr(chat, "aclose", None)
            if owned and close is not None:
                await close()

    try:
        return asyncio.run(go())
    finally:
        if owned:
            stores.artifacts.put_text(ledger_key(run_id, step, conversation_id), meter.to_json())


def judge_requests(conv: Conversation, *, rubric: Rubric, persona: Any, instructions: str | None,
                   checks: Checks, repeats: int, style: str = "full") -> list[Any]:
    """The k requests of a k-repeat model judge: one per repeat, with distinct seeds (the same
    seed would just replay one reply). Live, batch and production judging all send these."""
    base = judge_request(conv, rubric=rubric, persona=persona, instructions=instructions, checks=checks,
                         style=style)
    return [base.model_copy(update={"seed": ((base.seed or 0) + i) % (2**31)}) for i in range(repeats)]


def _raws(stores: Stores, run_id: str, step: str, conv: Conversation, checks: Checks, persona: Any,
          spec: JudgeSpec, agent_path: str | None) -> list[dict[str, Any]]:
    if spec.fitted is not None:
        from polygon_core.calibration import judge_fitted

        return [judge_fitted(conv, checks, persona, spec.rubric, spec.fitted)] * spec.repeats
    if spec.offline:
        return [judge_offline(conv, checks, persona, spec.rubric)] * spec.repeats
    instructions = stores.caches.agent(agent_path)[1] if agent_path else None
    requests = judge_requests(conv, rubric=spec.rubric, persona=persona, instructions=instructions,
                              checks=checks, repeats=spec.repeats, style=judge_style(spec.name))
    replies = send(stores, run_id, step, conv.id, spec.name, spec.model, requests)
    return [read_judge_reply(r, spec.rubric) for r in replies]


def _with_compact_hint(judgment: Judgment) -> Judgment:
    """A full-format judge at its own server (`…@<base URL>`) that quoted nothing of the transcript
    is most often a small local model reading the rubric: its reason names the compact format."""
    reason = judgment.reason or ""
    if (judgment.status != "judge_error" or judge_style(judgment.judge_model) != "full"
            or "@" not in judgment.judge_model or not reason.startswith("none of the judge's")):
        return judgment
    hint = (f"; a small local model reads the compact format better: judge with "
            f"'{COMPACT_PREFIX}{judgment.judge_model}' (docs/local-models.md)")
    return judgment.model_copy(update={"reason": reason + hint})


def judge_one(stores: Stores, run_id: str, conv: Conversation, checks: Checks, spec: JudgeSpec, *,
              persona: Any, agent_path: str | None, forbidden: Sequence[str], step: str = "judge",
              not_applicable: Sequence[str] = ()) -> Judgment:
    """Judge one conversation and store the result, whatever it is (see the module docstring)."""
    version = spec.rubric.version
    broken = agent_failure(conv)
    if broken is not None:
        judgment = agent_failure_judgment(conv, broken, rubric_version=version, judge_model=spec.name)
    else:
        try:
            raws = _raws(stores, run_id, step, conv, checks, persona, spec, agent_path)
        except ProviderFailure as exc:
            judgment = judge_error_judgment(conv.id, str(exc), rubric_version=version, judge_model=spec.name)
        else:
            judgment = build_judgment(conv, raws, rubric_version=version, judge_model=spec.name,
                                      forbidden_phrases=forbidden, not_applicable=not_applicable,
                                      assertions=checks.assertions,
                                      continuous_scores=spec.fitted is not None)
            judgment = _with_compact_hint(judgment)
    stores.repo.save_judgment(run_id, judgment)
    return judgment


def probe_one(stores: Stores, run_id: str, conv: Conversation, checks: Checks, probes: Sequence[Probe], *,
              name: str, model: Any = None, step: str = "probe",
              asked: Sequence[Probe] | None = None,
              adjust: Callable[[list[ProbeAnswer]], list[ProbeAnswer]] | None = None) -> list[ProbeAnswer]:
    """Answer `probes` on one conversation and store the answers; a failed pass stores `error`
    answers with the reason. `asked` (default: all) are the ones a model is sent; the others get
    no answer from it, and `adjust` (production: mark what needs ground truth `na`) runs last."""
    label = judge_label(name, model)
    if model is None and name in OFFLINE_NAMES:
        answers = answer_probes_offline(conv, checks, list(probes))
    else:
        sent = list(probes if asked is None else asked)
        read: dict[str, Any] = {}
        try:
            problem = None
            if sent:
                (reply,) = send(stores, run_id, step, conv.id, label, model,
                                [probe_request(conv, sent, checks=checks, style=judge_style(label))])
                read = read_probe_reply(reply, sent, conv)
                problem = reply_problem(reply)
        except ProviderFailure as exc:
            answers = probe_error_answers(conv.id, probes, str(exc), answered_by=label)
        else:
            answers = to_probe_answers(conv.id, list(probes), read, answered_by=label)
            if problem is not None:  # nothing in the reply could be read: say why (e.g. cut at the cap)
                answers = probe_error_answers(conv.id, probes, f"unreadable reply: {problem}", answered_by=label)
    if adjust is not None:
        answers = adjust(answers)
    stores.repo.save_probe_answers(run_id, answers)
    return answers
