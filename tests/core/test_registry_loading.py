"""`Registry`: where the built-ins come from (a module, a package's modules, entry points), in which
order, and a first lookup that is safe from two threads and from a module that looks up while loading."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from polygon_core._registry import Registry

REGISTRY_NAME = "tests_registry_demo_entries"


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty package `demo_ext` on sys.path; its modules register into `Registry` REG (below)."""
    root = tmp_path / "demo_ext"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [n for n in sys.modules if n == "demo_ext" or n.startswith("demo_ext.")]:
        del sys.modules[name]


def _module(root: Path, name: str, body: str) -> None:
    (root / f"{name}.py").write_text(f"import builtins\nreg = getattr(builtins, {REGISTRY_NAME!r})\n{body}\n",
                                     encoding="utf-8")


@pytest.fixture
def reg(monkeypatch: pytest.MonkeyPatch) -> Registry[str]:
    """A registry whose modules find it under a builtins name (they cannot import a test module)."""
    made: Registry[str] = Registry("thing", "demo_ext", submodules="", first=("_zeta",))
    monkeypatch.setattr("builtins." + REGISTRY_NAME, made, raising=False)
    return made


def test_every_module_of_the_package_is_imported_the_first_ones_first(package: Path, reg: Registry[str]) -> None:
    _module(package, "_alpha", "reg.register('alpha')('a')")
    _module(package, "_beta", "reg.register('beta')('b')")
    _module(package, "_zeta", "reg.register('zeta')('z')")
    assert reg.names() == ("zeta", "alpha", "beta")
    assert (reg.get("alpha"), reg.get("nope")) == ("a", None)
    assert ("beta" in reg, "nope" in reg, len(reg), sorted(reg)) == (True, False, 3, ["alpha", "beta", "zeta"])


def test_a_prefix_chooses_the_modules(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    only: Registry[str] = Registry("thing", "demo_ext", submodules="_gate")
    monkeypatch.setattr("builtins." + REGISTRY_NAME, only, raising=False)
    _module(package, "_gate_one", "reg.register('one')('1')")
    _module(package, "_other", "raise AssertionError('not a gate module')")
    assert only.names() == ("one",)


def test_a_module_that_looks_up_while_loading_gets_the_entries_so_far(package: Path, reg: Registry[str]) -> None:
    _module(package, "_alpha", "reg.register('alpha')('a')")
    _module(package, "_beta", "seen = reg.names()\nreg.register('beta')('b')")
    assert reg.names() == ("alpha", "beta")
    assert sys.modules["demo_ext._beta"].seen == ("alpha",)


def test_two_threads_looking_up_first_both_see_every_entry(package: Path, reg: Registry[str]) -> None:
    _module(package, "_slow", "import time\ntime.sleep(0.3)\nreg.register('slow')('s')")
    seen: list[tuple[str, ...]] = []
    threads = [threading.Thread(target=lambda: seen.append(reg.names())) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [("slow",), ("slow",)]


def test_a_failed_load_is_raised_again_on_the_next_lookup(package: Path, reg: Registry[str]) -> None:
    _module(package, "_broken", "raise RuntimeError('broken built-in')")
    for _ in range(2):
        with pytest.raises(RuntimeError, match="broken built-in"):
            reg.names()
        sys.modules.pop("demo_ext._broken", None)


def test_a_module_that_registers_then_fails_raises_its_own_error_every_time(package: Path,
                                                                             reg: Registry[str]) -> None:
    _module(package, "_alpha", "reg.register('alpha')('a')")
    _module(package, "_half", "reg.register('half')('h')\nraise RuntimeError('half-built extension')")
    for _ in range(2):  # not "thing 'half' is registered twice" the second time
        with pytest.raises(RuntimeError, match=r"^half-built extension$"):
            reg.names()
    assert reg.entries == {"alpha": "a"}  # the module that loaded keeps its entry


def test_a_built_in_imported_before_the_first_lookup_keeps_its_modules_place(package: Path,
                                                                              reg: Registry[str]) -> None:
    # Before, the listing was registration order: a caller that imported one built-in module by
    # name (`from polygon_core.imports._vapi import ...`) moved its entries ahead of the others.
    _module(package, "_alpha", "reg.register('alpha', module=__name__)('a')")
    _module(package, "_beta", "reg.register('beta', module=__name__)('b')")
    _module(package, "_zeta", "reg.register('zeta', module=__name__)('z')")
    reg.register("early", module="elsewhere")("e")  # registered before the lookup, from outside the package
    import demo_ext._beta  # noqa: F401
    assert reg.names() == ("zeta", "alpha", "beta", "early")
