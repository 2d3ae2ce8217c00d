"""The assertion evaluator: simpleeval with the helpers over a conversation's timeline (`_evaluate.py` runs it)."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from simpleeval import (
    FeatureNotAvailable,
    FunctionNotDefined,
    InvalidExpression,
    NameNotDefined,
)

from ..models import Conversation, ToolDef
from ..scoring import normalise_speech, phrase_pattern
from ..stubs import ExpressionLimitError, SafeEvaluator
from ._helpers import same_set
from ._language import (
    before_subject,
    classify_call,
)
from ._policy import CITATION_THRESHOLD, policy_findings
from ._timeline import Occurrence, Timeline, base_names, build_timeline

# Errors that make one occurrence fail its condition (e.g. an event without that argument);
# when no occurrence satisfies the condition, the first of them is reported instead.
_PER_OCCURRENCE_ERRORS = (InvalidExpression, LookupError, TypeError, ValueError, ArithmeticError)
_ABSENT = object()


class UnknownArgument(InvalidExpression):
    """A condition reads a name that is not an argument of the tool or event it is about."""


@dataclass(frozen=True)
class Note:
    """What a helper found: whether it held, why, and the turn that decided it."""

    holds: bool
    message: str
    turn: int | None = None


@dataclass
class Context:
    conversation: Conversation
    timeline: Timeline
    names: dict[str, Any]
    knowledge_base: list[str]
    lenient: bool

    @property
    def known(self) -> set[str]:
        return self.timeline.tool_names | self.timeline.event_names

    @classmethod
    def build(
        cls,
        conversation: Conversation,
        knowledge_base: Sequence[str],
        tools: Mapping[str, ToolDef] | None,
    ) -> Context:
        timeline = build_timeline(conversation, tools)
        return cls(
            conversation=conversation,
            timeline=timeline,
            names=base_names(conversation, timeline, knowledge_base),
            knowledge_base=list(knowledge_base),
            lenient=tools is None,
        )


class AssertionEvaluator(SafeEvaluator):
    """simpleeval with the assertion helpers; tool and event calls take lazy conditions."""

    names: Any  # simpleeval's namespace; swapped per occurrence while a condition is evaluated

    def __init__(self, context: Context) -> None:
        self._context = context
        self.notes: list[Note] = []
        super().__init__(names=context.names)
        self.functions.update(same_set=same_set, said=self._said, cites_only=self._cites_only)

    # -- dispatch --------------------------------------------------------------------------------

    def _eval_call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Name):
            return super()._eval_call(node)
        name = node.func.id
        kind = classify_call(name, self._context.known, self._context.lenient)
        if kind == "form":
            return getattr(self, f"_form_{name}")(node)
        if kind == "occurrence":
            return self._happened(name, node.args, node.keywords, self._timeline.occurrences(name))
        if kind == "before":
            if len(node.args) != 1 or node.keywords:
                raise TypeError(f"{name}() takes one tool or event name")
            return self._before(before_subject(name), self._name_of(node.args[0]))
        if kind is None:
            raise FunctionNotDefined(name, self.expr)
        return super()._eval_call(node)

    @property
    def _timeline(self) -> Timeline:
        return self._context.timeline

    def _name_of(self, node: ast.expr) -> str:
        """A tool or event name argument: a bare identifier or an expression giving a string."""
        try:
            value = self._eval(node)
        except NameNotDefined:
            lenient = self._context.lenient
            if isinstance(node, ast.Name) and lenient and not node.id.startswith("_"):
                return node.id  # no tool definitions: a name that never happened
            raise
        if not isinstance(value, str):
            raise TypeError(f"expected a tool or event name, got {type(value).__name__}")
        return value

    # -- conditions over occurrences -------------------------------------------------------------

    def _select(
        self,
        label: str,
        occurrences: list[Occurrence],
        args: Sequence[ast.expr],
        keywords: Sequence[ast.keyword],
    ) -> list[Occurrence]:
        """The occurrences satisfying the condition (lazily evaluated per occurrence)."""
        if len(args) > 1:
            raise TypeError(f"{label}(): give at most one condition (join conditions with `and`)")
        condition = args[0] if args else None
        wanted = {k.arg: self._eval(k.value) for k in keywords if k.arg is not None}
        matched: list[Occurrence] = []
        first_error: Exception | None = None
        for occurrence in occurrences:
            if any(occurrence.args.get(k, _ABSENT) != v for k, v in wanted.items()):
                continue
            if condition is None:
                matched.append(occurrence)
                continue
            saved = self.names
            self.names = {
                **saved,
                "args": occurrence.args,
                "turn": occurrence.turn,
                **occurrence.args,
            }
            try:
                if self._eval(condition):
                    matched.append(occurrence)
            except (FeatureNotAvailable, ExpressionLimitError):
                raise  # a refused construct or size is the expression's fault, whatever the occurrence
            except _PER_OCCURRENCE_ERRORS as exc:
                first_error = first_error or exc
            finally:
                self.names = saved
        if not matched and first_error is not None:
            if isinstance(first_error, NameNotDefined):
                seen = sorted({k for o in occurrences for k in o.args})
                raise UnknownArgument(
                    f"{first_error.name!r} is not an argument of {label} "
                    f"(its arguments: {', '.join(seen) or 'none'})"
                ) from first_error
            raise first_error
        return matched

    def _condition_text(self, args: Sequence[ast.expr], keywords: Sequence[ast.keyword]) -> str:
        parts = [ast.unparse(a) for a in args] + [ast.unparse(k) for k in keywords]
        return " and ".join(parts)

    def _happened(
        self,
        label: str,
        args: Sequence[ast.expr],
        keywords: Sequence[ast.keyword],
        occurrences: list[Occurrence],
        attempts: bool = False,
    ) -> bool:
        matched = self._select(label, occurrences, args, keywords)
        condition = self._condition_text(args, keywords)
        if matched:
            self.notes.append(Note(True, matched[0].describe(), matched[0].turn))
            return True
        if not occurrences:
            if attempts:
                message = f"{label} was never called"
            elif label in self._timeline.tool_names and not self._timeline.is_event(label):
                message = f"no valid, successful call of {label}"
            else:
                message = f"{label} never happened"
        else:
            seen = "; ".join(o.describe() for o in occurrences[:3])
            more = f" and {len(occurrences) - 3} more" if len(occurrences) > 3 else ""
            subject = f"call of {label}" if attempts else label
            message = f"no {subject} with {condition} (seen: {seen}{more})"
        self.notes.append(Note(False, message))
        return False

    def _before(self, first: str, second: str) -> bool:
        later = self._timeline.occurrences(second)
        if not later:
            self.notes.append(Note(True, f"{second} never happened (vacuously true)"))
            return True
        earlier = self._timeline.occurrences(first)
        start = min((o.order for o in earlier), default=None)
        for occurrence in later:
            if start is None or occurrence.order <= start:
                self.notes.append(
                    Note(
                        False,
                        f"{second} at turn {occurrence.turn} before any {first}",
                        occurrence.turn,
                    )
                )
                return False
        self.notes.append(Note(True, f"every {second} came after {first}", later[0].turn))
        return True

    # -- name helpers (lazy forms) ---------------------------------------------------------------

    def _form_before(self, node: ast.Call) -> bool:
        if len(node.args) != 2 or node.keywords:
            raise TypeError("before() takes two tool or event names: before(first, then)")
        return self._before(self._name_of(node.args[0]), self._name_of(node.args[1]))

    def _form_count(self, node: ast.Call) -> int:
        name = self._first_name("count", node)
        occurrences = self._timeline.occurrences(name)
        return len(self._select(name, occurrences, node.args[1:], node.keywords))

    def _form_happened(self, node: ast.Call) -> bool:
        name = self._first_name("happened", node)
        occurrences = self._timeline.occurrences(name)
        return self._happened(name, node.args[1:], node.keywords, occurrences)

    _form_ever = _form_happened

    def _form_called(self, node: ast.Call) -> bool:
        name = self._first_name("called", node)
        attempts = self._timeline.attempts(name)
        return self._happened(name, node.args[1:], node.keywords, attempts, attempts=True)

    def _first_name(self, helper: str, node: ast.Call) -> str:
        if not node.args:
            raise TypeError(f"{helper}() needs a tool or event name")
        return self._name_of(node.args[0])

    # -- plain helpers ---------------------------------------------------------------------------

    def _said(self, phrase: str) -> bool:
        """True when the agent said `phrase`: whole words, case- and Unicode-insensitive.

        The forbidden-phrase gate's rule (`phrase_pattern`), so `said("80")` does not hold for
        "180 dollars" and a phrase a gate forbids is exactly one `said()` finds; "ё" is read as "е".
        """
        if not isinstance(phrase, str):
            raise TypeError("said() takes a phrase")
        wanted = phrase_pattern(phrase)
        if wanted is None:
            raise ValueError(f"said() needs a phrase with a letter or digit, got {phrase!r}")
        for turn in self._context.conversation.turns:
            if turn.speaker == "agent" and wanted.search(normalise_speech(turn.text)):
                message = f"agent said {phrase!r} at turn {turn.index}"
                self.notes.append(Note(True, message, turn.index))
                return True
        self.notes.append(Note(False, f"agent never said {phrase!r}"))
        return False

    def _cites_only(self, knowledge_base: Any) -> bool:
        """True when every policy sentence of the agent matches a knowledge-base statement."""
        if isinstance(knowledge_base, str):
            statements = [knowledge_base]
        elif isinstance(knowledge_base, (list, tuple)) and all(
            isinstance(s, str) for s in knowledge_base
        ):
            statements = list(knowledge_base)
        else:
            raise TypeError("cites_only() takes the knowledge base: a list of statements")
        findings = policy_findings(self._context.conversation, statements)
        for finding in findings:
            if not finding.cited:
                self.notes.append(
                    Note(
                        False,
                        f'uncited policy statement at turn {finding.turn}: "{finding.sentence}" '
                        f"(best knowledge-base match {finding.score:.0f} < "
                        f"{CITATION_THRESHOLD:.0f})",
                        finding.turn,
                    )
                )
                return False
        self.notes.append(
            Note(True, f"{len(findings)} policy statement(s), all found in the knowledge base")
        )
        return True
