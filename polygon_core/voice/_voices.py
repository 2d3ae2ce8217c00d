"""A caller's voice, derived from its persona's type and seed: the same on every replay."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .._hashing import stable_seed


@dataclass(frozen=True)
class VoiceProfile:
    """How a synthesiser should speak: words per minute, pitch (0-100), a voice variant and the
    pause between sentences. Engines map these onto their own knobs (docs/voice.md)."""

    rate_wpm: int = 165
    pitch: int = 50
    variant: str = "m3"
    sentence_pause_ms: int = 250
    # Engine voice name when one was asked for (an OpenAI voice such as `alloy`); None: the engine's
    # choice from `variant`.
    name: str | None = None


# Speaking rate and pauses by caller type: busy and aggressive callers talk faster, confused ones
# slower with longer pauses (the "persona's voice").
_RATE = {"busy": 195, "aggressive": 190, "confused": 135, "talkative": 175, "distrustful": 160,
         "cooperative": 165}
_PAUSE = {"confused": 700, "talkative": 150, "busy": 120, "aggressive": 150}
_VARIANTS = ("m1", "m2", "m3", "m4", "f1", "f2", "f3", "f4")


def caller_voice(caller_type: str, seed: int, conversation_id: str = "") -> VoiceProfile:
    """The caller's voice for this persona type and seed."""
    rng = random.Random(stable_seed("caller-voice", caller_type, seed, conversation_id))
    rate = _RATE.get(caller_type, 165) + rng.randint(-10, 10)
    return VoiceProfile(rate_wpm=rate, pitch=rng.randint(30, 70), variant=rng.choice(_VARIANTS),
                        sentence_pause_ms=_PAUSE.get(caller_type, 250))


def agent_voice(agent_name: str, name: str | None = None) -> VoiceProfile:
    """The agent's voice: steady and mid-paced; `name` is the engine voice the config asked for."""
    rng = random.Random(stable_seed("agent-voice", agent_name))
    variant = name if name and len(name) <= 3 else rng.choice(_VARIANTS)
    return VoiceProfile(rate_wpm=170, pitch=50, variant=variant, sentence_pause_ms=250, name=name)
