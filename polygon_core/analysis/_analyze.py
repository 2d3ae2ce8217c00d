"""The entry points: analyse a prompt with the tiers asked for."""

from __future__ import annotations

from ..conversation import ProviderFailure
from ..files import prompt_hash
from ..providers import ChatModel
from ._combine import combine
from ._embeddings import embeddings_tier
from ._judge import run_judge
from ._models import TIERS, PromptAnalysis, TierFindings
from ._rules import rules_tier
from ._surprisal import surprisal_tier
from ._text import detect_language
from .patterns import patterns_for

#: How a `tiers_skipped` reason starts when a configured judge model was asked and failed (as
#: opposed to not configured, or above `--max-tier`): front ends warn about these.
JUDGE_FAILED = "failed: "

_OFFLINE = {"rules": rules_tier, "surprisal": surprisal_tier, "embeddings": embeddings_tier}


def _check_tier(max_tier: int) -> None:
    if not 1 <= max_tier <= len(TIERS):
        raise ValueError(f"max tier must be 1–{len(TIERS)} ({', '.join(TIERS)}); got {max_tier}")


def analyze_prompt(text: str, *, language: str | None = None, max_tier: int = 4,
                   judge: TierFindings | None = None, judge_skipped: str = "no judge model configured"
                   ) -> PromptAnalysis:
    """Analyse `text` with tiers 1..`max_tier` (1 rules, 2 surprisal, 3 embeddings, 4 judge).

    The offline tiers run here; the judge tier's findings are passed in (see `analyze_prompt_with`),
    and when they are not, the judge is listed in `tiers_skipped` with `judge_skipped` as the reason.
    `language` is `en` or `ru` (detected from the alphabet when None). Deterministic: the same text,
    language and tiers always give the same analysis.
    """
    _check_tier(max_tier)
    lang = language or detect_language(text)
    patterns = patterns_for(lang)
    findings = [tier(text, patterns) for name, tier in _OFFLINE.items() if TIERS.index(name) < max_tier]
    skipped: dict[str, str] = {}
    for name in TIERS[max_tier:]:
        skipped[name] = f"above --max-tier {max_tier}"
    if max_tier >= 4:
        if judge is not None:
            findings.append(judge)
        else:
            skipped["judge"] = judge_skipped
    return PromptAnalysis(prompt_hash=prompt_hash(text), language=lang, length=len(text),  # type: ignore[arg-type]
                          tiers_run=[f.tier for f in findings], tiers_skipped=skipped,
                          axes=combine(findings))  # type: ignore[arg-type]


async def analyze_prompt_with(model: ChatModel, text: str, *, language: str | None = None,
                              max_tier: int = 4) -> PromptAnalysis:
    """Like `analyze_prompt`, with `model` as the judge tier when `max_tier` reaches it.

    When the provider fails (a 401, a timeout after the retries), the analysis is the offline
    tiers' and `tiers_skipped` names the judge with the provider's one-line message: the offline
    tiers' reading is still worth having, and the caller decides how loudly to say it degraded.
    """
    _check_tier(max_tier)
    lang = language or detect_language(text)
    if max_tier < 4:
        return analyze_prompt(text, language=lang, max_tier=max_tier)
    try:
        judge = await run_judge(model, text, lang)
    except ProviderFailure as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return analyze_prompt(text, language=lang, max_tier=max_tier, judge_skipped=f"{JUDGE_FAILED}{reason}")
    return analyze_prompt(text, language=lang, max_tier=max_tier, judge=judge,
                          judge_skipped=f"{JUDGE_FAILED}the reply of {model.name} did not fit the schema")
