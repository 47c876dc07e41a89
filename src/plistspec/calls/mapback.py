"""A call made against a lowered schema, mapped back to the shape of the original one.

Owns: :func:`edits` (what to change in the arguments, each ``("remove", path)`` or
``("set", path, value)`` with ``path`` a list of keys and indexes) and :func:`map_back`
(the arguments with the edits applied, on a copy).

Lowering changes what a model fills in only in a few ways, and each is recognised from
the two schemas alone, walking them beside the value (``$ref`` followed on each side, a
union's member chosen by the value's type), never from lowering's own records:

* an optional property made required and nullable (strict mode): a ``null`` where the
  original neither requires the property nor accepts ``null`` is removed;
* an enum or const written differently (e.g. non-string values as strings): a value of
  the lowered enum that the original does not hold becomes the original value at the
  same position;
* a value the lowered schema asks for as text where the original wants another type:
  the text is read as JSON when that gives a value of the original's type.

Everything else is left as the model sent it. The walk follows the value (finite), not
the schemas (which may be recursive), and is iterative: any depth.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from plistspec.core.jsontypes import is_json_type
from plistspec.core.jsonutil import jeq, resolve_pointer

__all__ = ["edits", "map_back", "apply_edits"]

_REF_STEPS = 64


def map_back(original: Any, lowered: Any, arguments: Any, *, nil: bool = False) -> Any:
    """``arguments`` (valid against ``lowered``) as a call of ``original`` (a copy)."""
    return apply_edits(arguments, edits(original, lowered, arguments, nil=nil))


def apply_edits(arguments: Any, changes: list[tuple]) -> Any:
    """A copy of ``arguments`` with ``changes`` (from :func:`edits`) applied."""
    if not changes:
        return arguments
    out = copy.deepcopy(arguments)
    for change in changes:
        path = change[1]
        if not path:
            if change[0] == "set":
                out = change[2]
            continue
        cur = out
        for k in path[:-1]:
            cur = cur[k]
        if change[0] == "remove":
            del cur[path[-1]]
        else:
            cur[path[-1]] = change[2]
    return out


def edits(original: Any, lowered: Any, arguments: Any, *, nil: bool = False) -> list[tuple]:
    """The changes that make ``arguments`` a call of ``original`` (see the module).
    ``nil``: the arguments come from Emacs, where ``{}`` may have been ``null``."""
    out: list[tuple] = []
    work: list[tuple[Any, Any, Any, list]] = [(original, lowered, arguments, [])]
    while work:
        o, low, v, path = work.pop()
        o = _pick(_resolve(o, original), v, original)
        low = _pick(_resolve(low, lowered), v, lowered)
        if isinstance(v, dict):
            o_req = _required(o)
            low_req = _required(low)
            for k, x in v.items():
                os_ = _prop(o, k, original)
                ls_ = _prop(low, k, lowered)
                if (
                    (x is None or (nil and x == {} and not _empty_object_fits(os_, original)))
                    and k not in o_req
                    and not _accepts_null(os_, original)
                    and (k in low_req or _accepts_null(ls_, lowered))
                ):
                    out.append(("remove", [*path, k]))
                    continue
                work.append((os_, ls_, x, [*path, k]))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                work.append((_item(o, i, original), _item(low, i, lowered), x, [*path, i]))
        else:
            new = _scalar_back(o, low, v)
            if new is not _SAME:
                out.append(("set", path, new))
    out.sort(key=lambda c: [str(p) for p in c[1]])
    return out


_SAME = object()


def _resolve(s: Any, root: Any) -> Any:
    for _ in range(_REF_STEPS):
        if not (isinstance(s, dict) and isinstance(s.get("$ref"), str)):
            return s
        ref = s["$ref"]
        if not ref.startswith("#"):
            return None
        found, target = resolve_pointer(root, ref)
        if not found:
            return None
        s = target
    return None


def _types(s: Any) -> list[str] | None:
    if not isinstance(s, dict):
        return None
    t = s.get("type")
    types = [t] if isinstance(t, str) else list(t) if isinstance(t, list) else None
    if types is not None and s.get("nullable") is True and "null" not in types:
        types.append("null")
    return types


def _members(s: Any) -> list[Any]:
    out: list[Any] = []
    if isinstance(s, dict):
        for k in ("anyOf", "oneOf"):
            if isinstance(s.get(k), list):
                out.extend(s[k])
    return out


def _pick(s: Any, v: Any, root: Any) -> Any:
    """The member of the union ``s`` that the value ``v`` belongs to (``s`` otherwise)."""
    for _ in range(_REF_STEPS):
        members = _members(s)
        if not members:
            return s
        chosen = None
        for m in members:
            m = _resolve(m, root)
            if not isinstance(m, dict):
                continue
            types = _types(m)
            if types is None and not _members(m):
                if v is None and not _accepts_null(m, root):
                    continue
                if _enum_holds(m, v) is False:
                    continue
                chosen = m
                break
            if types is not None and any(is_json_type(v, t) for t in types):
                if _enum_holds(m, v) is not False:
                    chosen = m
                    break
            elif _members(m):
                chosen = m
                break
        if chosen is None:
            return s
        merged = {k: x for k, x in s.items() if k not in ("anyOf", "oneOf")}
        merged.update(chosen)
        s = merged
    return s


def _enum_holds(s: dict, v: Any) -> bool | None:
    enum = s.get("enum")
    if isinstance(enum, list):
        return any(jeq(v, x) for x in enum)
    if "const" in s:
        return jeq(v, s["const"])
    return None


def _required(s: Any) -> set[str]:
    if not isinstance(s, dict):
        return set()
    out = {x for x in s.get("required") or () if isinstance(x, str)}
    for m in s.get("allOf") or ():
        if isinstance(m, dict):
            out |= {x for x in m.get("required") or () if isinstance(x, str)}
    return out


def _prop(s: Any, k: str, root: Any) -> Any:
    """The schema of property ``k`` in the object schema ``s`` (None: unknown, any value)."""
    todo = [s]
    seen = 0
    while todo and seen < 256:
        seen += 1
        node = _resolve(todo.pop(0), root)
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict) and k in props:
            return props[k]
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                todo.extend(node[key])
    if isinstance(s, dict) and isinstance(s.get("additionalProperties"), dict):
        return s["additionalProperties"]
    return None


def _item(s: Any, i: int, root: Any) -> Any:
    s = _resolve(s, root)
    if not isinstance(s, dict):
        return None
    pre = s.get("prefixItems")
    if isinstance(pre, list) and i < len(pre):
        return pre[i]
    items = s.get("items")
    if isinstance(items, list):  # draft 2019 and older: positional items
        return items[i] if i < len(items) else s.get("additionalItems")
    return items if isinstance(items, (dict, bool)) else None


def _accepts_null(s: Any, root: Any) -> bool:
    s = _resolve(s, root)
    if s is None or s is True:
        return True
    if not isinstance(s, dict):
        return False
    if s.get("nullable") is True:
        return True
    held = _enum_holds(s, None)
    if held is not None:
        return held
    types = _types(s)
    if types is not None:
        return "null" in types
    members = _members(s)
    if members:
        return any(_accepts_null(m, root) for m in members)
    return True


def _empty_object_fits(s: Any, root: Any) -> bool:
    """``{}`` is a value of schema ``s`` (as far as its shape says)."""
    s = _resolve(s, root)
    if not isinstance(s, dict):
        return s is None or s is True
    members = _members(s)
    if members and any(_empty_object_fits(m, root) for m in members):
        return True
    types = _types(s)
    if types is not None and "object" not in types:
        return False
    required = s.get("required")
    if isinstance(required, list) and required:
        return False
    mp = s.get("minProperties")
    return not (isinstance(mp, int) and mp > 0) and not members


def _scalar_back(o: Any, low: Any, v: Any) -> Any:
    if not isinstance(o, dict) or not isinstance(low, dict):
        return _SAME
    # an enum (or const) the lowering wrote differently: same position, original value
    o_enum = o.get("enum") if isinstance(o.get("enum"), list) else None
    if o_enum is None and "const" in o:
        o_enum = [o["const"]]
    l_enum = low.get("enum") if isinstance(low.get("enum"), list) else None
    if l_enum is None and "const" in low:
        l_enum = [low["const"]]
    if o_enum is not None and not any(jeq(v, x) for x in o_enum):
        if l_enum is not None and len(l_enum) == len(o_enum):
            for i, x in enumerate(l_enum):
                if jeq(v, x):
                    return o_enum[i]
        if isinstance(v, str):
            for x in o_enum:
                if not isinstance(x, str) and _as_text(x) == v:
                    return x
        return _SAME
    # a value asked for as text where the original wants another type
    o_types = _types(o)
    l_types = _types(low)
    if (
        isinstance(v, str)
        and o_types is not None
        and "string" not in o_types
        and l_types is not None
        and "string" in l_types
    ):
        try:
            parsed = json.loads(v)
        except ValueError:
            return _SAME
        if any(is_json_type(parsed, t) for t in o_types):
            return parsed
    return _SAME


def _as_text(x: Any) -> str:
    if isinstance(x, str):
        return x
    return json.dumps(x, ensure_ascii=False)
