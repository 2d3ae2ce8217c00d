"""Reading an agent's prompt, in its own language, for what it handles.

A deterministic pattern reading, not understanding: the tasks the agent handles, the facts it asks
callers for, what it must refuse or hand over, and the prices and policies it states. It is what the
offline generator builds personas from, and what a model generator is told to respect. The language
is detected (`detect_language`); each language has its reader (`_read_en`, `_read_ru`), so adding a
language is adding a reader and a value table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..models import OUTCOMES, Outcome
from ._facts import CHANGE_VERBS, CHANGE_WORDS, IDENTITY, Ask, scope_matches, stem
from ._language import detect_language, detect_locale
from ._objects import formats, object_kinds, vocabulary, without
from ._read_en import read_english
from ._read_ru import read_russian
from ._readingtypes import Parts, TaskSpec, slug

__all__ = ["IDENTITY_FACTS", "PromptReading", "TaskSpec", "read_prompt"]

#: Facts that say who the caller is; a persona always knows the ones its agent asks for.
IDENTITY_FACTS = IDENTITY

_READERS: dict[str, Callable[[str], Parts]] = {"en": read_english, "ru": read_russian}

# A general call about the prompt's own business, when the prompt lists no task we can read.
_GENERAL = {"en": TaskSpec("enquiry", (), ("ask a question about your services",)),
            "ru": TaskSpec("vopros", (), ("задать вопрос об услугах",))}


@dataclass(frozen=True)
class PromptReading:
    """What the prompt says the agent handles, in the prompt's language.

    Each task carries the facts a caller about it knows (`TaskSpec.facts`: the asked-for facts
    scoped to it, or asked for every task) and its `kind`; `facts` are all of them.
    """

    tasks: tuple[TaskSpec, ...]
    facts: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    restrictions: tuple[str, ...] = field(default_factory=tuple)
    language: str = "en"
    locale: str = "en-US"
    refusals: tuple[str, ...] = ()
    handovers: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    amounts: tuple[float, ...] = ()
    refusal_tasks: tuple[TaskSpec, ...] = ()
    transferred: tuple[str, ...] = ()  # refusals the prompt hands over rather than refuses
    fact_names: tuple[tuple[str, str], ...] = ()  # (key, the prompt's words for it), where kept
    vocabulary: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (object kind, the candidates the prompt names)
    formats: tuple[tuple[str, int, str], ...] = ()  # (key, length, character | digit) the prompt types


def _unique(items: list[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return tuple(seen)


def _unique_tasks(tasks: list[TaskSpec]) -> tuple[TaskSpec, ...]:
    by_goal: dict[str, TaskSpec] = {}
    names: set[str] = set()
    for task in tasks:
        goal = task.goals[0].casefold()
        if goal in by_goal:
            continue
        name, n = task.name, 2
        last = slug(re.findall(r"[^\W\d_]+", goal)[-1]) if re.search(r"[^\W\d_]", goal) else ""
        if name in names and last and f"{name}_{last}" not in names and not name.endswith(last):
            name = f"{name}_{last}"  # «заказать такси на вокзал» after «… в аэропорт»: named by what differs
        while name in names:  # else two tasks read into one name get numbered
            name, n = f"{task.name}_{n}", n + 1
        names.add(name)
        by_goal[goal] = TaskSpec(name, task.cues, task.goals, task.facts, task.refusal_goals, task.kind)
    return tuple(by_goal.values())


_CALLBACK_GOAL = re.compile(r"call.?back|перезвон|обратн\w* звон", re.IGNORECASE)


def _scoped(ask: Ask, task: TaskSpec, tasks: tuple[TaskSpec, ...]) -> bool:
    """Whether an ask is for `task`: its scope names the task's verb; else it speaks of any change
    ("before any change to a membership") and the task's verb makes one; else it names the task's
    other words. An ask whose scope names no task at all is for every task."""
    if not ask.scope:
        return True
    named = [t for t in tasks if scope_matches(ask.scope, t.cues[:1])]
    if not named and CHANGE_WORDS & set(ask.scope):
        named = [t for t in tasks if t.kind != "refusal" and t.cues[:1] and t.cues[0] in CHANGE_VERBS]
    if not named:  # by the task's other words, a service before a refusal that shares one ("claim")
        named = [t for t in tasks if scope_matches(ask.scope, t.cues)]
        named = [t for t in named if t.kind != "refusal"] or named
    return task in named if named else True


def _with_facts(tasks: tuple[TaskSpec, ...], asks: list[Ask], everyone: tuple[TaskSpec, ...],
                language: str) -> tuple[TaskSpec, ...]:
    out = []
    for task in tasks:
        keys = [k for ask in asks if _scoped(ask, task, everyone) for k in ask.keys]
        if not any(k in IDENTITY_FACTS for k in keys):
            keys.insert(0, "name")  # a caller can always say who they are
        # What the call is about, whether or not the prompt says to ask for it (last, so the values
        # drawn for the asked-for facts do not move).
        keys += object_kinds(task.goals[0], language)
        keys = without(keys, task.goals[0])  # "… without a prescription": no prescription number
        kind = "callback" if task.kind == "success" and _CALLBACK_GOAL.search(task.goals[0]) else task.kind
        out.append(TaskSpec(task.name, task.cues, task.goals, tuple(dict.fromkeys(keys)), task.refusal_goals, kind))
    return tuple(out)


def _refusal_task(goal: str, taken: set[str]) -> TaskSpec:
    words = [w for w in re.findall(r"[^\W\d_]+", goal.lower())
             if w not in ("get", "the", "a", "an", "my", "попросить", "узнать", "find", "out", "waived",
                      "what", "who", "which", "whether", "if", "that", "i", "will", "am", "they", "кто", "что", "где", "ли",
                      "и", "или")]
    name, n = slug("_".join(words[:2])), 2
    while name in taken:
        name, n = f"{slug('_'.join(words[:2]))}_{n}", n + 1
    taken.add(name)
    stems = tuple(dict.fromkeys(stem(w) for w in words))
    return TaskSpec(name, stems, (goal,), (), (goal,), "refusal")


def read_prompt(prompt: str, language: str | None = None) -> PromptReading:
    """The tasks, asked-for facts, refusals, handovers and reachable outcomes a prompt states.

    `language` is detected from the prompt's script when None. A prompt whose tasks cannot be read
    yields one general task in its language, so generation always has something to call about.
    """
    lang = language or detect_language(prompt)
    if lang not in _READERS:
        raise ValueError(f"persona generation reads prompts in {', '.join(_READERS)}; got {lang!r}")
    parts = _READERS[lang](prompt)
    tasks = _unique_tasks(parts.tasks) or (_GENERAL[lang],)
    refusals = _unique(parts.refusals)
    taken = {t.name for t in tasks}
    refusal_tasks = tuple(_refusal_task(goal, taken) for goal in refusals)
    everyone = tasks + refusal_tasks
    tasks = _with_facts(tasks, parts.asks, everyone, lang)
    refusal_tasks = _with_facts(refusal_tasks, parts.asks, everyone, lang)
    facts = _unique(parts.facts)
    if not any(k in IDENTITY_FACTS for k in facts):
        facts = ("name", *facts)  # a caller can always say who they are
    outcomes: list[Outcome] = ["success"]
    if refusals:
        outcomes.append("refusal")
    if parts.callback:
        outcomes.append("callback")
    if parts.transfer:
        outcomes.append("transfer")
    return PromptReading(tasks=tasks, facts=facts, outcomes=tuple(o for o in OUTCOMES if o in outcomes),
                         restrictions=refusals, language=lang, locale=detect_locale(prompt, lang),
                         refusals=refusals, handovers=_unique(parts.handovers),
                         policies=_unique(parts.policies), amounts=tuple(dict.fromkeys(parts.amounts)),
                         refusal_tasks=refusal_tasks, transferred=_unique(parts.transferred),
                         fact_names=tuple({k: n for a in reversed(parts.asks) for k, n in zip(a.keys, a.names,
                                                                                            strict=False)}.items()),
                         vocabulary=vocabulary(prompt, lang), formats=formats(prompt, lang))
