"""llm 0.31.1's tool parameters, computed by replaying its code on the Lisp value model.

Owns: ``llm-provider-utils-openai-arguments`` (semantics.md §7: ``:type`` must be a
symbol; the fixed key order type/description/enum/items/properties; everything else at
the arg level dropped; ``required`` only when non-empty; property keys from
``(intern (format ":%s" NAME))`` so a later arg with the same printed name replaces the
earlier one in its position) and ``llm-provider-utils-convert-to-serializable`` (§7.3,
used on ``:items`` and ``:properties``). The result is the Lisp value llm hands to
``json-serialize`` (defaults: ``:null``/``:false``); errors are
:class:`~plistspec.replay.lisp.LispError`. Iterative.
"""

from __future__ import annotations

from typing import Any

from plistspec.elisp.datum import String, Symbol
from plistspec.replay.lisp import (
    NIL,
    LispError,
    LList,
    Vec,
    is_nil,
    kw,
    plist_get,
    princ,
)

__all__ = ["build_parameters", "convert_to_serializable"]

_FALSE = Symbol(":false")
_NULL = Symbol(":null")


def _seq_partition(v: Any) -> list[list[Any]]:
    """``(seq-partition V 2)`` as the list of pairs (each a Python list of 1 or 2 items)."""
    if is_nil(v):
        return []
    if isinstance(v, LList):
        if v.tail is not None:
            raise LispError("wrong-type-argument", "listp", v.tail, "a dotted list")
        return [list(v[i : i + 2]) for i in range(0, len(v), 2)]
    if isinstance(v, (Vec, String)):
        if len(v.value if isinstance(v, String) else v) == 0:
            return []
        # the pairs are sub-vectors / sub-strings, and (nth 1 PAIR) signals on them
        raise LispError(
            "wrong-type-argument",
            "listp",
            v,
            "must be a plist, not " + ("a vector" if isinstance(v, Vec) else "a string"),
        )
    raise LispError("wrong-type-argument", "sequencep", v, "must be a plist")


def convert_to_serializable(plist: Any) -> Any:
    """``llm-provider-utils-convert-to-serializable``: values rewritten pair by pair
    (``:json-false``/``:false`` → ``:false``, ``t`` kept, nil → ``:null``, other symbols →
    their names, lists converted recursively; a missing value → ``:null``)."""
    result: list[Any] = [None]
    stack: list[tuple[Any, list[Any], int]] = [(plist, result, 0)]
    while stack:
        src, cont, slot = stack.pop()
        pairs = _seq_partition(src)
        if not pairs:
            cont[slot] = NIL
            continue
        out = LList(src=getattr(src, "src", None))
        for pair in pairs:
            k = pair[0]
            v = pair[1] if len(pair) > 1 else NIL
            if isinstance(v, Symbol) and v.name in (":json-false", ":false"):
                out += [k, _FALSE]
            elif isinstance(v, Symbol) and v.name == "t":
                out += [k, v]
            elif is_nil(v):
                out += [k, _NULL]
            elif isinstance(v, Symbol):
                out += [k, String(v.name, v.start, v.end)]
            elif isinstance(v, LList):
                out += [k, None]
                stack.append((v, out, len(out) - 1))
            else:
                out += pair
        cont[slot] = out
    return result[0]


def _required_entry(name: Any) -> Any:
    if isinstance(name, Symbol):
        return String(name.name, name.start, name.end)
    return name


def build_parameters(args: Any) -> Any:
    """The Lisp value of llm's ``parameters`` for tool ``args``."""
    if not (isinstance(args, LList) or is_nil(args)):
        raise LispError(
            "wrong-type-argument", "listp", args, ":args must be a list of plists (dolist)"
        )
    keys: dict[str, int] = {}
    props: list[Any] = []
    required: list[Any] = []
    items_list = list(args) if isinstance(args, LList) else []
    for arg in items_list:
        arg_name = plist_get(arg, kw(":name"))
        type_v = plist_get(arg, kw(":type"))
        if not isinstance(type_v, Symbol):
            raise LispError(
                "wrong-type-argument",
                "symbolp",
                type_v,
                ":type must be a symbol such as string (llm takes its symbol-name)",
            )
        description = plist_get(arg, kw(":description"))
        is_required = is_nil(plist_get(arg, kw(":optional")))
        enum = plist_get(arg, kw(":enum"))
        items = plist_get(arg, kw(":items"))
        obj_properties = convert_to_serializable(plist_get(arg, kw(":properties")))
        schema: list[Any] = [kw(":type"), String(type_v.name, type_v.start, type_v.end)]
        if not is_nil(description):
            schema += [kw(":description"), description]
        if not is_nil(enum):
            schema += [kw(":enum"), enum]
        if not is_nil(items):
            schema += [kw(":items"), convert_to_serializable(items)]
        if not is_nil(obj_properties):
            schema += [kw(":properties"), obj_properties]
        if is_required:
            required.append(_required_entry(arg_name))
        key = ":" + princ(arg_name)
        sym = Symbol(key)
        if key in keys:
            props[keys[key] + 1] = LList(schema)
        else:
            keys[key] = len(props)
            props += [sym, LList(schema)]
    if isinstance(args, LList) and args.tail is not None:
        raise LispError("wrong-type-argument", "listp", args.tail, "a dotted list")
    spec: list[Any] = [
        kw(":type"),
        String("object"),
        kw(":properties"),
        LList(props) if props else NIL,
    ]
    if required:
        spec += [kw(":required"), Vec(required)]
    return LList(spec)
