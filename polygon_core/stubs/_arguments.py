"""The argument names a tool's JSON Schema declares, and the `args.<name>` a template reads.

`polygon validate` checks every `args.<name>` (or `args['name']`) a stub template reads against the
properties of the tool's schema, so a misspelled argument (`args.amout` for `args.amount`) is a
load error at its line instead of a stub that fails, or stores nothing, in the middle of a run.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from jinja2 import TemplateError, nodes

from ._templates import parse_template

__all__ = ["declared_arguments", "did_you_mean", "template_argument_names", "unknown_argument"]


def declared_arguments(schema: Any) -> frozenset[str] | None:
    """The argument names `schema` allows, or None where it does not close the list.

    Closed: an object schema that lists `properties` and allows no others by pattern or by an
    `additionalProperties` schema (absent or `false`: a schema's listed properties are what the
    agent's model is shown). Anything else (no properties, `additionalProperties: true`,
    `patternProperties`) leaves the names unchecked.
    """
    if not isinstance(schema, Mapping):
        return None
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties or "patternProperties" in schema:
        return None
    if schema.get("additionalProperties", False) is not False:
        return None
    return frozenset(str(name) for name in properties)


def did_you_mean(name: str, known: Collection[str]) -> str:
    """`; did you mean 'amount'?` for the closest of `known`, or an empty string."""
    match = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def template_argument_names(text: str) -> list[str]:
    """The names read as `args.<name>` or `args['name']` in template `text`, in order, once each.

    A template that does not compile reads none (its compile error is reported on its own).
    """
    try:
        tree = parse_template(text)
    except TemplateError:
        return []
    return list(dict.fromkeys(_argument_names(tree)))


def _argument_names(tree: nodes.Node) -> Iterator[str]:
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        target = getattr(node, "node", None)
        if not (isinstance(target, nodes.Name) and target.name == "args"):
            continue
        if isinstance(node, nodes.Getattr):
            yield node.attr
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) \
                and isinstance(node.arg.value, str):
            yield node.arg.value


def unknown_argument(text: str, known: Collection[str]) -> str | None:
    """Why template `text` reads an argument that is not in `known`, or None."""
    for name in template_argument_names(text):
        if name not in known:
            listed = ", ".join(sorted(known))
            return (f"template reads args.{name}, which is not an argument of this tool "
                    f"(its parameters: {listed}){did_you_mean(name, known)}")
    return None
