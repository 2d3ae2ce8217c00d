"""Persona: who the simulated caller is and what it knows."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ._base import FileModel

CallerType = Literal["cooperative", "busy", "distrustful", "confused", "aggressive", "talkative"]
Outcome = Literal["success", "refusal", "callback", "transfer"]
CALLER_TYPES: tuple[CallerType, ...] = (
    "cooperative",
    "busy",
    "distrustful",
    "confused",
    "aggressive",
    "talkative",
)
OUTCOMES: tuple[Outcome, ...] = ("success", "refusal", "callback", "transfer")

FactValue = str | int | float | bool

# The arena's free-text `temperament` maps onto one of the six caller types. Words not listed here
# are an error (see Persona._map_temperament) so a typo never silently becomes "cooperative".
TEMPERAMENT_TO_TYPE: dict[str, CallerType] = {
    "cooperative": "cooperative",
    "friendly": "cooperative",
    "calm": "cooperative",
    "polite": "cooperative",
    "busy": "busy",
    "impatient": "busy",
    "hurried": "busy",
    "curt": "busy",
    "distrustful": "distrustful",
    "suspicious": "distrustful",
    "sceptical": "distrustful",
    "skeptical": "distrustful",
    "wary": "distrustful",
    "confused": "confused",
    "elderly": "confused",
    "uncertain": "confused",
    "aggressive": "aggressive",
    "angry": "aggressive",
    "hostile": "aggressive",
    "frustrated": "aggressive",
    "talkative": "talkative",
    "chatty": "talkative",
    "rambling": "talkative",
}

# Default patience (caller turns before a caller gives up) per type when a file does not say.
DEFAULT_PATIENCE: dict[CallerType, int] = {
    "cooperative": 12,
    "busy": 5,
    "distrustful": 10,
    "confused": 14,
    "aggressive": 6,
    "talkative": 14,
}


class SpeakingTraits(FileModel):
    """How the caller talks, independent of what it knows."""

    verbosity: int = Field(2, ge=1, le=5, description="1 = one-word answers, 5 = rambling")
    interruption: float = Field(0.0, ge=0.0, le=1.0, description="chance to cut the agent off")
    patience: int | None = Field(None, ge=1, le=100, description="caller turns before giving up")
    language: Literal["en", "ru"] | None = None


class Persona(FileModel):
    """A simulated caller with a fixed set of true facts (its ground truth)."""

    name: str | None = None
    type: CallerType = "cooperative"
    temperament: str | None = Field(None, description="arena form; mapped onto `type`")
    intended_outcome: Outcome = "success"
    difficulty: int = Field(2, ge=1, le=5)
    goal: str = Field(..., min_length=1)
    ground_truth: dict[str, FactValue] = Field(
        default_factory=dict, description="facts the caller knows and will give when asked"
    )
    unknown: list[str] = Field(
        default_factory=list, description="things the caller does not know (it must say so)"
    )
    hidden: list[str] = Field(
        default_factory=list,
        description="ground-truth keys the caller reveals only when asked directly",
    )
    traits: SpeakingTraits = Field(default_factory=SpeakingTraits)
    prompt_version: str | None = Field(
        None, description="content hash of the agent prompt this persona was generated from"
    )

    @model_validator(mode="before")
    @classmethod
    def _map_temperament(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("temperament") and "type" not in data:
            word = str(data["temperament"]).strip().lower()
            if word not in TEMPERAMENT_TO_TYPE:
                known = ", ".join(sorted(TEMPERAMENT_TO_TYPE))
                raise ValueError(f"unknown temperament {word!r}; expected one of: {known}")
            data = {**data, "type": TEMPERAMENT_TO_TYPE[word]}
        return data

    @property
    def patience(self) -> int:
        """Caller turns before this caller gives up."""
        return self.traits.patience or DEFAULT_PATIENCE[self.type]
