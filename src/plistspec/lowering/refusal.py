"""Strict mode's refusal of a tool, found before its strict walk.

Owns: :func:`first_blocker`. A strict target first lowers a tool in strict mode and,
at the first thing strict mode cannot hold, raises
:class:`~plistspec.lowering.context.Blocked` and lowers it again plain
(:mod:`plistspec.lowering.tools`, PS426 names that first thing). For a tool strict mode
refuses, the strict attempt's work before the blocker is lost; this finds the same
blocker on the input, without the walk's copies, rewrites and reports, so the strict
attempt is skipped.

It follows the walk's order (:func:`plistspec.lowering.schema.lower_schema`: a node
before its subschemas; the subschema keywords of a node last to first, the members of
each first to last; an optional property as strict mode's ``required`` makes it,
nullable), over the nodes whose handling it knows in full: scalar and array nodes,
objects, ``anyOf`` (and ``oneOf`` written as ``anyOf``), ``const``, a ``$ref`` strict mode
keeps, and the nodes strict mode refuses at once: a free-form object (one without
properties, or with ``additionalProperties`` other than false), a node without a type
(``{}``, the ``items`` added to an array without them). At the first node it does not
know, it answers None and the strict walk decides, as before. Its answer is the walk's
own, pointer and words (tests/lowering/test_refusal.py compares both on every tool of
the fixtures and on generated schemas). The look costs about a fifth of a strict walk
that passes, so :mod:`plistspec.lowering.tools` asks it only for a tool with many
arguments or with definitions, where a refusal part-way loses the most; only OpenAI's
strict targets answer (:func:`_constants`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from plistspec.core.jsontypes import JSON_TYPES, only_strings
from plistspec.core.jsonutil import brief, resolve_pointer
from plistspec.lowering.leaves import SCALARS
from plistspec.lowering.nodes import value_type
from plistspec.lowering.rules import Rules, ref_target_ok
from plistspec.lowering.schema import SUBSCHEMA_KEYWORDS, defs_home
from plistspec.lowering.strict import nullable

__all__ = ["first_blocker"]

#: the keywords whose presence decides how the walk handles a node: those holding
#: subschemas and these (the others are annotations and value keywords: kept, moved
#: into the description or removed, never a reason to refuse, never walked into)
_DECIDING = SUBSCHEMA_KEYWORDS | {"type", "enum", "const", "$ref", "nullable", "required"}
_NOT_SCALAR = _DECIDING - {"type"}  # what a scalar node with nothing to look at lacks
#: what strict mode's nullable form of an optional property changes beyond its type
_NULLABLE_CHANGES = frozenset(("enum", "const", "$ref", "allOf", "not"))
_CHECKED_TEXT = ("description", "format", "pattern")  # (a string, or the walk edits them)
_NAMED_REF = frozenset(("$ref", "description", "title"))
_ENUM_TYPES = frozenset((str, int, float, bool, type(None)))
_EMPTY_ITEMS = "a schema without a type ({}) has no strict form"
_OK = True
_UNKNOWN = False
#: nodes deeper than this are left to the walk (a pointer past jsonutil.SHOWN steps is
#: written shortened)
_MAX_DEPTH = 25


def first_blocker(params: dict[str, Any], r: Rules) -> tuple[str, str] | None:
    """``(pointer, why)`` with which strict mode's walk of ``params`` (an object schema)
    for target ``r`` would stop (:class:`~plistspec.lowering.context.Blocked`: its
    ``pointer`` as text, its ``why``), or None: strict mode holds it, or this cannot
    tell (see the module doc)."""
    c = _constants(r)
    if c is None:
        return None
    if "definitions" in params:
        params, _moved = defs_home(params, r, True)
    got = _object(params, 0, True, c, params)
    if type(got) is not tuple:
        return None
    parts, why = got
    return "".join(reversed(parts)), why


@cache
def _constants(r: Rules) -> tuple | None:
    """What the look reads of a target, once: None for the rules it does not mirror
    (any but OpenAI's strict targets: where strict mode refuses recursion, as
    Anthropic's, a ``$ref`` is a question about the whole schema, and the look would
    rarely answer), else ``(strict table, keywords of the root, of other nodes, typed
    nodes, oneOf written as anyOf, const kept, items required)``."""
    s = r.strict
    if s is None or not (
        s["recursion"]  # (else every $ref asks the whole schema's graph: left to the walk)
        and r.ref_mode == "keep"
        and r.type_list == "keep"
        and r.enum_kind == "any"
        and not r.type_required
        and not r.object_keywords_only
        and r.additional == "keep"
        and r.free_form_objects == "keep"
        and r.recursive_required == "keep"
        and r.one_of in ("keep", "anyOf")
    ):
        return None
    root, node, _formats = r.strict_sets
    ks = s["keywords_set"]
    to_any = r.one_of == "anyOf" or "oneOf" not in ks
    const_kept = r.const_mode != "enum" and r.allowed("const", False) and "const" in ks
    return s, root, node, bool(s["typed_nodes"]), to_any, const_kept, r.items_required


def _esc(name: str) -> str:
    if "~" in name or "/" in name:
        return name.replace("~", "~0").replace("/", "~1")
    return name


def _up(got: Any, part: str) -> Any:
    """A blocker found below: its pointer one step longer (written once, on the way up)."""
    if type(got) is tuple:
        got[0].append(part)
    return got


def _blocked(why: str, part: str = "") -> tuple[list[str], str]:
    return [part] if part else [], why


# Each look answers True (the walk passes the node and its subschemas), False (not known
# here: the walk decides) or (the pointer's parts, last first; why) (the walk stops there).


def _node(node: Any, depth: int, c: tuple, params: dict) -> Any:
    if type(node) is not dict:
        return _UNKNOWN
    t = node.get("type")
    if type(t) is str and t in SCALARS and _NOT_SCALAR.isdisjoint(node):
        return _OK  # the commonest node: a scalar with nothing to look at
    if depth > _MAX_DEPTH:
        return _UNKNOWN
    if t is None:
        return _untyped(node, depth, c, params)
    if type(t) is str:
        if t not in JSON_TYPES:
            return _UNKNOWN
        types: Any = (t,)
    elif type(t) is list and t and only_strings(map(type, t)) and JSON_TYPES.issuperset(t):
        if len(set(t)) != len(t):
            return _UNKNOWN
        types = t
    else:
        return _UNKNOWN
    if "object" in types:
        if "array" in types:
            return _UNKNOWN
        return _object(node, depth, False, c, params)
    if "array" in types:
        return _array(node, depth, c, params)
    return _scalar(node, c)


def _scalar(node: dict, c: tuple) -> Any:
    """A node of scalar types: strict mode refuses only an enum it cannot take."""
    e = None
    for k in _DECIDING.intersection(node):
        if k == "enum":
            e = node["enum"]
        elif k == "const":
            if "enum" in node or type(node["const"]) not in _ENUM_TYPES:
                return _UNKNOWN
        elif k != "type":
            return _UNKNOWN
    if e is None:
        return _OK
    if type(e) is not list:
        return _UNKNOWN
    return _enum(e, c[0])


def _enum(e: list, s: dict) -> Any:
    if s.get("enum_primitives") and any(type(x) in (dict, list) for x in e):
        return _blocked("an enum holds an object or array value")
    big = s.get("large_enum")
    if big and len(e) > big["values"] and all(type(x) is str for x in e):
        if sum(len(x) for x in e) > big["chars"]:
            return _blocked(
                f"an enum of {len(e)} strings holds more than {big['chars']} characters "
                f"(the limit past {big['values']} values)"
            )
    return _OK


def _untyped(node: dict, depth: int, c: tuple, params: dict) -> Any:
    deciding = _DECIDING.intersection(node)
    if not deciding:  # {}, {"description": D}: no type, nothing to take one from
        if not c[3]:
            return _UNKNOWN
        for k in _CHECKED_TEXT:
            if k in node and type(node[k]) is not str:
                return _UNKNOWN  # (removed before strict mode looks)
        return _blocked(f"a schema without a type ({brief(node, 60)}) has no strict form")
    if len(deciding) != 1:
        return _UNKNOWN
    (k,) = deciding
    if k == "anyOf" or (k == "oneOf" and c[4]):
        return _members(node[k], depth, c, params)
    if k == "$ref":
        return _ref(node, c[0], params)
    if k == "const":
        v = node["const"]
        if type(v) not in _ENUM_TYPES:
            return _UNKNOWN
        return _OK if c[5] else _enum([v], c[0])
    if k == "enum":
        e = node["enum"]
        if type(e) is not list or not e or not c[3] or value_type(e) not in SCALARS:
            return _UNKNOWN
        return _enum(e, c[0])
    return _UNKNOWN


def _members(ms: Any, depth: int, c: tuple, params: dict) -> Any:
    allowed = c[2]
    if type(ms) is not list or (allowed is not None and "anyOf" not in allowed):
        return _UNKNOWN
    for i, m in enumerate(ms):
        got = _node(m, depth + 1, c, params)
        if got is not _OK:
            return _up(_up(got, f"/{i}"), "/anyOf")
    return _OK


def _ref(node: dict, s: dict, params: dict) -> Any:
    """``{"$ref": R}`` that strict mode keeps (the walk's ``ref_leaf``)."""
    if len(node) != 1:
        return _UNKNOWN
    ref = node["$ref"]
    if type(ref) is not str or not ref.startswith("#"):
        return _UNKNOWN
    if not s["recursion"] or not ref_target_ok(ref, s):
        return _UNKNOWN
    return _OK if resolve_pointer(params, ref)[0] else _UNKNOWN


def _array(node: dict, depth: int, c: tuple, params: dict) -> Any:
    for k in _DECIDING.intersection(node):
        if k != "type" and k != "items":
            return _UNKNOWN
    allowed = c[2]
    if allowed is not None and "items" not in allowed:
        return _UNKNOWN
    if "items" in node:
        items = node["items"]
        if type(items) is not dict:
            return _UNKNOWN
        return _up(_node(items, depth + 1, c, params), "/items")
    if not c[6]:
        return _OK
    if not c[3]:
        return _UNKNOWN
    return _blocked(_EMPTY_ITEMS, "/items")  # (the walk adds items: {}, then refuses it)


def _object(node: dict, depth: int, root: bool, c: tuple, params: dict) -> Any:
    if root and node.get("type") != "object":
        return _UNKNOWN
    defs = False
    for k in _DECIDING.intersection(node):
        if k == "properties" or k == "required" or k == "type":
            continue
        if k == "additionalProperties":
            ap = node[k]
            if ap is not False and ap is not True and type(ap) is not dict:
                return _UNKNOWN
            continue
        if k == "$defs" and root:
            defs = True
            continue
        return _UNKNOWN
    props = node["properties"] if "properties" in node else None
    if props is not None and type(props) is not dict:
        return _UNKNOWN
    req = node["required"] if "required" in node else None
    if req is not None:
        if type(req) is not list or not only_strings(map(type, req)):
            return _UNKNOWN
        if req and (props is None or not all(map(props.__contains__, req))):
            return _UNKNOWN  # (a name properties lacks is added, taking any value)
    ap = node["additionalProperties"] if "additionalProperties" in node else None
    if ap is not None and ap is not False:
        return _blocked(f"a free-form object (additionalProperties: {brief(ap, 40)})")
    if not props:
        if ap is not False:
            return _blocked(
                "an object without properties (any keys: strict mode would allow only {})"
            )
        return _OK
    for sub in props.values():
        if type(sub) is not dict or "required" in sub:
            return _UNKNOWN  # (a draft-3 required is moved first)
    allowed = c[1] if root else c[2]
    if allowed is not None and "properties" not in allowed:
        return _UNKNOWN
    if not defs:
        return _properties(props, req, depth, c, params)
    if "$defs" not in allowed and allowed is not None:
        return _UNKNOWN
    order = [k for k in node if k == "properties" or k == "$defs"]
    for k in reversed(order):  # (the walk takes the last keyword first)
        if k == "properties":
            got = _properties(props, req, depth, c, params)
        else:
            got = _defs(node["$defs"], c, params)
        if got is not _OK:
            return got
    return _OK


def _properties(props: dict, req: Any, depth: int, c: tuple, params: dict) -> Any:
    optional: Any = ()
    if c[0]["all_required"] and not (req is not None and req == list(props)):
        optional = props.keys() - (req or ())
    for name, sub in props.items():
        t = sub.get("type")
        if type(t) is str and t in SCALARS and _NOT_SCALAR.isdisjoint(sub):
            continue  # (as _node's first test: a scalar, nullable or not)
        if name in optional and not _NULLABLE_CHANGES.isdisjoint(sub):
            if "$ref" in sub:  # (made anyOf [it without description and title, null])
                if sub.keys() <= _NAMED_REF and _ref({"$ref": sub["$ref"]}, c[0], params):
                    continue
                return _UNKNOWN
            sub = nullable(sub)  # (what strict mode makes of it: an enum with null...)
        got = _node(sub, depth + 1, c, params)
        if got is not _OK:
            return _up(_up(got, "/" + _esc(name)), "/properties")
    return _OK


def _defs(defs: Any, c: tuple, params: dict) -> Any:
    if type(defs) is not dict:
        return _UNKNOWN
    for name, sub in defs.items():
        got = _node(sub, 2, c, params)
        if got is not _OK:
            return _up(_up(got, "/" + _esc(name)), "/$defs")
    return _OK
