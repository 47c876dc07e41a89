"""The direct path for literal specs: datums straight to JSON-ready values.

Owns: :func:`gptel_fields` and :func:`llm_fields`, which give the IR ``name``,
``description`` and ``parameters`` of a tool whose sent slots are plain data, the common
case of real files: a string name and description, ``:args`` a list of arg plists whose
keys are distinct keywords, whose names are distinct non-empty strings, and whose values
are strings, numbers, ``t``/``nil``/the library's null and false symbols, vectors of
those and nested plists of the same kind (``:anyOf``/``:allOf`` as vectors of plists), not nested
deeper than :data:`MAX_DEPTH`. For such a tool gptel's and llm's code (replayed by
:mod:`.gptel` and :mod:`.llm` on the Lisp model, then ``json-serialize``) can neither
fail nor differ between gptel's backend families in a way the IR's JSON cannot carry,
so its result is computed here in one walk. Anything else raises :class:`Bail` and the
caller replays the library exactly. ``tests/lower/test_fast_path.py`` holds the two
paths equal on generated specs.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from plistspec.elisp.datum import Float, Integer, List, String, Symbol, Vector

__all__ = ["Bail", "gptel_fields", "llm_fields", "MAX_DEPTH"]

#: deeper values are left to the replay (which knows the libraries' recursion limits)
MAX_DEPTH = 40

_LO, _HI = -(2**63), 2**63 - 1
_INF = (float("inf"), float("-inf"))


class Bail(Exception):
    """The spec is outside the fast path's grammar: replay the library instead."""


def _text(s: str) -> str:
    """The JSON text of an Emacs string without raw bytes, or :class:`Bail` (a string with
    raw bytes is sent by Emacs 28 when they form UTF-8 and refused by Emacs 30: the replay
    warns with PS205)."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        raise Bail from None


def _key_ok(name: str) -> bool:
    """An object key json-serialize accepts: valid UTF-8 (no raw bytes)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _atom(d: Any, false: str) -> Any:
    """A string, number or one of the symbols json-serialize accepts (``false`` names
    the library's false object: ``:json-false`` for gptel, ``:false`` for llm)."""
    t = type(d)
    if t is String:
        return _text(d.value)
    if t is Symbol:
        n = d.name
        if n == "t":
            return True
        if n == "nil":
            return {}
        if n == ":null":
            return None
        if n == false:
            return False
        raise Bail
    if t is Integer:
        v = d.value
        if _LO <= v <= _HI:
            return v
        raise Bail
    if t is Float:
        x = d.value
        if x != x or x in _INF:
            raise Bail
        return x
    raise Bail


def _plist_keys(items: list[Any]) -> list[str]:
    """The keys (leading colon dropped) of a plist with distinct keyword keys.

    Hot (every plist of every spec): the keys of names met before come from
    :data:`_KEY_OF` at C level (only a symbol has a ``name``)."""
    if len(items) % 2:
        raise Bail
    try:
        keys = list(map(_KEY_OF.__getitem__, map(_NAME, items[::2])))
    except (KeyError, AttributeError):
        keys = _new_keys(items)
    if len(set(keys)) != len(keys):
        raise Bail
    return keys


def _new_keys(items: list[Any]) -> list[str]:
    """:func:`_plist_keys` without the duplicate check, learning each new key."""
    keys = []
    for k in items[::2]:
        if type(k) is not Symbol:
            raise Bail
        name = k.name
        key = _KEY_OF.get(name)
        if key is None:
            if name[:1] != ":" or len(name) < 2 or "\0" in name or not _key_ok(name):
                raise Bail
            if len(_KEY_OF) >= _KEYS_KEPT:
                _KEY_OF.clear()
            key = _KEY_OF[name] = name[1:]
        keys.append(key)
    return keys


# keyword name -> its key, for every name :func:`_new_keys` found good (a few thousand
# at most are kept: a file of endless distinct keywords must not grow it without end)
_KEY_OF: dict[str, str] = {}
_KEYS_KEPT = 4096
_NAME = attrgetter("name")


def _check_alternatives(v: Any) -> None:
    """``:anyOf``/``:allOf``: a vector of plists (gptel's Gemini filter walks into them)."""
    if type(v) is not Vector or any(type(x) is not List for x in v.items):
        raise Bail


def _gptel_value(d: Any, depth: int, key: str | None) -> Any:
    """json-serialize (gptel's arguments) of ``d`` after ``gptel--preprocess-tool-args``
    (a symbol under ``:type`` becomes its name)."""
    if depth > MAX_DEPTH:
        raise Bail
    t = type(d)
    if t is List:
        items = d.items
        if d.tail is not None:
            raise Bail
        keys = _plist_keys(items)
        out = {}
        for j, k in enumerate(keys):
            v = items[2 * j + 1]
            if k in ("anyOf", "allOf"):
                _check_alternatives(v)
            out[k] = _gptel_value(v, depth + 1, k)
        return out
    if t is Vector:
        return [_gptel_value(x, depth + 1, None) for x in d.items]
    if t is Symbol and key == "type":
        return _text(d.name)
    return _atom(d, ":json-false")


