"""Hostile YAML: the loader's own limits (size, depth, values, alias expansion, recursive aliases).

Each case is refused with one error naming the file, the line and the bound it crossed, without a traceback,
both through `parse_yaml` and through `polygon validate` as a user runs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from polygon_core.documents import MAX_FILE_BYTES, PolygonFileError, parse_yaml, read_yaml


def _alias_bomb(width: int = 9, levels: int = 10) -> str:
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


HEAD = "id: x\npersona: {name: x, goal: g}\ncontext: "

HOSTILE: dict[str, tuple[str, str]] = {
    "alias_bomb": (
        _alias_bomb(),
        "bomb.yaml:6: expands to more than 100,000 values once aliases are expanded (an alias "
        "bomb?); write the data out or use fewer aliases",
    ),
    "brackets": (
        HEAD + "[" * 20_000 + "]" * 20_000 + "\n",
        "brackets.yaml:3: nested more than 100 levels deep (the limit for Polygon files)",
    ),
    "flow_mappings": (
        HEAD + "{a: " * 5_000 + "1" + "}" * 5_000 + "\n",
        "flow_mappings.yaml:3: nested more than 100 levels deep (the limit for Polygon files)",
    ),
    "block_mappings": (
        "id: x\ncontext:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(150)) + " " * 151 + "v\n",
        "block_mappings.yaml:101: nested more than 100 levels deep (the limit for Polygon files)",
    ),
    "alias_depth": (
        "a0: &a0 " + "[" * 90 + "]" * 90 + "\na1: &a1 " + "[" * 30 + "*a0" + "]" * 30 + "\n",
        "alias_depth.yaml:2: nested more than 100 levels deep once aliases are expanded (the limit "
        "for Polygon files)",
    ),
    "recursive_alias": (
        HEAD + "\n  loop: &loop [1, *loop]\n",
        "recursive_alias.yaml:4: recursive alias *loop: it refers to a mapping or list that "
        "contains it (Polygon's data cannot hold a cycle)",
    ),
    "recursive_mapping": (
        "context: &c\n  self: *c\n",
        "recursive_mapping.yaml:2: recursive alias *c: it refers to a mapping or list that "
        "contains it (Polygon's data cannot hold a cycle)",
    ),
    "many_values": (
        "c: [" + ",".join(["1"] * 25_000) + "]\n",
        "many_values.yaml:1: holds more than 20,000 values (the limit for Polygon files)",
    ),
    "long_text_aliases": (
        "a: &a " + "x" * 500_000 + "\nb: [" + ", ".join(["*a"] * 10) + "]\n",
        "long_text_aliases.yaml:2: expands to more than 4 MiB of text once aliases are expanded "
        "(an alias bomb?)",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_yaml_is_refused_quickly_with_file_and_line(case: str) -> None:
    text, expected = HOSTILE[case]
    name = {"alias_bomb": "bomb"}.get(case, case) + ".yaml"
    # The message names the bound that stopped the parse (nodes, depth, bytes, alias expansion): that
    # bound is what keeps a hostile file cheap; timings live in benchmarks/hostile_inputs.py.
    with pytest.raises(PolygonFileError) as caught:
        parse_yaml(text, name)
    assert str(caught.value) == expected


def test_aliases_within_the_budget_still_load() -> None:
    doc = parse_yaml("base: &b {x: 1}\nuse: {<<: *b, y: 2}\nlist: [*b, *b]\n", "ok.yaml")
    assert doc.data == {"base": {"x": 1}, "use": {"x": 1, "y": 2}, "list": [{"x": 1}, {"x": 1}]}


def test_nesting_at_the_limit_loads() -> None:
    # 100 levels in total: the top-level mapping plus 99 nested lists.
    doc = parse_yaml("a: " + "[" * 99 + "]" * 99 + "\n", "deep.yaml")
    value = doc.data["a"]
    for _ in range(98):
        value = value[0]
    assert value == []


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    line = "# " + "x" * 1021 + "\n"  # 1024 bytes a line
    path.write_text("id: x\n" + line * 1100, encoding="utf-8")
    with pytest.raises(PolygonFileError) as caught:
        read_yaml(path, "big.yaml")
    assert str(caught.value) == (
        f"big.yaml:1025: the file is larger than {MAX_FILE_BYTES:,} bytes, the limit for Polygon files"
    )


def _polygon(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("polygon")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120)


@pytest.mark.parametrize("case", ["alias_bomb", "brackets", "flow_mappings"])
def test_polygon_validate_refuses_in_one_line(tmp_path: Path, case: str) -> None:
    # The same bounds as above, through the CLI a user runs: exit 2, one line, no traceback.
    text, expected = HOSTILE[case]
    name = {"alias_bomb": "bomb"}.get(case, case) + ".yaml"
    (tmp_path / name).write_text(text, encoding="utf-8")
    out = _polygon("validate", name, cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [f"error: {expected}"]
    assert "Traceback" not in out.stdout + out.stderr
