"""A fast deep copy of JSON values (dicts, lists and immutable scalars).

Owns: :func:`copy_json`, used by the emitters so that the provider JSON they return never
shares a mutable object with the IR it came from. ``copy.deepcopy`` does the same with
a memo dictionary and a dispatch per object, several times slower on the large
outputs of ``to-json``, and recurses (so it fails on values nested a few thousand deep,
which are copied through an explicit stack instead). Scalars are shared as they are.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["copy_json", "copier"]


def _copy(v: Any) -> Any:
    t = type(v)
    if t is dict:
        # a shallow copy (in C), then only the values that are not scalars replaced:
        # most values of a schema are strings
        out = v.copy()
        for k, x in out.items():
            if type(x) not in _ATOMS:
                out[k] = _copy(x)
        return out
    if t is list:
        if _all_atoms(map(type, v)):  # (required, enum, a type list: copied in C)
            return v.copy()
        return [x if type(x) in _ATOMS else _copy(x) for x in v]
    if t in _ATOMS:
        return v
    return copy.deepcopy(v)


_ATOMS = frozenset((str, int, float, bool, type(None)))
_all_atoms = _ATOMS.issuperset


def copy_json(v: Any) -> Any:
    """A deep copy of JSON value ``v``, at any depth: recursive (fast), or, for a value
    nested deeper than Python recurses, through an explicit stack."""
    try:
        return _copy(v)
    except RecursionError:
        return _copy_deep(v)


def _copy_deep(value: Any) -> Any:
    """:func:`_copy` without recursion."""
    t = type(value)
    if t is not dict and t is not list:
        return value if t in _ATOMS else copy.deepcopy(value)
    root: Any = {} if t is dict else []
    work = [(value, root)]
    while work:
        src, dst = work.pop()
        pairs = src.items() if type(src) is dict else enumerate(src)
        for k, x in pairs:
            tx = type(x)
            if tx is dict or tx is list:
                new: Any = {} if tx is dict else []
                work.append((x, new))
            else:
                new = x if tx in _ATOMS else copy.deepcopy(x)
            if type(dst) is dict:
                dst[k] = new
            else:
                dst.append(new)
    return root


def _same(v: Any) -> Any:
    return v


def copier(owned: bool) -> Any:
    """:func:`copy_json`, or the identity when the caller owns the value (it hands it
    over and never looks at it again: no copy is needed)."""
    return _same if owned else copy_json
