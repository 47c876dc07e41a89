"""The first look at a schema node in a lowering walk: keyword values of the wrong JSON
type, and type names.

Owns: :func:`shape` (a keyword whose value is not what JSON Schema says, e.g. ``"enum":
"a"``, is an error and removed; a description that is not a string is removed; a draft-4
``items`` array becomes ``prefixItems``; a draft-3 boolean ``required`` outside
``properties`` is removed, since it means nothing there: inside ``properties`` the parent
has already moved it, :mod:`plistspec.lowering.objects`) and :func:`type_names`
(Gemini's upper-case names lower-cased; ``"nil"`` and ``"any"``, what an Elisp
``:type nil`` or a hand-written "any" sends, removed: no JSON type has that name; the
names of :data:`TYPE_ALIASES` that real MCP servers publish, ``"double"``, ``"int"``,
``"long"``, ``"bool"``..., which every provider refuses with a 400, read as the JSON type
they name, with a warning).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsontypes import JSON_TYPES, only_strings
from plistspec.core.jsonutil import brief
from plistspec.lowering.context import LOSSLESS, WIDENS, Ctx

__all__ = ["shape", "type_names", "NO_TYPE_NAMES", "TYPE_ALIASES"]

_SHAPES: dict[str, tuple[type, ...]] = {
    "properties": (dict,),
    "$defs": (dict,),
    "definitions": (dict,),
    "required": (list,),
    "enum": (list,),
    "anyOf": (list,),
    "oneOf": (list,),
    "allOf": (list,),
    "prefixItems": (list,),
    "items": (dict, list, bool),
    "additionalProperties": (dict, bool),
    "not": (dict, bool),
    "$ref": (str,),
    "format": (str,),
    "pattern": (str,),
    "type": (str, list),
    "description": (str,),
}


class _Checked:
    """No value has this type: the keyword's value is always looked at."""


#: for each keyword of _SHAPES, the type of a value that needs no further look (a list
#: of ``type`` or ``required`` does: its members must be strings)
_FINE: dict[str, type] = {k: kinds[0] for k, kinds in _SHAPES.items()}
_FINE["required"] = _Checked
#: type names that say "no type": Elisp's ``:type nil`` (gptel sends "nil", llm sends
#: "nil" for a missing :type) and "any"
NO_TYPE_NAMES = frozenset(("nil", "any"))
#: type names that are no JSON type but name one (programming languages' and OpenAPI
#: formats' names, as real MCP servers publish them), lower case: read as that type
TYPE_ALIASES: dict[str, str] = {
    **dict.fromkeys(
        ("double", "float", "float32", "float64", "decimal", "numeric", "real"), "number"
    ),
    **dict.fromkeys(
        (
            "int",
            "int8",
            "int16",
            "int32",
            "int64",
            "integer32",
            "integer64",
            "long",
            "short",
            "uint",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "bigint",
        ),
        "integer",
    ),
    "bool": "boolean",
    "str": "string",
    "dict": "object",
    "map": "object",
    "list": "array",
}


def shape(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    """Keyword values of the wrong JSON type (errors, removed) and old spellings. (A member
    of ``properties`` or ``anyOf`` that is no schema is the error of its own node.)"""
    bad = None
    fine = _FINE.get
    for key, v in node.items():
        tv = type(v)
        if fine(key, tv) is tv:
            continue  # a keyword outside _SHAPES, or its usual type
        kinds = _SHAPES[key]
        if not isinstance(v, kinds):
            bad = [key] if bad is None else [*bad, key]
        elif key == "items" and type(v) is list:
            bad = [key] if bad is None else [*bad, key]
        elif type(v) is list and (key == "type" or key == "required"):
            if not only_strings(map(type, v)):  # a member that is no string
                bad = [key] if bad is None else [*bad, key]
    if bad is None:
        return
    for key in bad:
        v = node[key]
        kinds = _SHAPES[key]
        if key == "required" and (v is True or v is False):
            del node[key]
            ctx.add(
                p,
                "PS433",
                LOSSLESS,
                f"removed the draft-3 required: {brief(v)} (it means something only on a "
                "property, where it is moved into the parent's required)",
                origin,
            )
        elif not isinstance(v, kinds):
            del node[key]
            if key == "description":
                ctx.add(
                    p,
                    "PS429",
                    LOSSLESS,
                    f"removed the description {brief(v, 40)}: not a string",
                    origin,
                )
            else:
                ctx.error(
                    p, "PS428", f"{key} must be {_kind_names(kinds)}, not {brief(v, 60)}", origin
                )
        elif key == "type":
            node["type"] = [x for x in v if type(x) is str]
            ctx.error(p, "PS428", "a type list must hold type names (strings)", origin)
        elif key == "required":
            node["required"] = [x for x in v if type(x) is str]
            ctx.error(p, "PS428", "required must list property names (strings)", origin)
        elif key == "items":  # a draft-4 items array
            if "prefixItems" not in node:
                node["prefixItems"] = node.pop("items")
                ctx.add(
                    p,
                    "PS430",
                    LOSSLESS,
                    "draft-4 items array written as prefixItems (2020-12)",
                    origin,
                )
            else:
                del node["items"]
                ctx.error(p, "PS428", "an items array beside prefixItems is not 2020-12", origin)


def type_names(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    """Upper-case type names (Gemini's ``STRING``) lower-cased; a name of
    :data:`TYPE_ALIASES` (``"double"``, ``"Int"``) written as the JSON type it names (a
    warning: the schema said something no validator reads); ``"nil"``/``"any"`` removed."""
    t = node.get("type")
    names = [t] if type(t) is str else t if type(t) is list else []
    if not all(type(x) is str for x in names):
        return
    low = [x.lower() if x.lower() in JSON_TYPES else x for x in names]
    if low != names:
        node["type"] = low[0] if type(t) is str else low
        ctx.add(p, "PS414", LOSSLESS, f"the type {brief(t)} written in lower case", origin)
    alias = [x for x in low if x not in JSON_TYPES and x.lower() in TYPE_ALIASES]
    if alias:
        mapped = list(dict.fromkeys(TYPE_ALIASES.get(x.lower(), x) for x in low))
        before = node["type"]
        node["type"] = mapped if type(t) is list else mapped[0]
        low = mapped
        ctx.add(
            p,
            "PS434",
            LOSSLESS,
            f"the type {brief(before)} names no JSON type: read as {brief(node['type'])}, "
            "the JSON type it names (every provider refuses the name)",
            origin,
            warn=True,
        )
    gone = [x for x in low if x in NO_TYPE_NAMES]
    if gone:
        rest = [x for x in low if x not in NO_TYPE_NAMES]
        if type(t) is list and rest:
            node["type"] = rest
        else:
            del node["type"]
        ctx.add(
            p,
            "PS434",
            WIDENS,
            f"the type {brief(gone[0])} names no JSON type (an Elisp :type nil sends it): "
            "removed, so the schema takes any value",
            origin,
        )


def _kind_names(kinds: tuple[type, ...]) -> str:
    names = {dict: "an object", list: "an array", bool: "a boolean", str: "a string"}
    return " or ".join(names[k] for k in kinds)
