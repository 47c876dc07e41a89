"""The schema walk: every plist of one arg (the arg itself and each schema nested in it).

Owns: :func:`walk_arg`, the iterative walk (a work list, no recursion) over an arg
plist and the schemas nested in its ``:items``, ``:properties``, ``:anyOf``...; and, per
plist, the order its findings come in: duplicate keys, ``:type``, a missing
description, ``:properties``, ``:required``, then key by key (the value's shape, an
unknown key, what the library does to it), then the arg's own flags. The lints
themselves live in :mod:`~plistspec.lint.keys`, :mod:`~plistspec.lint.schema_type`,
:mod:`~plistspec.lint.shapes` and :mod:`~plistspec.lint.surprises`; the walk calls them
only where a key or value needs them. What each schema key needs is judged once per
level (:func:`_plan`), and a plist none of whose keys needs anything (the common case:
``:type``, ``:description``, ``:name``, ``:optional t``) skips the key-by-key pass.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, Symbol, Vector
from plistspec.lint._util import JSON_TYPES, SCHEMA_KEYS, Sink, is_plist, plist_pairs
from plistspec.lint.keys import ARG_EXTRA, duplicate_key, missing_description, odd_key
from plistspec.lint.schema_type import check_type
from plistspec.lint.shapes import (
    check_enum,
    check_items,
    check_properties,
    check_required,
    schema_list,
)
from plistspec.lint.surprises import (
    LLM_ARG_KEYS,
    arg_flags,
    llm_drops,
    llm_symbol,
    nil_value,
    optional_without_value,
)

__all__ = ["walk_arg"]

# What the walk does with a key's value (before judging the key itself).
_ENUM, _ITEMS, _SCHEMAS, _ONE, _ADDITIONAL, _DEFS = 1, 2, 3, 4, 5, 6
_VALUE_KIND = {
    ":enum": _ENUM,
    ":items": _ITEMS,
    ":anyOf": _SCHEMAS,
    ":allOf": _SCHEMAS,
    ":oneOf": _SCHEMAS,
    ":prefixItems": _SCHEMAS,
    ":not": _ONE,
    ":contains": _ONE,
    ":if": _ONE,
    ":then": _ONE,
    ":else": _ONE,
    ":propertyNames": _ONE,
    ":additionalProperties": _ADDITIONAL,
    ":$defs": _DEFS,
    ":definitions": _DEFS,
}


def _key_info(n: str, is_arg: bool, llm_arg: bool) -> tuple[int, bool, bool]:
    """What the walk does for the key ``n``: (value kind, an odd key -- not a JSON Schema
    keyword, nor an arg's own key on an arg --, a keyword llm drops on this arg)."""
    bare = n[1:]
    known = bare in SCHEMA_KEYS or bare.startswith("x-") or (is_arg and bare in ARG_EXTRA)
    drops = llm_arg and n not in LLM_ARG_KEYS and bare in SCHEMA_KEYS
    info = (_VALUE_KIND.get(n, 0), not known, drops)
    return _QUIET if info == _QUIET else info


_QUIET = (0, False, False)  # a key with nothing to check but its value's symbol


def _plan(is_arg: bool, llm_arg: bool) -> dict[str, tuple[int, bool, bool]]:
    """:func:`_key_info` of the keys schemas are made of, judged once here instead of
    once per key written (other keys are judged as they come)."""
    return {":" + b: _key_info(":" + b, is_arg, llm_arg) for b in (*SCHEMA_KEYS, *ARG_EXTRA)}


_NESTED_PLAN = _plan(False, False)
_ARG_PLAN = _plan(True, False)
_LLM_ARG_PLAN = _plan(True, True)
_TYPES = frozenset(JSON_TYPES)


def walk_arg(sink: Sink, arg: List, dialect: str) -> None:
    """The findings of the arg plist ``arg`` and every schema nested in it."""
    # Work items: (plist, level, llm_converted) with level "arg" or "nested".
    work: list[tuple[List, str, bool]] = []
    _schema(sink, arg, "arg", False, dialect, work)
    while work:
        plist, level, conv = work.pop()
        _schema(sink, plist, level, conv, dialect, work)


def _schema(
    sink: Sink,
    plist: List,
    level: str,
    conv: bool,
    dialect: str,
    work: list[tuple[List, str, bool]],
) -> None:
    is_arg = level == "arg"
    llm_arg = is_arg and dialect == "llm"
    llm_nested = conv and dialect == "llm"
    plan = (_LLM_ARG_PLAN if llm_arg else _ARG_PLAN) if is_arg else _NESTED_PLAN
    items = plist.items
    count = len(items)
    first: dict[str, tuple[Symbol, Datum]] = {}
    quiet = True  # no key needs the key-by-key pass below
    for i in range(0, count - 1, 2):
        k = items[i]
        if type(k) is Symbol:
            n = k.name
            v = items[i + 1]
            if n in first:
                duplicate_key(sink, k, v, first[n][0], level)
                continue
            first[n] = (k, v)
            if quiet and (
                plan.get(n) is not _QUIET
                or (type(v) is Symbol and (v.name == "nil" or (llm_nested and n != ":type")))
            ):
                quiet = False
    if is_arg and count % 2:
        dangling = items[-1]
        if type(dangling) is Symbol and dangling.name == ":optional":
            optional_without_value(sink, dangling)
    tv = first.get(":type")
    if tv is not None and type(tv[1]) is Symbol and tv[1].name in _TYPES:  # type: ignore[attr-defined]
        types: list[str] | None = [tv[1].name]  # type: ignore[attr-defined]
    else:
        types = check_type(sink, plist, first, level, dialect)
    if is_arg and ":description" not in first:
        missing_description(sink, plist, first)
    is_obj = types is not None and "object" in types
    if ":properties" in first or (types is not None and "array" in types):
        props = check_properties(sink, first, types, level, conv, dialect, work)
    else:
        props = None  # what check_properties says of a schema with neither
    if ":required" in first:
        check_required(sink, first, is_obj, props, level)
    for n, (k, v) in first.items() if not quiet else ():
        info = plan.get(n)
        if info is None:
            info = _key_info(n, is_arg, llm_arg)
        if info is not _QUIET:
            kind, odd, drops = info
            # The value's shape; nested schemas go on the work list.
            if kind == _ENUM:
                check_enum(sink, v, dialect)
            elif kind == _ITEMS:
                check_items(sink, k, v, work, conv or is_arg)
            elif kind == _SCHEMAS:
                if type(v) is Vector:
                    work.extend((x, "nested", False) for x in v.items if is_plist(x))  # type: ignore[misc]
                elif type(v) is List and n != ":prefixItems":
                    schema_list(sink, n, v)
            elif kind == _ONE:
                if is_plist(v):
                    work.append((v, "nested", False))  # type: ignore[arg-type]
            elif kind == _ADDITIONAL:
                if is_plist(v):
                    work.append((v, "nested", conv))  # type: ignore[arg-type]
            elif kind == _DEFS and type(v) is List:
                for _pk, pv in plist_pairs(v)[0]:
                    if is_plist(pv):
                        work.append((pv, "nested", False))  # type: ignore[arg-type]
            # The key itself.
            if odd:
                odd_key(sink, k, v, first, level, dialect)
            if drops:
                llm_drops(sink, n, k, is_obj, props)
        # What the library does to it.
        if type(v) is Symbol:
            if v.name == "nil":
                nil_value(sink, n, v, level, dialect, is_obj)
            if llm_nested and n != ":type":
                llm_symbol(sink, v)
    if is_arg:
        opt = first.get(":optional")
        if ":additionalProperties" in first or (
            opt is not None and not (type(opt[1]) is Symbol and opt[1].name in ("t", "nil"))  # type: ignore[attr-defined]
        ):
            arg_flags(sink, first, dialect, is_obj)
