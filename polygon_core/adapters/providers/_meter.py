"""Usage, retries and cost per role: a meter per pipeline step, written as a small ledger artifact."""

from __future__ import annotations

import json
import threading
from typing import Any

from ...models import Usage
from ..artifacts import ArtifactStore
from ._prices import estimate_cost, price_table

__all__ = ["UsageMeter", "ledger_key", "run_usage"]


class UsageMeter:
    """Accumulates what each role's model calls used (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.roles: dict[str, dict[str, Any]] = {}

    def add(self, role: str, model: str, usage: Usage, *, retries: int = 0, failed: bool = False,
            batch: bool = False) -> None:
        """Record one call (or one final failure); `batch` for a batch API reply (discounted)."""
        with self._lock:
            entry = self.roles.setdefault(role, {"models": {}, "retries": 0, "failures": 0})
            per = entry["models"].setdefault(model, Usage().model_dump())
            entry["models"][model] = Usage.model_validate(per).add(usage).model_dump()
            if batch:
                # The batch share of the model's usage, kept apart so its discount can be applied.
                share = entry.setdefault("batch", {}).setdefault(model, Usage().model_dump())
                entry["batch"][model] = Usage.model_validate(share).add(usage).model_dump()
            entry["retries"] += retries
            entry["failures"] += int(failed)

    def retry(self, role: str) -> None:
        """Count a retry as it happens (also for calls that finally fail)."""
        with self._lock:
            entry = self.roles.setdefault(role, {"models": {}, "retries": 0, "failures": 0})
            entry["retries"] += 1

    def to_json(self) -> str:
        """The ledger's text."""
        with self._lock:
            return json.dumps(self.roles, sort_keys=True)


def ledger_key(run_id: str, step: str, conversation_id: str) -> str:
    """Where a step's usage ledger lives in the artifact store."""
    return f"runs/{run_id}/usage/{conversation_id}.{step}.json"


def run_usage(artifacts: ArtifactStore, run_id: str,
              conversation_usage: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Usage, retries and estimated cost per role over a run's ledgers.

    `conversation_usage` (each conversation's stored role → Usage) fills in roles that made no
    provider calls (offline roles, callable agents), whose tokens are estimates.
    """
    table = price_table()
    roles: dict[str, dict[str, Any]] = {}
    for key in artifacts.list(f"runs/{run_id}/usage/"):
        for role, entry in json.loads(artifacts.get_text(key)).items():
            agg = roles.setdefault(role, {"models": {}, "retries": 0, "failures": 0})
            agg["retries"] += entry.get("retries", 0)
            agg["failures"] += entry.get("failures", 0)
            for part in ("models", "batch"):
                for model, usage in entry.get(part, {}).items():
                    into = agg.setdefault(part, {})
                    prev = Usage.model_validate(into.get(model, {}))
                    into[model] = prev.add(Usage.model_validate(usage)).model_dump()
    for conv in conversation_usage or []:
        for role, usage in conv.items():
            # A role with ledgers is counted from them; an offline role from every conversation
            # (testing `models` here let only the first conversation count: 7 calls for any run).
            if role in roles and not roles[role].get("offline"):
                continue
            agg = roles.setdefault(f"{role}", {"models": {}, "retries": 0, "failures": 0, "offline": True})
            if agg.get("offline"):
                prev = Usage.model_validate(agg["models"].get("offline", {}))
                agg["models"]["offline"] = prev.add(Usage.model_validate(usage)).model_dump()
    out: dict[str, Any] = {"roles": {}, "cost_usd": 0.0, "cost_estimated": True,
                           "prices_read_on": table.read_on, "unpriced_models": [], "retries": 0,
                           "batch_savings_usd": 0.0}
    unpriced: set[str] = set()
    for role, agg in sorted(roles.items()):
        total, batch_calls = Usage(), 0
        cost = savings = 0.0
        for model, usage in agg["models"].items():
            u = Usage.model_validate(usage)
            total = total.add(u)
            if model == "offline":
                continue
            batched = Usage.model_validate(agg.get("batch", {}).get(model, {}))
            batch_calls += batched.calls
            short = model.split("@", 1)[0]
            value = estimate_cost(short, u, table)
            if value is None:
                unpriced.add(short)
                continue
            # Batch replies are billed at the list price less the provider's batch discount.
            saved = (estimate_cost(short, batched, table) or 0.0) * table.discount(short)
            cost += value - saved
            savings += saved
        out["roles"][role] = {"models": sorted(agg["models"]), "input_tokens": total.input_tokens,
                              "output_tokens": total.output_tokens, "cached_tokens": total.cached_tokens,
                              "calls": total.calls, "tokens_estimated": total.estimated,
                              "retries": agg["retries"], "failures": agg["failures"],
                              "batch_calls": batch_calls, "batch_savings_usd": round(savings, 6),
                              "cost_usd": round(cost, 6)}
        out["cost_usd"] += cost
        out["batch_savings_usd"] += savings
        out["retries"] += agg["retries"]
    out["cost_usd"] = round(out["cost_usd"], 6)
    out["batch_savings_usd"] = round(out["batch_savings_usd"], 6)
    out["unpriced_models"] = sorted(unpriced)
    return out
