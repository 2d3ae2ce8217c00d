"""Base classes shared by the domain models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FileModel(BaseModel):
    """A model read from a user's file: unknown fields are errors, not silently dropped."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class DomainModel(BaseModel):
    """A model Polygon builds itself; still strict so typos in code fail loudly."""

    model_config = ConfigDict(extra="forbid")
