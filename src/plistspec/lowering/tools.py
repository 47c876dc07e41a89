"""Lowering whole IR tools for one target: name, description, parameters, strict mode.

Owns: :func:`lower_tools_detailed` (the rewrites as :class:`Rewrite` records with the
tool index and JSON pointer, for callers that place them in source text) and the policy
around the schema walk: the root must be an object; a strict target first tries its
strict mode and keeps it only when the result passes every strict check, otherwise it
falls back to the plain lowering with a warning (``strict`` false); whatever still
violates the target's rules after lowering is an error, and the caller emits nothing.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from plistspec.core.jsonutil import brief, types_of
from plistspec.lowering.context import LOSSLESS, NARROWS, WIDENS, Blocked
from plistspec.lowering.names import names_and_kept
from plistspec.lowering.refusal import first_blocker
from plistspec.lowering.rules import Rules, rules
from plistspec.lowering.schema import lower_schema
from plistspec.lowering.validate import tool_violations

__all__ = ["Rewrite", "lower_tools_detailed", "lowered_parts"]


_new = tuple.__new__  # a NamedTuple made without its Python-level __new__ (hot path)


class Rewrite(NamedTuple):
    tool: int  # index in the input list
    name: Any  # the tool's original name
    pointer: str  # "/parameters/..." for the schema, "/name", "/description"
    code: str
    severity: str
    message: str
    #: what the rewrite does to the values the tool's schema accepts (``lossless``,
    #: ``widens``, ``narrows``, ``widens+narrows``); None for an error
    effect: str | None = None


def lower_tools_detailed(
    tools: list[dict[str, Any]], target: str
) -> tuple[list[dict[str, Any]], list[Rewrite]]:
    out, parts = lowered_parts(tools, target)
    records: list[Rewrite] = []
    for i, name, recs, changes, at in parts:
        if not changes:
            records.extend(recs)
            continue
        records.extend(recs[:at])
        for c in changes:
            records.append(
                _new(Rewrite, (i, name, "/parameters" + str(c[0]), c[1], c[2], c[3], c[4]))
            )
        records.extend(recs[at:])
    return out, records


def lowered_parts(
    tools: list[dict[str, Any]], target: str
) -> tuple[list[dict[str, Any]], list[tuple[int, Any, list[Rewrite], list, int]]]:
    """The lowered tools and, for each, what :func:`lower_tools_detailed` makes its
    records of: ``(index, name, its own records, the changes of its parameters' walk
    (:class:`~plistspec.lowering.context.Change`, pointers in the parameters), the place
    among its records where those go)``. ``plistspec.lowering.lower_tools`` makes its
    diagnostics from them without the records between."""
    r = rules(target)
    names = [t.get("name") for t in tools]
    new_names, kept = names_and_kept(names, r)
    out: list[dict[str, Any]] = []
    parts = []
    for i, tool in enumerate(tools):
        # a name the rule took as it is (matched once, in names_and_kept)
        checked = r.name_re is not None and (kept is None or kept[i])
        new, recs, changes, at = _lower_tool(i, tool, new_names[i], r, checked)
        out.append(new)
        parts.append((i, names[i], recs, changes, at))
    return out, parts


def _lower_tool(i: int, tool: dict[str, Any], new_name: Any, r: Rules, name_checked: bool):
    name = tool.get("name")
    recs: list[Rewrite] = []

    def add(pointer: str, code: str, severity: str, message: str, effect: Any = None) -> None:
        recs.append(_new(Rewrite, (i, name, pointer, code, severity, message, effect)))

    given = tool.get("parameters")
    params = given
    if params is None:
        params = {"type": "object", "properties": {}}
    elif type(params) is not dict or params.get("type") != "object":
        params = _root_object(params, add)
    strict = False
    lowered: Any = params
    notes: list[str] = []
    changes: list = []
    at = 0
    no_args = False
    if isinstance(params, dict):
        if r.strict_flag is not None:
            why = _free_root(params)
            if why is not None:  # refused at once (no walk, no exception to unwind)
                why = "/: " + why
            elif _long_walk(params) and (found := first_blocker(params, r)) is not None:
                why = f"{found[0] or '/'}: {found[1]}"  # what the strict walk would say
            else:
                try:
                    lowered, changes, notes, viol = lower_schema(params, r, strict=True)
                except Blocked as b:
                    why = f"{str(b.pointer) or '/'}: {b.why}"
                else:
                    for c in changes:
                        if c[2] == "error":
                            why = f"{str(c[0]) or '/'}: {c[3]}"
                            break
                    else:
                        if viol:
                            why = f"{viol[0][0] or '/'}: {viol[0][1]}"
                        else:
                            strict = True
            if why is not None:
                add("/parameters", "PS426", "warning", f"not sent as strict: {why}", LOSSLESS)
        errors = False  # (strict mode kept: its changes hold no error, looked at above)
        if not strict:
            lowered, changes, notes, viol = lower_schema(params, r, strict=False)
            for c in changes:
                if c[2] == "error":
                    errors = True
                    break
        at = len(recs)  # (the changes go here, among the tool's records)
        if viol and not errors:
            for p, msg in viol:
                add("/parameters" + p, "PS428", "error", f"{r.name} would reject this: {msg}")
        if given is None:
            no_args = True  # none given, none sent
            if (tool.get("metadata") or {}).get("sent_null_parameters"):
                add(
                    "/parameters",
                    "PS435",
                    "info",
                    "gptel sends parameters: null for a tool without arguments: left out "
                    f"({r.name}'s form of it)",
                    LOSSLESS,
                )
        elif r.no_args == "omit" and not lowered.get("properties"):
            no_args = not lowered.get("required")
            if no_args and not (tool.get("metadata") or {}).get("sent_null_parameters"):
                closed = params.get("additionalProperties") is False
                add(
                    "/parameters",
                    "PS435",
                    "info" if closed else "warning",
                    f"the tool takes no arguments (no properties): {r.name} gets no "
                    "parameters for it"
                    + ("" if closed else " (it took any: the model can now send none)"),
                    LOSSLESS if closed else NARROWS,
                )
    desc = tool.get("description")
    if (
        notes
        or (desc is not None and type(desc) is not str)
        or (not desc and r.description_rule == "nonempty")
    ):
        desc = _description(desc, notes, new_name, r, add)
    if new_name != name:
        add(
            "/name",
            "PS423",
            "warning",
            f"renamed to {new_name!r} for {r.name} "
            f"({r['name']['pattern']}); map calls of {new_name!r} back to {name!r}",
            LOSSLESS,
        )
    for p, msg in tool_violations(new_name, desc, r, name_checked):
        add(p, "PS428", "error", msg)
    meta = tool.get("metadata")
    meta = dict(meta) if meta else {}
    if r.output_schema_rule == "object":
        _object_output(meta, r.name, add)
    low = meta.get("lowered")
    low = dict(low) if low else {}
    low["target"] = r.name
    low["strict"] = strict
    if no_args:
        low["no_parameters"] = True
    if new_name != name and "original_name" not in low:
        low["original_name"] = name
    meta["lowered"] = low
    new = {
        "type": "function",
        "name": new_name,
        "description": desc,
        "parameters": lowered,
        "metadata": meta,
    }
    return new, recs, changes, at


def _object_output(meta: dict[str, Any], target: str, add) -> None:
    """A target that needs an object ``outputSchema``: any other one wrapped (in ``meta``)."""
    out_schema = meta.get("output_schema")
    if isinstance(out_schema, dict) and out_schema.get("type") != "object":
        meta["output_schema"] = {
            "type": "object",
            "properties": {"result": out_schema},
            "required": ["result"],
        }
        add(
            "/outputSchema",
            "PS431",
            "warning",
            f"{target} needs an object outputSchema: "
            'wrapped as {result: ...} (the server must return {"result": value})',
            WIDENS + "+" + NARROWS,
        )


#: properties (of the root, of definitions, and the definitions) from which a tool's strict
#: walk is long enough that a refusal found before it
#: (:func:`plistspec.lowering.refusal.first_blocker`) pays for the look (measured on the
#: benchmark's sets: 6 to 8 gain alike on MCP tools and cost nothing on the others)
_LONG = 6


def _long_walk(params: dict[str, Any]) -> bool:
    """Whether strict mode's walk of ``params`` is a long one: many arguments, counting
    each definition beside them and its properties (a smaller tool's walk costs about what
    the look would: a recursive ``Node`` of one or two fields is not long)."""
    props = params.get("properties")
    n = len(props) if type(props) is dict else 0
    if n >= _LONG:
        return True
    for key in ("$defs", "definitions"):
        defs = params.get(key)
        if defs is None:
            continue
        if type(defs) is not dict:
            return True  # (the walk decides what it is: asked as before)
        for d in defs.values():
            n += 1
            if type(d) is dict and type(dp := d.get("properties")) is dict:
                n += len(dp)
        if n >= _LONG:
            return True
    return False


_SETTLED = frozenset(("$ref", "allOf", "anyOf", "oneOf", "required", "patternProperties"))


def _free_root(params: dict[str, Any]) -> str | None:
    """Why strict mode refuses the root at once (what its walk would say first): an
    object without properties that is not closed (a tool taking any arguments, or the
    usual way of writing one taking none). None when the walk must decide."""
    if params.get("properties") or "additionalProperties" in params:
        return None
    if params.get("type") != "object":
        return None
    if not params.keys().isdisjoint(_SETTLED):
        return None
    return "an object without properties (any keys: strict mode would allow only {})"


def _root_object(params: Any, add) -> Any:
    if type(params) is dict and params.get("type") == "object":
        return params
    if not isinstance(params, dict):
        add(
            "/parameters",
            "PS428",
            "error",
            f"parameters must be an object schema, not {brief(params, 60)}",
        )
        return params
    t = types_of(params)
    if t is not None:  # an upper-case name is lower-cased (and reported) by the walk
        t = [x.lower() for x in t]
    if "type" not in params:
        params = {"type": "object", **params}
        add(
            "/parameters",
            "PS421",
            "info",
            'the root schema typed "object" (tool arguments are one)',
            LOSSLESS,
        )
    elif t is not None and t != ["object"] and "object" in t:
        params = {
            **params,
            "type": next(x for x in types_of(params) or () if x.lower() == "object"),
        }
        add(
            "/parameters/type",
            "PS421",
            "info",
            'the root type narrowed to "object" (tool arguments are one)',
            LOSSLESS,
        )
    elif t != ["object"]:
        add(
            "/parameters/type",
            "PS428",
            "error",
            f"the arguments must be an object, not {brief(params.get('type'), 60)}",
        )
    return params


def _description(desc: Any, notes: list[str], name: Any, r: Rules, add) -> Any:
    if desc is not None and not isinstance(desc, str):
        add(
            "/description",
            "PS424",
            "info",
            f"the description {brief(desc, 40)} is not a string: left out",
            LOSSLESS,
        )
        desc = None
    if notes:
        text = "; ".join(notes)
        desc = f"{desc} ({text})" if desc else f"({text})"
        add(
            "/description",
            "PS419",
            "info",
            "what the root schema cannot hold went into the description",
            LOSSLESS,
        )
    if r["description"] == "nonempty" and not desc:
        desc = name if isinstance(name, str) and name else "Tool"
        add(
            "/description",
            "PS424",
            "info",
            f"{r.name} needs a description: used {desc!r}",
            LOSSLESS,
        )
    return desc
