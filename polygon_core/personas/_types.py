"""What persona generation produces: plan cells, generated personas, failures and stored records."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..models import CallerType, DomainModel, FileModel, Outcome, Persona

PersonaStatus = Literal["active", "stale", "pinned", "failed"]
PERSONA_STATUSES: tuple[PersonaStatus, ...] = ("active", "stale", "pinned", "failed")


class PlanCell(DomainModel):
    """One persona to make: a caller type, an intended outcome and a difficulty (1–5)."""

    type: CallerType
    outcome: Outcome
    difficulty: int = Field(..., ge=1, le=5)
    task: str | None = Field(None, description="the agent task this caller calls about")

    @property
    def label(self) -> str:
        """A short readable name: `busy-refusal-d3`."""
        return f"{self.type}-{self.outcome}-d{self.difficulty}"


class PersonaRecord(FileModel):
    """A persona as stored and reviewed: the persona plus where it came from and its status.

    It is a FileModel because people edit the exported YAML by hand; unknown fields are errors.
    """

    id: str = Field(..., min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    agent: str = Field(..., min_length=1, description="the agent config's name")
    prompt_hash: str = Field(..., min_length=1, description="hash of the prompt it was made from")
    status: PersonaStatus = "active"
    task: str | None = None
    generator: str = Field("offline", description="offline | the model that wrote it")
    persona: Persona | None = Field(None, description="None only for a failed generation")
    error: str | None = Field(None, description="why generation failed (status `failed`)")


class GenerationFailure(DomainModel):
    """A plan cell whose request failed after its retries."""

    cell: PlanCell
    attempts: int
    error: str


class GenerationResult(DomainModel):
    """Personas made (in plan order), failures, and near-duplicates that were dropped."""

    personas: list[Persona] = Field(default_factory=list)
    cells: list[PlanCell] = Field(default_factory=list, description="the cell of each persona")
    failures: list[GenerationFailure] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list, description="names of near-duplicates dropped")
    generator: str = "offline"
    warnings: list[str] = Field(default_factory=list,
                                description="facts the prompt asks for that no persona has (see `coverage_warnings`)")
