"""An installed-looking plugin distribution for the entry-point tests: a module (or package) and its
`.dist-info` with `entry_points.txt`, in a folder that `importlib.metadata` scans once it is on the
path (as `tests/providers/test_provider_modules.py` installs a provider)."""

from __future__ import annotations

from pathlib import Path


def install_plugin(site: Path, *, distribution: str, group: str, name: str, module: str, source: str) -> Path:
    """Write package `module` (its `__init__.py` is `source`) and distribution `distribution`, whose
    entry point `name` in `group` names it, under `site`; returns `site` (put it on the path)."""
    (site / module).mkdir(parents=True, exist_ok=True)
    (site / module / "__init__.py").write_text(source, encoding="utf-8")
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {module}\n", encoding="utf-8")
    return site
