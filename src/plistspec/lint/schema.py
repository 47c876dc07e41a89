"""The schema walk: every plist of one arg (the arg itself and each schema nested in it).

Owns: :func:`walk_arg`, the iterative walk (a work list, no recursion) over an arg
plist and the schemas nested in its ``:items``, ``:properties``, ``:anyOf``...; and, per
plist, the order its findings come in: duplicate keys, ``:type``, a missing
description, ``:properties``, ``:required``, then key by key (the value's shape, an
unknown key, what the library does to it), then the arg's own flags. The lints
themselves live in :mod:`~plistspec.lint.keys`, :mod:`~plistspec.lint.schema_type`,
:mod:`~plistspec.lint.shapes` and :mod:`~plistspec.lint.surprises`; the walk calls them
only where a key or value needs them.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, Symbol, Vector, is_nil
from plistspec.lint._util import SCHEMA_KEYS, Sink, is_plist, plist_pairs
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

_ONE_SCHEMA = (":not", ":contains", ":if", ":then", ":else", ":propertyNames")


def walk_arg(sink: Sink, arg: List, dialect: str) -> None:
    """The findings of the arg plist ``arg`` and every schema nested in it."""
    # Work items: (plist, level, llm_converted) with level "arg" or "nested".
    work: list[tuple[List, str, bool]] = [(arg, "arg", False)]
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
    pairs, dangling = plist_pairs(plist)
    first: dict[str, tuple[Symbol, Datum]] = {}
    for k, v in pairs:
        if not isinstance(k, Symbol):
            continue
        n = k.name
        if n in first:
            duplicate_key(sink, k, v, first[n][0], level)
            continue
        first[n] = (k, v)
    is_arg = level == "arg"
    if is_arg and isinstance(dangling, Symbol) and dangling.name == ":optional":
        optional_without_value(sink, dangling)
    types = check_type(sink, plist, first, level, dialect)
    if is_arg and ":description" not in first:
        missing_description(sink, plist, first)
    is_obj = types is not None and "object" in types
    props = check_properties(sink, first, types, level, conv, dialect, work)
    check_required(sink, first, is_obj, props, level)
    llm_arg = is_arg and dialect == "llm"
    llm_nested = conv and dialect == "llm"
    for n, (k, v) in first.items():
        bare = n[1:]
        # The value's shape; nested schemas go on the work list.
        if n == ":enum":
            check_enum(sink, v)
        elif n == ":items":
            check_items(sink, k, v, work, conv or is_arg)
        elif n in (":anyOf", ":allOf", ":oneOf", ":prefixItems"):
            if isinstance(v, Vector):
                work.extend((x, "nested", False) for x in v.items if is_plist(x))  # type: ignore[misc]
            elif isinstance(v, List) and n != ":prefixItems":
                schema_list(sink, n, v)
        elif n in _ONE_SCHEMA:
            if is_plist(v):
                work.append((v, "nested", False))  # type: ignore[arg-type]
        elif n == ":additionalProperties" and is_plist(v):
            work.append((v, "nested", conv))  # type: ignore[arg-type]
        elif n in (":$defs", ":definitions") and isinstance(v, List):
            for _pk, pv in plist_pairs(v)[0]:
                if is_plist(pv):
                    work.append((pv, "nested", False))  # type: ignore[arg-type]
        # The key itself.
        if bare in SCHEMA_KEYS or bare.startswith("x-"):
            pass
        elif is_arg and bare in ARG_EXTRA:
            pass
        else:
            odd_key(sink, k, v, first, level, dialect)
        # What the library does to it.
        if llm_arg and n not in LLM_ARG_KEYS and bare in SCHEMA_KEYS:
            llm_drops(sink, n, k, is_obj, props)
        if is_nil(v):
            nil_value(sink, n, v, level, dialect, is_obj)
        if llm_nested and isinstance(v, Symbol) and n != ":type":
            llm_symbol(sink, v)
    if is_arg:
        arg_flags(sink, first, dialect, is_obj)
