"""One stored conversation in full, as `polygon show RUN CONVERSATION` prints it: the transcript, its
assertions, and on a call its metrics and turn times."""

from __future__ import annotations

from dataclasses import dataclass

from polygon_core.models import AssertionResult, Conversation, Run

from ._common import Stores, load_conversation
from ._stored import conversation_record

__all__ = ["ConversationDetail", "conversation_detail"]

_LISTED = 5  # conversation ids an error names as examples


@dataclass(frozen=True)
class ConversationDetail:
    """A stored conversation with its run and the assertion results stored beside it."""

    run: Run
    conversation: Conversation
    assertions: list[AssertionResult]


def _resolve(stores: Stores, run: Run, asked: str) -> str:
    """The conversation id `asked` names in the run: itself, or the one id it is a unique prefix of."""
    ids = stores.repo.conversation_ids(run.id)
    if asked in ids:
        return asked
    matches = sorted(i for i in ids if i.startswith(asked))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValueError(f"conversation {asked!r} is a prefix of {len(matches)} conversations of run {run.id}: "
                         f"{', '.join(matches[:_LISTED])}{' …' if len(matches) > _LISTED else ''}")
    examples = ", ".join(sorted(ids)[:_LISTED]) or "none stored"
    raise ValueError(f"run {run.id} has no conversation {asked!r} (its conversations: {examples}"
                     f"{' …' if len(ids) > _LISTED else ''}; `polygon show {run.id} --all` lists them)")


def conversation_detail(stores: Stores, run_id: str, conversation_id: str) -> ConversationDetail:
    """The run (id or unique prefix) and one of its conversations (id or unique prefix), loaded whole.

    Raises ValueError naming the run or the conversation when it is not stored (or a prefix is not
    unique).
    """
    run = stores.repo.get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    cid = _resolve(stores, run, conversation_id)
    record = conversation_record(stores, run.id, cid)
    return ConversationDetail(run=run, conversation=load_conversation(stores, run.id, cid),
                              assertions=list(record.assertions) if record is not None else [])
