"""A fast deep copy of JSON values (dicts, lists and immutable scalars).

Owns: :func:`copy_json`, used by the emitters so that the provider JSON they return never
shares a mutable object with the IR it came from. ``copy.deepcopy`` does the same with
a memo dictionary and a dispatch per object, several times slower on the large
outputs of ``to-json``. Anything that is not a dict or list is shared as it is.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["copy_json", "copier"]


def _copy(v: Any) -> Any:
    t = type(v)
    if t is dict:
        return {k: (x if type(x) in _ATOMS else _copy(x)) for k, x in v.items()}
    if t is list:
        return [x if type(x) in _ATOMS else _copy(x) for x in v]
    if t in _ATOMS:
        return v
    return copy.deepcopy(v)


_ATOMS = frozenset((str, int, float, bool, type(None)))


def copy_json(v: Any) -> Any:
    """A deep copy of JSON value ``v`` (recursive; ``copy.deepcopy`` for very deep values)."""
    try:
        return _copy(v)
    except RecursionError:
        return copy.deepcopy(v)


def _same(v: Any) -> Any:
    return v


def copier(owned: bool) -> Any:
    """:func:`copy_json`, or the identity when the caller owns the value (it hands it
    over and never looks at it again: no copy is needed)."""
    return _same if owned else copy_json
