"""Voice calls: the channel, the line's conditions, the cascade's settings and the call's summary.

A call is the same conversation with a timeline under it (docs/voice.md). These are the parts a
user writes (`conditions:` in a scenario or suite, `voice:` in an agent config) and the summary a
stored conversation carries; the timeline itself lives in `polygon_core.voice`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ._base import DomainModel, FileModel

Channel = Literal["text", "voice"]

# The presets `--conditions` and `conditions:` name (docs/voice.md, "Conditions and presets").
CONDITION_PRESETS: tuple[str, ...] = ("clean", "phone", "street", "office", "car")


class LineConditions(FileModel):
    """What the line and the caller's room do to the caller's voice.

    `preset` names a set of conditions (`clean`: none; `phone`: 8 kHz G.711 mu-law only; `street`,
    `office`, `car`: phone plus noise and events); `intensity` is the one dial (0 = the preset's
    mildest, 1 = its harshest); `noise_files` are WAV files (relative to the suite folder) used as
    background noise instead of the synthetic kinds. Written as a bare preset name or a mapping.
    """

    preset: str = Field("clean", description="clean, phone, street, office or car")
    intensity: float = Field(0.5, ge=0.0, le=1.0, description="0 = the preset's mildest, 1 = its harshest")
    noise_files: list[str] = Field(default_factory=list,
                                   description="WAV files of background noise, relative to the suite folder")

    @model_validator(mode="before")
    @classmethod
    def _bare_name(cls, data: Any) -> Any:
        # `conditions: street` is the common case; the mapping form carries the dial and files.
        return {"preset": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _known_preset(self) -> LineConditions:
        if self.preset not in CONDITION_PRESETS:
            raise ValueError(f"unknown conditions preset {self.preset!r}; expected one of "
                             f"{', '.join(CONDITION_PRESETS)}")
        return self


class CascadeSettings(FileModel):
    """How Polygon's cascade (recogniser -> the agent -> synthesis) puts an agent on a call.

    An agent config's `voice:` section; part of the agent's version. The defaults are a decent
    cascade: it waits for `endpoint_ms` of silence before answering, stops talking when the caller
    talks over it for `barge_in_ms`, and ignores a transcript that is only a filler ("um").
    """

    synthesis: str = Field("espeak", description="speech synthesis engine for the agent's voice")
    voice: str | None = Field(None, description="engine voice (eSpeak variant such as `f2`, an OpenAI "
                              "voice such as `alloy`); default: derived from the agent's name")
    recognition: str = Field("whisper", description="speech recogniser the agent hears the caller with")
    stt_model: str | None = Field(None, description="recogniser model: a folder with a CTranslate2 Whisper "
                                  "model, or the engine's model name; default: the bundled one for the language")
    yields: bool = Field(True, description="stop talking when the caller barges in")
    barge_in_ms: int = Field(600, ge=0, le=10_000,
                             description="caller speech over the agent's audio before the agent stops")
    endpoint_ms: int = Field(600, ge=0, le=10_000,
                             description="silence after the caller's speech that ends the caller's turn")
    recognition_latency_ms: int = Field(150, ge=0, le=60_000,
                                        description="modelled time from the end of the turn to its transcript")
    synthesis_latency_ms: int = Field(200, ge=0, le=60_000,
                                      description="modelled time from the reply's text to its first audio")
    ignore_fillers: bool = Field(True, description="do not answer a transcript that is only fillers or empty")
    url: str | None = Field(None, description="a deployed voice bot's WebSocket (ws:// or wss://): Polygon "
                            "dials it instead of running its own cascade (docs/voice.md, part 2)")
    protocol: str | None = Field(None, description="the bot's wire (default twilio: Twilio Media Streams)")

    @model_validator(mode="after")
    def _bot_url(self) -> CascadeSettings:
        if self.url is not None and not self.url.startswith(("ws://", "wss://")):
            raise ValueError(f"voice.url {self.url!r}: expected a ws:// or wss:// URL")
        if self.protocol is not None and self.url is None:
            raise ValueError("voice.protocol names a bot's wire: give voice.url too")
        return self


def conditions_label(conditions: LineConditions) -> str:
    """`street@0.5`, with its noise files named when it has some (`street@0.5 + rain.wav`)."""
    label = f"{conditions.preset}@{conditions.intensity:g}"
    return " + ".join([label, *conditions.noise_files])


def cascade_label(cascade: CascadeSettings) -> str:
    """The cascade's settings that shape a call's turn-taking numbers: `yields, barge-in 600 ms,
    endpoint 600 ms`; an agent that does not yield never reads `barge_in_ms`, so it is left out.
    A deployed bot (`url`) takes turns with its own pipeline: none of these settings applies."""
    if cascade.url is not None:
        return "the bot's own"
    turn_taking = f"yields, barge-in {cascade.barge_in_ms} ms" if cascade.yields else "does not yield"
    return f"{turn_taking}, endpoint {cascade.endpoint_ms} ms"


# What a call's numbers were made with (`VoiceCall.made_with`), in the order they are shown: the
# engines by role (`VoiceCall.stack`), then the line and the cascade.
CALL_STACK_KEYS: tuple[str, ...] = ("caller_voice", "agent_voice", "agent_ears", "vad", "conditions", "cascade")


class InteractionMetric(DomainModel):
    """One interaction metric of a call: its value (None when no event could measure it) and the
    number of events behind it (caller turns, barge-ins, backchannels ...)."""

    value: float | None = None
    count: int = 0


class VoiceCall(DomainModel):
    """What a stored conversation says of its call: how it was made and what the timeline measured."""

    conditions: LineConditions = Field(default_factory=LineConditions)
    cascade: CascadeSettings = Field(default_factory=CascadeSettings)
    stack: dict[str, str] = Field(default_factory=dict, description="role -> engine:model "
                                  "(caller_voice, agent_voice, agent_ears, vad)")
    sample_rate: int = Field(16_000, description="the line's sample rate (8000 on a phone line)")
    duration_ms: int = 0
    metrics: dict[str, InteractionMetric] = Field(default_factory=dict)
    audio_key: str | None = Field(None, description="artifact key of the stereo WAV (caller left, agent right)")
    timeline_key: str | None = Field(None, description="artifact key of the timeline JSON")

    def made_with(self) -> dict[str, str]:
        """What the call's numbers were made with, as its checks store it (`Metrics.voice_stack`):
        the engines by role (`stack`), `conditions` (`conditions_label`) and `cascade`
        (`cascade_label`), in `CALL_STACK_KEYS`' order."""
        return {**self.stack, "conditions": conditions_label(self.conditions), "cascade": cascade_label(self.cascade)}
