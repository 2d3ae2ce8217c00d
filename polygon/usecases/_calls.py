"""A call's stored audio and timeline: what `polygon show --audio` writes and the web player plays.

A call (a conversation on the voice channel) keeps a stereo WAV (caller left, agent right) and its
timeline JSON in the artifact store beside its transcript (`call_audio_key`, `call_timeline_key`);
the conversation's `voice.audio_key` / `voice.timeline_key` name them when set.
"""

from __future__ import annotations

from dataclasses import dataclass

from polygon_core.adapters.artifacts import ArtifactNotFoundError
from polygon_core.models import Conversation
from polygon_core.voice import Timeline

from ._common import Stores, call_audio_key, call_timeline_key, load_conversation

__all__ = ["CallAudioFolder", "NotACallError", "call_audio", "call_audio_folder", "call_timeline"]


class NotACallError(ArtifactNotFoundError):
    """The conversation asked for is a text conversation: it has no audio and no timeline.

    An ArtifactNotFoundError (a FileNotFoundError), as a missing transcript is, so a front end that
    answers "not found" for one answers it for the other.
    """


@dataclass(frozen=True)
class CallAudioFolder:
    """Where a run's calls' WAVs are (`folder`, the artifact store's address) and which calls have one."""

    folder: str
    conversations: list[str]


def call_audio_folder(stores: Stores, run_id: str) -> CallAudioFolder | None:
    """The run's stored call WAVs (None when it has none: a text run)."""
    from ._stored import conversation_records

    calls = [c.conversation_id for c in conversation_records(stores, run_id)
             if stores.artifacts.exists(call_audio_key(run_id, c.conversation_id))]
    if not calls:
        return None
    return CallAudioFolder(stores.artifacts.uri(call_audio_key(run_id, calls[0])).rsplit("/", 1)[0], calls)


def call_audio(stores: Stores, run_id: str, conversation_id: str) -> bytes:
    """The call's stereo WAV (caller left, agent right), as stored.

    Raises ArtifactNotFoundError when the conversation is not stored, NotACallError when it is a
    text conversation, and ArtifactNotFoundError naming the conversation when its audio is missing.
    """
    conv = _call(stores, run_id, conversation_id)
    key = (conv.voice.audio_key if conv.voice else None) or call_audio_key(run_id, conversation_id)
    try:
        return stores.artifacts.get_bytes(key)
    except ArtifactNotFoundError:
        raise ArtifactNotFoundError(
            f"call {conversation_id!r} of run {run_id!r} has no audio in the artifact store ({key})") from None


def call_timeline(stores: Stores, run_id: str, conversation_id: str) -> Timeline:
    """The call's timeline: both sides' speech segments and the line's events, in milliseconds.

    Raises as `call_audio` does (the missing artifact being the timeline JSON).
    """
    conv = _call(stores, run_id, conversation_id)
    key = (conv.voice.timeline_key if conv.voice else None) or call_timeline_key(run_id, conversation_id)
    try:
        text = stores.artifacts.get_text(key)
    except ArtifactNotFoundError:
        raise ArtifactNotFoundError(
            f"call {conversation_id!r} of run {run_id!r} has no timeline in the artifact store ({key})") from None
    return Timeline.model_validate_json(text)


def _call(stores: Stores, run_id: str, conversation_id: str) -> Conversation:
    """The stored conversation, refused unless it is a call."""
    try:
        conv = load_conversation(stores, run_id, conversation_id)
    except ArtifactNotFoundError:
        raise ArtifactNotFoundError(f"run {run_id!r} has no stored conversation {conversation_id!r}") from None
    if conv.channel != "voice":
        raise NotACallError(f"conversation {conversation_id!r} of run {run_id!r} is a {conv.channel} "
                            "conversation, not a call: it has no audio or timeline")
    return conv
