"""The price table (prices.yaml) and cost estimates."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...models import Usage

__all__ = ["ModelPrice", "PriceTable", "estimate_cost", "price_table"]


class ModelPrice(BaseModel):
    """Dollars per `per_tokens` tokens."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(..., ge=0)
    cached_input: float = Field(..., ge=0)
    output: float = Field(..., ge=0)


class PriceTable(BaseModel):
    """The whole price file."""

    model_config = ConfigDict(extra="forbid")

    read_on: str
    currency: str = "USD"
    per_tokens: int = 1_000_000
    batch_discount: dict[str, float] = Field(
        default_factory=dict, description="per provider: the share of the price a batch API reply saves")
    models: dict[str, ModelPrice]

    @field_validator("batch_discount")
    @classmethod
    def _fraction(cls, value: dict[str, float]) -> dict[str, float]:
        bad = {k: v for k, v in value.items() if not 0.0 <= v <= 1.0}
        if bad:
            raise ValueError(f"batch_discount must be fractions between 0 and 1, got {bad}")
        return value

    def discount(self, provider_model: str) -> float:
        """The batch discount of a `provider:model` (0 when its provider has none)."""
        return self.batch_discount.get(provider_model.split(":", 1)[0], 0.0)

    def price(self, provider_model: str) -> ModelPrice | None:
        """The price of `provider:model`; a dated snapshot (`gpt-4o-2024-08-06`) falls back to its family."""
        if provider_model in self.models:
            return self.models[provider_model]
        best = max((k for k in self.models if provider_model.startswith(k + "-")), key=len, default=None)
        return self.models[best] if best else None


@lru_cache(maxsize=4)
def price_table(path: str | None = None) -> PriceTable:
    """Load the price table (the bundled prices.yaml by default)."""
    file = Path(path) if path else Path(__file__).with_name("prices.yaml")
    return PriceTable.model_validate(yaml.safe_load(file.read_text(encoding="utf-8")))


def estimate_cost(provider_model: str, usage: Usage, table: PriceTable | None = None) -> float | None:
    """Estimated dollars for `usage` on a model at list price; None when the model has no price."""
    table = table or price_table()
    price = table.price(provider_model)
    if price is None:
        return None
    cached = min(usage.cached_tokens, usage.input_tokens)
    fresh = usage.input_tokens - cached
    total = fresh * price.input + cached * price.cached_input + usage.output_tokens * price.output
    return total / table.per_tokens
