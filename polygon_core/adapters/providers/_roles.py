"""Per-role budgets of a model request: output cap, timeout and attempts.

Every request names its role (`ChatRequest.role`). The role picks its settings group
(`POLYGON_<ROLE>_MAX_TOKENS`, `POLYGON_<ROLE>_TIMEOUT`, `POLYGON_<ROLE>_MAX_ATTEMPTS`); the timeout and
attempts fall back to `POLYGON_MODEL_TIMEOUT` / `POLYGON_MODEL_MAX_ATTEMPTS`. Prompt analysis and
the comparison summary ask as the judge; a role Polygon does not know is budgeted like the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import PolygonSettings

__all__ = ["ROLE_GROUPS", "RoleBudget", "role_budgets", "settings_group"]

# Request role → settings group (the <ROLE> of the environment variables, lower case).
ROLE_GROUPS = {"agent": "agent", "caller": "caller", "judge": "judge", "probe": "probe",
               "persona": "persona", "persona_generator": "persona", "analysis": "judge"}
_GROUPS = ("agent", "caller", "judge", "probe", "persona")


@dataclass(frozen=True)
class RoleBudget:
    """What one role's request may take."""

    group: str
    max_tokens: int
    timeout: float
    max_attempts: int

    @property
    def variable(self) -> str:
        """The role's own prefix of environment variables, e.g. `POLYGON_JUDGE`."""
        return f"POLYGON_{self.group.upper()}"

    def timeout_message(self, attempts: int) -> str:
        """The one-line reason of a request that ran out of time on every attempt."""
        each = f" on each of {attempts} attempts" if attempts > 1 else ""
        return (f"timed out after {self.timeout:g} s{each} (raise {self.variable}_TIMEOUT or "
                "POLYGON_MODEL_TIMEOUT for a slow local model)")

    def cap_message(self, max_tokens: int) -> str:
        """The reason of a structured reply that stopped at the output cap."""
        return f"reply cut at the output cap of {max_tokens} tokens (raise {self.variable}_MAX_TOKENS)"


def settings_group(role: str) -> str:
    """The settings group of a request role (`persona_generator` → `persona`; unknown → `judge`)."""
    return ROLE_GROUPS.get(role, "judge")


def role_budgets(settings: PolygonSettings) -> dict[str, RoleBudget]:
    """Each settings group's budget, read from settings once."""
    out: dict[str, RoleBudget] = {}
    for group in _GROUPS:
        timeout = getattr(settings, f"{group}_timeout")
        attempts = getattr(settings, f"{group}_max_attempts")
        out[group] = RoleBudget(
            group=group, max_tokens=getattr(settings, f"{group}_max_tokens"),
            timeout=timeout if timeout is not None else settings.model_timeout,
            max_attempts=attempts if attempts is not None else settings.model_max_attempts)
    return out
