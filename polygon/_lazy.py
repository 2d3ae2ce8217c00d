"""Package faces whose names are imported on first use (PEP 562), not when the package is.

`polygon.usecases`, `polygon.tasks` and `polygon.flows` each name everything they offer, but a
command uses a few: `polygon run` needs the evaluate flow, not calibration, prompt analysis,
sweeps or the S3 importers, and importing those is a good part of a short run's CPU. Each package
keeps its imports under `if TYPE_CHECKING:` (what mypy and tests/test_layers.py read) and its
`__all__`; this module resolves the names at run time.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__`: `exports` maps a submodule (`_common`) to the names
    it provides; a name is imported from its submodule on first use and kept as the package's
    global, so later uses are plain lookups."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
