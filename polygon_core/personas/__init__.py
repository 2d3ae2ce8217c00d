"""Simulated callers' personas: generated from the agent's prompt, tied to its version, fault-checked.

    plan = generation_plan(12, seed=0)                       # type × outcome × difficulty cells
    plan = task_plan(12, [("book_room", "success"), ...])    # … dealt over the prompt's tasks
    result = generate_offline(prompt, count=12)              # deterministic, no model
    result = await generate_with_model(model, prompt)        # one structured request per persona
    faults = simulator_faults(conversation, persona)         # the caller's own faults
    conversation = apply_simulator_check(conversation, persona)  # → end reason simulator_error

Prompts are read in their own language (`read_prompt`: English and Russian, detected by script).
Pure: no storage here (see `polygon_core.adapters.persona_store`).
"""

from ._dedupe import drop_near_duplicates, near_duplicates, persona_text
from ._faults import (
    SimulatorFault,
    apply_simulator_check,
    premature_end,
    simulator_faults,
)
from ._model import (
    PERSONA_SCHEMA,
    generate_each,
    generate_with_model,
    persona_from_reply,
    persona_request,
    persona_schema,
)
from ._offline import generate_offline, persona_for_cell, persona_id
from ._plan import DIFFICULTIES, generation_plan, task_plan
from ._reading import PromptReading, read_prompt
from ._types import (
    PERSONA_STATUSES,
    GenerationFailure,
    GenerationResult,
    PersonaRecord,
    PersonaStatus,
    PlanCell,
)

__all__ = [
    "DIFFICULTIES",
    "PERSONA_SCHEMA",
    "PERSONA_STATUSES",
    "GenerationFailure",
    "GenerationResult",
    "PersonaRecord",
    "PersonaStatus",
    "PlanCell",
    "PromptReading",
    "SimulatorFault",
    "apply_simulator_check",
    "drop_near_duplicates",
    "generate_each",
    "generate_offline",
    "generate_with_model",
    "generation_plan",
    "near_duplicates",
    "persona_for_cell",
    "persona_from_reply",
    "persona_id",
    "persona_request",
    "persona_schema",
    "persona_text",
    "premature_end",
    "read_prompt",
    "simulator_faults",
    "task_plan",
]
