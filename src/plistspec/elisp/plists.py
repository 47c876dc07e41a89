"""Plists as the reader gives them: which datum is a plist, its pairs, and its keys' JSON names.

Owns: :func:`is_plist` (a proper list whose first element is a keyword), :func:`plist_pairs`
(``(k1 v1 k2 v2 ...)`` as pairs, plus a dangling last key) and :func:`key_name` (the JSON key
gptel's serializer makes of a plist key). The lints, the source map of the replay and the
placing of lowering rewrites all read tool plists through these.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, String, Symbol

__all__ = ["is_plist", "plist_pairs", "key_name"]


def key_name(k: Datum) -> str | None:
    """The JSON key gptel's serializer makes of a plist key (one leading colon removed)."""
    if isinstance(k, Symbol):
        n = k.name
        return n[1:] if n.startswith(":") and len(n) > 1 else n
    if isinstance(k, String):
        return k.value
    return None


def is_plist(d: Datum | None) -> bool:
    if type(d) is not List or d.tail is not None or not d.items:  # type: ignore[union-attr]
        return False
    k = d.items[0]  # type: ignore[union-attr]
    return type(k) is Symbol and k.name.startswith(":")


def plist_pairs(d: Datum) -> tuple[list[tuple[Datum, Datum]], Datum | None]:
    """``(k1 v1 k2 v2 ...)`` as pairs and the dangling last key (if odd)."""
    if not isinstance(d, List):
        return [], None
    items = d.items
    n = len(items)
    pairs = [(items[i], items[i + 1]) for i in range(0, n - 1, 2)]
    return pairs, (items[-1] if n % 2 else None)
