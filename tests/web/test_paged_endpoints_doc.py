"""docs/web.md's list of paginated API endpoints is the list the OpenAPI schema pages."""

from __future__ import annotations

import re
from pathlib import Path

from polygon.web import create_app
from polygon_core.adapters.settings import load_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "web.md"
PAGE_FIELDS = {"total", "offset", "limit", "items"}


def _documented() -> tuple[set[str], set[str]]:
    """(paginated, whole) GET paths as docs/web.md's API paragraph names them."""
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    paged = text.split("The lists that grow with the store are paginated", 1)[1].split("The others answer whole:")
    whole = paged[1].split("and the admin-only", 1)[0]

    def paths(part: str) -> set[str]:
        found = re.findall(r"`(/api/[^`?]*)", part)
        return {p.replace("{run}", "{run_id}").replace("{id}", "{conversation_id}") for p in found}

    return paths(paged[0]), paths(whole) - {"/api/sweeps[/{name}]"} | {"/api/sweeps", "/api/sweeps/{name}"}


def test_the_web_doc_names_exactly_the_paginated_endpoints(tmp_path: Path) -> None:
    spec = create_app(load_settings(home=tmp_path)).openapi()
    schemas = spec["components"]["schemas"]
    paged: set[str] = set()
    whole: set[str] = set()
    for path, ops in spec["paths"].items():
        if "get" not in ops or not path.startswith("/api/") or path == "/api/access":
            continue  # /healthz and the access check are no data endpoints
        content = ops["get"]["responses"]["200"]["content"]
        if "application/json" not in content:  # a call's audio (audio/wav): answered whole (or by Range)
            whole.add(path)
            continue
        ref = content["application/json"]["schema"]["$ref"].split("/")[-1]
        (paged if set(schemas[ref]["properties"]) >= PAGE_FIELDS else whole).add(path)
    documented_paged, documented_whole = _documented()
    assert documented_paged == paged
    assert documented_whole == whole
    assert "/api/runs/{run_id}/probes" in whole
