"""``:type`` lints: the type keyword of an arg or nested schema.

Owns: a missing ``:type`` (PS313), a value that is not a JSON Schema type -- a misspelt
or foreign name (``float``, ``:string``, ``"Object"``) with a did-you-mean, or a bad
element of a type vector (PS314) --, a string type at arg level that llm fails on
(PS315) and a doubly quoted ``'string`` inside quoted data (PS316). :func:`check_type`
also tells the other lints which types the schema has.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil, quoted
from plistspec.lint._util import JSON_TYPES, Sink, brief, elisp_string, suggest_type

__all__ = ["check_type"]

# Keys that make a schema without :type meaningful (no PS313 then).
_COMPOSED = (":anyOf", ":oneOf", ":allOf", ":$ref", ":enum", ":const", ":not")


def check_type(
    sink: Sink,
    plist: List,
    first: dict[str, tuple[Symbol, Datum]],
    level: str,
    dialect: str = "gptel",
) -> list[str] | None:
    """The type names of ``plist``'s ``:type`` (None when absent or unreadable), and its
    findings: missing (PS313), not a JSON Schema type (PS314), a string (PS315), doubly
    quoted (PS316)."""
    tv = first.get(":type")
    if tv is None:
        if not any(c in first for c in _COMPOSED):
            where = "arg" if level == "arg" else "schema"
            sink.add(
                "PS313",
                "error" if level == "arg" else "warning",
                f'{where} without :type: gptel sends no type, llm sends "nil" (add e.g. :type string)',
                plist,
                end=plist.items[0],
            )
        return None
    k, v = tv
    inner = quoted(v)
    if inner is not None and isinstance(inner, Symbol):
        sink.add(
            "PS316",
            "error",
            f"doubly quoted :type {brief(v, sink.text)} inside quoted data reads as (quote "
            f"{inner.name}); write :type {inner.name}",
            v,
            fix=sink.replace(v, inner.name),
        )
        return [inner.name]
    if isinstance(v, Symbol):
        if v.name in JSON_TYPES:
            return [v.name]
        sug = suggest_type(v.name) if not is_nil(v) else None
        _bad_type(sink, v, v.name, sug, symbol=True)
        return [v.name]
    if isinstance(v, String):
        if v.value in JSON_TYPES:
            if level == "arg":
                # Under gptel it works: only a note that the spec is not portable to llm.
                sink.add(
                    "PS315",
                    "info" if dialect == "gptel" else "warning",
                    f":type {elisp_string(v.value)} is a string: fine for gptel, but llm fails on "
                    f"it; write :type {v.value}",
                    v,
                    fix=sink.replace(v, v.value),
                )
            return [v.value]
        _bad_type(sink, v, v.value, suggest_type(v.value), symbol=False)
        return [v.value]
    if isinstance(v, Vector):
        names = []
        for x in v.items:
            if isinstance(x, String) and x.value in JSON_TYPES:
                names.append(x.value)
            elif isinstance(x, Symbol) and x.name in JSON_TYPES:
                sink.add(
                    "PS314",
                    "error",
                    f"symbol {x.name} in a :type vector cannot be sent; write {elisp_string(x.name)}",
                    x,
                    fix=sink.replace(x, elisp_string(x.name), x.name),
                )
                names.append(x.name)
            else:
                n = x.value if isinstance(x, String) else x.name if isinstance(x, Symbol) else None
                sug = suggest_type(n) if n else None
                sink.add(
                    "PS314",
                    "error",
                    f"{brief(x, sink.text)} is not a JSON Schema type"
                    + (f" (did you mean {elisp_string(sug)}?)" if sug else ""),
                    x,
                    fix=sink.replace(x, elisp_string(sug)) if sug else None,
                )
        return names
    sink.add(
        "PS314",
        "error",
        f":type {brief(v, sink.text)} is not a JSON Schema type ({' '.join(JSON_TYPES)})",
        v,
    )
    return None


def _bad_type(sink: Sink, v: Datum, name: str, sug: str | None, *, symbol: bool) -> None:
    hint = f" (did you mean {sug}?)" if sug else f" (one of {' '.join(JSON_TYPES)})"
    extra = ""
    if name.lower() == "object" and name != "object":
        extra = "; gptel adds its object handling only for exactly object"
    sink.add(
        "PS314",
        "error",
        f":type {brief(v, sink.text)} is not a JSON Schema type{hint}; it is sent verbatim{extra}",
        v,
        fix=sink.replace(v, sug) if sug else None,
    )
