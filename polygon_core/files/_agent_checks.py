"""Checks of an agent config that need the file system: its prompt file and its `callable`.

* `prompt_file` must resolve inside the agent file's folder (symbolic links followed):
  `../../../../etc/passwd` and absolute paths are refused, so an agent file can only ever
  show a model the text that sits beside it. `outside_problem` is the same rule for the other
  files a Polygon file names: a suite's `probes` (inside the suite folder) and a sweep's
  `prompt_file` values (inside the spec's folder).
* `callable: package.module:Attr` must name a module that can be found on the import path and,
  for a Python source module, an attribute it defines at the top level, and not one it only binds
  to a plain value (`this:s`, a string; `os:sep` of a module already imported). The check executes
  no code: modules are located with the import system's finders and read with `ast`, never
  imported (the run imports them, after this check passes).
* While a callable agent is checked, versioned or loaded, its agent file's folder and its suite's
  folder are on the import path (`agent_import_path`): `my_agent.py` beside `agent.yaml` or in the
  suite folder imports without `PYTHONPATH`. The folders are taken off the path again afterwards
  (the imported module stays loaded), so one agent's folder does not shadow another's modules.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from pathlib import Path

from ..documents import MAX_FILE_BYTES

# Finders that may run code to answer (none in the standard library do); skipped, so the check
# stays free of side effects. `_SixMetaPathImporter` and the like only alias other modules.
_IMPORTING_FINDERS = frozenset({"_SixMetaPathImporter"})


def outside_problem(folder: Path, name: str, what: str, owner: str) -> str | None:
    """Why the file `name` (relative to `folder`, where `owner` sits) is refused, or None.

    Absolute paths and paths that resolve outside `folder` (`../`, or a symbolic link out of it)
    are refused: a file a Polygon file names is read, and sometimes sent to a model, so it must be
    one that sits beside the file that names it. `what` names the file (`probe file`)."""
    allowed = f"a path relative to the {owner}, inside its folder"
    if Path(name).is_absolute():
        return f"{what} {name!r} is an absolute path; use {allowed}"
    try:
        (folder / name).resolve().relative_to(folder.resolve())
    except ValueError:
        return f"{what} {name!r} is outside the {owner}'s folder ({folder}); use {allowed}"
    return None


def prompt_file_problem(agent_file: Path, prompt_file: str) -> tuple[Path, str | None]:
    """The prompt file's path, and why it is refused (None when it is inside the agent's folder)."""
    folder = agent_file.parent
    candidate = folder / prompt_file
    allowed = "a path relative to the agent file, inside its folder"
    if Path(prompt_file).is_absolute():
        return candidate, f"prompt file {prompt_file!r} is an absolute path; use {allowed}"
    try:
        candidate.resolve().relative_to(folder.resolve())
    except ValueError:
        return candidate, (
            f"prompt file {prompt_file!r} is outside the agent file's folder ({folder}); use {allowed}"
        )
    return candidate, None


_PATH_LOCK = threading.Lock()
_ADDED: Counter[str] = Counter()  # folders this module put on sys.path, by how many blocks need them


@contextmanager
def agent_import_path(folders: Sequence[Path | str]) -> Iterator[None]:
    """Put `folders` at the front of `sys.path` for the block; take off again the ones it added.

    Blocks may nest and run in several threads at once: a folder stays on the path while any block
    that added it is running. A folder already on the path is left where it is.
    """
    entries = list(dict.fromkeys(str(Path(f).resolve()) for f in folders))
    with _PATH_LOCK:
        mine = [e for e in entries if _ADDED[e] or e not in sys.path]
        for entry in reversed(mine):
            if not _ADDED[entry]:
                sys.path.insert(0, entry)
            _ADDED[entry] += 1
    try:
        yield
    finally:
        with _PATH_LOCK:
            for entry in mine:
                _ADDED[entry] -= 1
                if not _ADDED[entry]:
                    del _ADDED[entry]
                    if entry in sys.path:
                        sys.path.remove(entry)


def agent_folders(agent_file: Path | str, suite: Path | str | None = None) -> list[Path]:
    """The folders a callable agent's module is looked for in, before the Python path: the agent
    file's folder, then the suite's (a suite file's folder when `suite` is a file)."""
    folders = [Path(agent_file).resolve().parent]
    if suite is not None:
        suite_path = Path(suite).resolve()
        folders.append(suite_path if suite_path.is_dir() else suite_path.parent)
    return list(dict.fromkeys(folders))


def callable_problem(spec: str, folders: Sequence[Path] = ()) -> str | None:
    """Why `package.module:attribute` cannot be loaded, or None when it looks loadable.

    The module is looked for in `folders` (see `agent_folders`), then on the Python path.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        return f"callable {spec!r} must look like `package.module:attribute`"
    with agent_import_path(folders):
        found = _find_module(module_name)
    if found is None:
        return not_found_message(spec, folders)
    top = attribute.split(".")[0]
    if not _may_define(found, top):
        return f"callable {spec!r}: module {module_name!r} defines no {top!r}"
    kind = _value_kind(found, top) if top == attribute else None
    if kind is not None:
        what = kind.replace("NoneType", "None") if "NoneType" in kind else (
            f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}")
        return (f"callable {spec!r} is neither a class nor a function: module {module_name!r} "
                f"defines {top!r} as {what}")
    return None


def not_found_message(spec: str, folders: Sequence[Path]) -> str:
    """One line: the module not found, where it was looked for, and the fix."""
    module_name = spec.partition(":")[0]
    file = module_name.replace(".", "/") + ".py"
    searched = ", ".join(str(f) for f in folders)
    where = f"{searched} and the Python path" if folders else "the Python path"
    fix = (f"put {file} in {folders[0]}" + (f" or {folders[-1]}" if len(folders) > 1 else "")
           if folders else f"put {file} beside the agent file")
    return (f"callable {spec!r}: no module {module_name!r} in {where}; {fix}, "
            "or install its package or add its folder to PYTHONPATH")


def _find_module(name: str) -> ModuleSpec | object | None:
    # The module object itself when it is already imported; else its spec, found part by part by
    # the meta path finders (path entries, editable installs), which locate files and never run a
    # package's __init__.
    if name in sys.modules:
        return sys.modules[name]
    if name in sys.builtin_module_names:
        return object()
    parts = name.split(".")
    search: list[str] | None = None
    spec: ModuleSpec | None = None
    for index in range(len(parts)):
        full = ".".join(parts[: index + 1])
        parent = ".".join(parts[:index])
        if parent in sys.modules:
            search = list(getattr(sys.modules[parent], "__path__", []) or [])
        spec = find_spec_quietly(full, search)
        if spec is None:
            return None
        search = list(spec.submodule_search_locations or [])
    return spec


def find_spec_quietly(name: str, search: list[str] | None) -> ModuleSpec | None:
    """The spec of module `name` (searched in `search` for a submodule) from the finders that answer
    without running code: nothing is imported, so checking or versioning an agent has no side effects."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None or finder.__class__.__name__ in _IMPORTING_FINDERS:
            continue
        try:
            spec = find(name, search)
        except (ImportError, ValueError, TypeError):
            continue
        if spec is not None:
            return spec
    return None


def _may_define(found: ModuleSpec | object, attribute: str) -> bool:
    if not isinstance(found, ModuleSpec):
        # Already imported (or built in): ask the module, without triggering a module __getattr__.
        namespace = getattr(found, "__dict__", {})
        return attribute in namespace or "__getattr__" in namespace or not namespace
    origin = found.origin
    if not origin or not origin.endswith(".py"):
        return True  # an extension or namespace package: cannot tell without importing
    try:
        source = Path(origin).read_bytes()[: MAX_FILE_BYTES * 4]
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return True  # the import will say what is wrong
    names = _top_level_names(tree.body)
    return attribute in names or "*" in names or "__getattr__" in names


# Literal displays: a name bound only to one of these is a value, never a class or function.
_DISPLAYS: dict[type[ast.expr], str] = {
    ast.JoinedStr: "str", ast.List: "list", ast.Tuple: "tuple", ast.Dict: "dict", ast.Set: "set",
    ast.ListComp: "list", ast.SetComp: "set", ast.DictComp: "dict", ast.GeneratorExp: "generator",
}


def _value_kind(found: ModuleSpec | object, attribute: str) -> str | None:
    """The type name of `attribute` when the module certainly binds it to a value that cannot be
    called (`this:s` is a str, `os:sep` too), else None (callable, or cannot tell without running it).

    An imported module is asked directly (its namespace, no attribute hook run); a Python source
    module is read with `ast`: every binding of the name, anywhere in the file, must be a plain
    `name = <literal>` (a string, number, list, dict, ... display), and the module must not rebind
    names in ways `ast` cannot follow (`from x import *`, `globals()`, `vars()`, `setattr`, `exec`)."""
    if not isinstance(found, ModuleSpec):
        namespace = getattr(found, "__dict__", {})
        if attribute not in namespace:
            return None
        value = namespace[attribute]
        return None if callable(value) else type(value).__name__
    origin = found.origin
    if not origin or not origin.endswith(".py"):
        return None
    try:
        tree = ast.parse(Path(origin).read_bytes()[: MAX_FILE_BYTES * 4])
    except (OSError, SyntaxError, ValueError):
        return None
    if not any(isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
               and _literal_kind(node.value) is not None and _binds(node, attribute) for node in tree.body):
        return None  # not certainly bound by a statement the import runs
    kinds: set[str] = set()
    literal_targets: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _binds(node, attribute):
            kind = _literal_kind(node.value)
            if kind is None:
                return None
            kinds.add(kind)
            literal_targets.update(id(t) for t in _targets(node))
    for node in ast.walk(tree):
        if _rebinds(node, attribute) and id(node) not in literal_targets:
            return None
    return " or ".join(sorted(kinds))


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _binds(node: ast.Assign | ast.AnnAssign, attribute: str) -> bool:
    return any(isinstance(t, ast.Name) and t.id == attribute for t in _targets(node))


def _literal_kind(value: ast.expr) -> str | None:
    if isinstance(value, ast.Constant):
        return type(value.value).__name__
    return _DISPLAYS.get(type(value))


def _rebinds(node: ast.AST, attribute: str) -> bool:
    """Whether `node` may bind `attribute` (or any name) other than by a literal assignment."""
    if isinstance(node, ast.Name):
        return node.id == attribute and not isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == attribute
    if isinstance(node, ast.alias):
        return node.name == "*" or (node.asname or node.name).split(".")[0] == attribute
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return attribute in node.names
    if isinstance(node, ast.ExceptHandler):
        return node.name == attribute
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return node.name == attribute
    if isinstance(node, ast.MatchMapping):
        return node.rest == attribute
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in {"globals", "vars", "setattr", "exec", "eval", "locals", "__import__"}
    return False


def _top_level_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            # Definitions under `if TYPE_CHECKING`, `try: import x` and the like.
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    names |= _top_level_names([child])
            for handler in getattr(node, "handlers", []):
                names |= _top_level_names(handler.body)
    return names