def _arg_name(arg: Any, seen: set[str]) -> tuple[list[Any], list[str], str]:
    """(items, keys, name) of one arg plist; its :name a distinct non-empty string."""
    if type(arg) is not List or arg.tail is not None:
        raise Bail
    items = arg.items
    keys = _plist_keys(items)
    try:
        name_d = items[2 * keys.index("name") + 1]
    except ValueError:
        raise Bail from None
    if type(name_d) is not String or not name_d.value or "\0" in name_d.value:
        raise Bail
    name = name_d.value
    if not _key_ok(name):
        raise Bail
    if name in seen:
        raise Bail
    seen.add(name)
    return items, keys, name


def _optional(items: list[Any], keys: list[str]) -> bool:
    if "optional" not in keys:
        return False
    v = items[2 * keys.index("optional") + 1]
    return not (type(v) is Symbol and v.name == "nil")


def _args_list(args: Any) -> list[Any] | None:
    """The arg plists of ``:args`` (None for nil)."""
    if type(args) is Symbol and args.name == "nil":
        return None
    if type(args) is not List or args.tail is not None:
        raise Bail
    return args.items


def _name_desc(name: Any, desc: Any) -> tuple[str, str]:
    if type(name) is not String or type(desc) is not String:
        raise Bail
    return _text(name.value), _text(desc.value)


def gptel_fields(name: Any, desc: Any, args: Any) -> tuple[str, str, dict[str, Any]]:
    """``(name, description, parameters)`` gptel sends, its ``generic`` family (the IR's
    ``parameters``); :class:`Bail` when the spec needs the replay."""
    name_j, desc_j = _name_desc(name, desc)
    arg_items = _args_list(args)
    if arg_items is None:
        return name_j, desc_j, {"type": "object", "properties": {}}
    props: dict[str, Any] = {}
    required: list[str] = []
    seen: set[str] = set()
    for arg in arg_items:
        items, keys, aname = _arg_name(arg, seen)
        schema = {}
        for j, k in enumerate(keys):
            if k == "name" or k == "optional":
                continue
            v = items[2 * j + 1]
            if k in ("anyOf", "allOf"):
                _check_alternatives(v)
                schema[k] = _gptel_value(v, 1, k)
                continue
            tv = type(v)
            if tv is String:  # as _gptel_value gives it, without two calls
                schema[k] = _text(v.value)
            elif tv is Symbol and k == "type":
                schema[k] = _text(v.name)
            else:
                schema[k] = _gptel_value(v, 1, k)
        props[aname] = schema
        if not _optional(items, keys):
            required.append(aname)
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return name_j, desc_j, params


def _llm_value(d: Any, depth: int) -> Any:
    """json-serialize (llm's defaults) of ``d``, unconverted."""
    if depth > MAX_DEPTH:
        raise Bail
    t = type(d)
    if t is List:
        if d.tail is not None:
            raise Bail
        items = d.items
        keys = _plist_keys(items)
        return {k: _llm_value(items[2 * j + 1], depth + 1) for j, k in enumerate(keys)}
    if t is Vector:
        return [_llm_value(x, depth + 1) for x in d.items]
    return _atom(d, ":false")


def _llm_converted(d: Any, depth: int) -> Any:
    """json-serialize of ``llm-provider-utils-convert-to-serializable`` of plist ``d``."""
    if depth > MAX_DEPTH:
        raise Bail
    if type(d) is Symbol and d.name == "nil":
        return None  # converted to nil: the caller leaves the key out / sends {}
    if type(d) is not List or d.tail is not None:
        raise Bail
    items = d.items
    keys = _plist_keys(items)
    out = {}
    for j, k in enumerate(keys):
        v = items[2 * j + 1]
        t = type(v)
        if t is Symbol:
            n = v.name
            if n in (":json-false", ":false"):
                out[k] = False
            elif n == "t":
                out[k] = True
            elif n == "nil":
                out[k] = None
            else:
                out[k] = _text(n)
        elif t is List:
            out[k] = _llm_converted(v, depth + 1)
        else:
            out[k] = _llm_value(v, depth + 1)
    return out


def llm_fields(name: Any, desc: Any, args: Any) -> tuple[str, str, dict[str, Any]]:
    """``(name, description, parameters)`` llm sends; :class:`Bail` when the spec needs
    the replay."""
    name_j, desc_j = _name_desc(name, desc)
    arg_items = _args_list(args) or []
    props: dict[str, Any] = {}
    required: list[str] = []
    seen: set[str] = set()
    for arg in arg_items:
        items, keys, aname = _arg_name(arg, seen)
        slot = {k: items[2 * j + 1] for j, k in enumerate(keys)}
        type_v = slot.get("type")
        if type_v is None:
            type_s = "nil"
        elif type(type_v) is Symbol:
            type_s = _text(type_v.name)
        else:
            raise Bail
        schema: dict[str, Any] = {"type": type_s}
        for k in ("description", "enum"):
            v = slot.get(k)
            if v is not None and not (type(v) is Symbol and v.name == "nil"):
                schema[k] = _llm_value(v, 1)
        items_v = slot.get("items")
        if items_v is not None and not (type(items_v) is Symbol and items_v.name == "nil"):
            schema["items"] = _llm_converted(items_v, 1)
        props_v = slot.get("properties")
        if props_v is not None:
            conv = _llm_converted(props_v, 1)
            if conv is not None:
                schema["properties"] = conv
        props[aname] = schema
        if not _optional(items, keys):
            required.append(aname)
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return name_j, desc_j, params
