"""Tool names mapped to a target's name rule, reversibly.

Owns: :func:`map_names`. A name the rule accepts is kept. Otherwise every character the
rule refuses becomes ``_``, a first character the rule refuses gets a ``_`` (or ``t``)
in front, and a name that is too long, or that would collide with another tool's, is cut
and given 8 hex digits of its SHA-1; the mapping is returned so the caller can report it
and keep it in the tool's metadata (``metadata.lowered.original_name``): a call that
comes back under the new name is mapped back through it.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Any

from plistspec.lowering.rules import Rules

__all__ = ["map_names", "names_and_kept"]


@cache
def _char_rules(r: Rules) -> tuple[Any, Any, dict[str, bool]]:
    """The rule's ``allowed`` and ``first`` patterns, compiled once per target, and the
    answers of ``allowed`` for the characters asked so far."""
    rule = r["name"]
    return re.compile(rule["allowed"]), re.compile(rule["first"]), {}


#: names fixed so far, per target: (rules, name) -> the fixed name (a pure function of both)
_FIXED: dict[tuple[Rules, str], str] = {}


def _fix(name: str, r: Rules) -> str:
    key = (r, name)
    out = _FIXED.get(key)
    if out is None:
        if len(_FIXED) > 4096:
            _FIXED.clear()
        out = _FIXED[key] = _fixed(name, r)
    return out


def _fixed(name: str, r: Rules) -> str:
    allowed, first, known = _char_rules(r)
    chars = []
    for c in name:
        ok = known.get(c)
        if ok is None:
            ok = allowed.fullmatch(c) is not None
            if len(known) < 4096:
                known[c] = ok
        chars.append(c if ok else "_")
    out = "".join(chars) or "_"
    if not first.fullmatch(out[0]):
        out = ("_" if first.fullmatch("_") else "t") + out
    return out


def _hashed(name: str, base: str, limit: int) -> str:
    h = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return base[: max(1, limit - 9)] + "_" + h


def map_names(names: list[Any], r: Rules) -> list[Any]:
    """The name each tool gets on target ``r`` (non-strings are returned as they are)."""
    return names_and_kept(names, r)[0]


def names_and_kept(names: list[Any], r: Rules) -> tuple[list[Any], list[bool] | None]:
    """:func:`map_names`, and for each name whether it was kept because the rule accepts
    it (None: every name, or the target has no rule), so that nobody asks again."""
    if r.name_re is None:
        return list(names), None
    match = r.name_re.fullmatch
    kept = [not isinstance(n, str) or not n or match(n) is not None for n in names]
    if all(kept):
        return list(names), None  # every name is one the target takes (the common case)
    limit = r["name"]["max"]
    taken = {n for n, ok in zip(names, kept, strict=True) if ok and isinstance(n, str)}
    out: list[Any] = []
    for n, ok in zip(names, kept, strict=True):
        if ok:
            out.append(n)
            continue
        new = _fix(n, r)
        if len(new) > limit or new in taken:
            new = _hashed(n, new, limit)
        taken.add(new)
        out.append(new)
    return out, kept
