"""The lazy package faces (polygon._lazy): every name resolves, and a run imports only what it runs.

`polygon.usecases`, `polygon.tasks` and `polygon.flows` import their names on first use, so each
one's `_EXPORTS` table must list exactly `__all__` and match its `if TYPE_CHECKING:` imports (what
mypy and tests/test_layers.py read). A command imports what it uses: `polygon run` never imports
calibration, prompt analysis, sweeps, production imports or the web app (issue 18).
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO

FACES = {"polygon.usecases": REPO / "polygon/usecases/__init__.py",
         "polygon.tasks": REPO / "tasks/__init__.py",
         "polygon.flows": REPO / "flows/__init__.py"}


def _type_checking_imports(source: str) -> dict[str, tuple[str, ...]]:
    """submodule -> names, from the package's `if TYPE_CHECKING:` block."""
    tree = ast.parse(source)
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    return {n.module or "": tuple(a.name for a in n.names) for n in block.body if isinstance(n, ast.ImportFrom)}


@pytest.mark.parametrize("package", sorted(FACES))
def test_the_exports_table_is_all_and_the_type_checking_imports(package: str) -> None:
    face: ModuleType = importlib.import_module(package)
    exports: dict[str, tuple[str, ...]] = face._EXPORTS
    names = [n for names in exports.values() for n in names]
    assert sorted(names) == sorted(face.__all__)
    assert len(names) == len(set(names))  # each name from one submodule
    assert exports == _type_checking_imports(FACES[package].read_text(encoding="utf-8"))


@pytest.mark.parametrize("package", sorted(FACES))
def test_every_name_is_its_submodules_object(package: str) -> None:
    face = importlib.import_module(package)
    for module, names in face._EXPORTS.items():
        sub = importlib.import_module(f"{package}.{module}")
        assert [getattr(face, n) is getattr(sub, n) for n in names] == [True] * len(names)
    assert set(face.__all__) <= set(dir(face))


def test_an_unknown_name_is_an_attribute_error() -> None:
    from polygon import usecases

    with pytest.raises(AttributeError) as raised:
        _ = usecases.no_such_use_case  # type: ignore[attr-defined]
    assert str(raised.value) == "module 'polygon.usecases' has no attribute 'no_such_use_case'"


def test_calibrate_options_default_to_the_calibration_defaults() -> None:
    # The CLI writes them out so that registering `calibrate` imports no statistics.
    from polygon.cli import _cmd_calibrate
    from polygon_core.calibration import DEFAULT_RESAMPLES, DEFAULT_SEED

    assert (_cmd_calibrate.DEFAULT_SEED, _cmd_calibrate.DEFAULT_RESAMPLES) == (DEFAULT_SEED, DEFAULT_RESAMPLES)


#: A real `polygon run` of one conversation in its own process; what it imported, written at exit.
_RUN = """
import atexit, sys
listing = sys.argv.pop()
atexit.register(lambda: open(listing, "w").write("\\n".join(sorted(sys.modules))))
from polygon.cli import main
main()
"""

#: What a run never needs (the commands and flows that do import them when they run).
_NOT_FOR_A_RUN = (
    "polygon.usecases._analysis", "polygon.usecases._arrivals", "polygon.usecases._production",
    "polygon.usecases._production_grade", "polygon.usecases._production_runs", "polygon.usecases._sweeps",
    "polygon.usecases._replay", "polygon.usecases._trends", "polygon.usecases._views",
    "polygon.flows._calibrate", "polygon.flows._sweep", "polygon.flows._import_calls", "polygon.flows._production",
    "polygon.flows._weekly", "polygon.flows._personas", "polygon.flows._reevaluate",
    "polygon.tasks._analysis", "polygon.tasks._calibrate", "polygon.tasks._sweep", "polygon.tasks._arrivals",
    "polygon.tasks._production", "polygon.tasks._personas", "polygon.tasks._reevaluate",
    "polygon.web", "polygon_core.analysis", "polygon_core.imports", "polygon_core.redaction",
    "polygon_core.adapters.analysis_store", "polygon.usecases._personas",
    "sklearn", "scipy", "krippendorff", "boto3",  # (not fastapi: Prefect's own client imports it)
    # The speech engines: a text run never loads them (a voice call does, when it builds them).
    "polygon_core.adapters.speech", "faster_whisper", "ctranslate2", "espeakng_loader", "webrtcvad",
    # The bot's tool stubs over HTTP and MCP: only a call to a voice bot serves them.
    "polygon_core.adapters.stub_server", "mcp", "mcp_types",
    # Nor the line to a voice bot (`websockets` itself is Prefect's too, so a run does load it).
    "polygon_core.adapters.transports", "polygon_core.adapters.voice_bot",
)


@pytest.mark.prefect
def test_a_run_imports_no_calibration_analysis_sweep_import_or_web_code(
        tmp_path: Path, prefect_harness: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import get_current_settings

    from polygon_core.demo import demo_dir

    monkeypatch.setenv("POLYGON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PREFECT_API_URL", str(get_current_settings().api.url))  # the session's test server
    listing = tmp_path / "modules.txt"
    suite = demo_dir() / "suite"
    args = ["run", str(suite), "--agent", str(demo_dir() / "agents" / "agent_v1.yaml"), "--seeds", "1",
            "--scenario", "address-change", "--json", str(listing)]  # the last argument: where the list goes
    done = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, timeout=300,
                          cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    loaded = listing.read_text(encoding="utf-8").split()
    # It ran: the evaluate flow, one conversation ...
    assert "polygon.flows._evaluate" in loaded and json.loads(done.stdout)["runs"][0]["conversations"] == 1
    # ... and imported nothing a run does not need.
    assert [m for m in loaded if m.split(".")[0] in ("polygon", "polygon_core", "sklearn", "scipy",
                                                      "krippendorff", "boto3", "faster_whisper", "ctranslate2",
                                                      "espeakng_loader", "webrtcvad", "mcp", "mcp_types")
            and any(m == n or m.startswith(n + ".") for n in _NOT_FOR_A_RUN)] == []
