"""Fitted judges in the artifact store: store one, load one by its `fitted:<name>@<hash>` name.

An artifact is `judges/<name>/<hash>.json` (the first 12 hex of its content hash): JSON only, with
its training set's hash and feature list inside (polygon_core/calibration/_fit.py). Loading checks
the content against the hash in the name, so an edited artifact is refused rather than trusted.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..calibration import FittedJudge, artifact_text
from .artifacts import ArtifactNotFoundError

if TYPE_CHECKING:
    from .stores import Stores

__all__ = ["PREFIX", "check_fitted_name", "fitted_key", "fitted_warning", "list_fitted", "load_fitted", "store_fitted"]

PREFIX = "fitted:"
_ROOT = "judges/"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_MODEL = re.compile(rf"{PREFIX}({_NAME.pattern})@([0-9a-f]{{12}})")


def fitted_key(name: str, digest: str) -> str:
    """The artifact key of a fitted judge: `judges/<name>/<first 12 hex of its hash>.json`."""
    return f"{_ROOT}{name}/{digest[:12]}.json"


def check_fitted_name(name: str) -> str:
    """`name` when it can name a fitted judge; ValueError saying what a name may hold otherwise."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"fitted judge name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit")
    return name


def store_fitted(stores: Stores, name: str, body: dict[str, Any]) -> str:
    """Store a fitted judge's JSON artifact (`fit_judge`'s body) under its content hash; return its
    `fitted:<name>@<hash>` model name."""
    text, digest = artifact_text(body)
    stores.artifacts.put_text(fitted_key(check_fitted_name(name), digest), text)
    return f"{PREFIX}{name}@{digest[:12]}"


def fitted_warning(stores: Stores, model_name: str) -> str | None:
    """The warning a fitted judge was stored with (`--force`), as a line naming it, or None.

    None too for a judge that is not a stored fitted judge: the scorecard that asks shows its
    judge's name either way, and loading errors are reported where the judge is used to judge.
    """
    if not model_name.startswith(PREFIX):
        return None
    try:
        warning = load_fitted(stores, model_name).body.get("warning")
    except ValueError:
        return None
    return f"warning: {model_name} was stored with --force: {warning}" if warning else None


def list_fitted(stores: Stores) -> list[str]:
    """Every stored fitted judge, as `fitted:<name>@<hash>` names, sorted."""
    names = []
    for key in stores.artifacts.list(_ROOT):
        parts = key[len(_ROOT):].split("/")
        if len(parts) == 2 and parts[1].endswith(".json"):
            names.append(f"{PREFIX}{parts[0]}@{parts[1].removesuffix('.json')}")
    return sorted(names)


def load_fitted(stores: Stores, model_name: str) -> FittedJudge:
    """The fitted judge named `fitted:<name>@<hash>`; ValueError naming it and what exists otherwise."""
    match = _MODEL.fullmatch(model_name)
    if match is None:
        raise ValueError(f"{model_name!r} is not a fitted judge name: expected fitted:<name>@<12 hex digits>")
    name, digest = match.groups()
    try:
        text = stores.artifacts.get_text(fitted_key(name, digest))
    except ArtifactNotFoundError:
        stored = list_fitted(stores)
        raise ValueError(f"no fitted judge {model_name!r} is stored; stored: "
                         f"{', '.join(stored) if stored else 'none (fit one with polygon calibrate --fit NAME)'}"
                         ) from None
    try:
        judge = FittedJudge.from_text(text, expected_hash=digest)
    except ValueError as exc:
        raise ValueError(f"fitted judge {model_name!r} is refused: {exc}") from None
    if judge.name != name:
        raise ValueError(f"fitted judge {model_name!r} is refused: the artifact names {judge.name!r}")
    return judge
