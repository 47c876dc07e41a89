"""Generated Elisp that ``check`` agrees with: suppression comments where the writer had to
write what a lint flags.

Owns: :func:`silence` and :data:`FAITHFUL`. ``from-json`` writes each tool as its JSON
says, and some of what JSON says faithfully is what a person writing a spec by hand
usually gets wrong: a property with no ``type`` (any JSON value) is written without
``:type``, which ``check`` reports as PS313, since a missing ``:type`` is the commonest
slip in a hand-written gptel spec. So the writer and the linter agree, each line where
such a finding starts gets a ``; plistspec: ignore[PS313]`` comment
(:mod:`plistspec.checking.suppress`): the file passes ``check``, the reader sees that the
missing type is deliberate, and a ``:type`` added later makes the comment a PS920 (a
suppression that silences nothing), so it cannot outlive its reason.

Only gptel files get them: llm sends a missing ``:type`` as ``"type": "nil"``, which no
provider accepts, so there PS313 is a real problem (``from-json`` warns with PS520).
"""

from __future__ import annotations

from typing import Any

__all__ = ["silence", "FAITHFUL", "untyped"]

# What a writer must write as the input says although a lint flags it (gptel files).
FAITHFUL = ("PS313",)

# Keys that give a schema its meaning without "type" (lint/schema_type.py's _COMPOSED).
_COMPOSED = ("anyOf", "oneOf", "allOf", "$ref", "enum", "const", "not")


def untyped(tools: list[Any]) -> bool:
    """True when a tool's parameters hold a schema without ``type`` (or any key that
    stands for one): only then does :func:`silence` have anything to do. Iterative."""
    stack: list[Any] = []
    for t in tools:
        params = t.get("parameters") if isinstance(t, dict) else None
        props = params.get("properties") if isinstance(params, dict) else None
        if isinstance(props, dict):
            stack.extend(props.values())
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if "type" not in node and not any(k in node for k in _COMPOSED):
            return True
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                stack.extend(v.values())
            elif k in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "not"):
                stack.append(v)
    return False


def silence(text: str, codes: tuple[str, ...] = FAITHFUL) -> str:
    """``text`` (Elisp a writer made: no line of it ends inside a string) with
    ``  ; plistspec: ignore[CODE,...]`` at the end of each line where a finding of
    ``codes`` starts, as ``check`` reports them with its default rules."""
    from plistspec.checking.run import Settings, findings

    found: dict[int, set[str]] = {}
    for d in findings(text, None, Settings()):
        if d.code in codes and d.line:
            found.setdefault(d.line, set()).add(d.code)
    if not found:
        return text
    lines = text.split("\n")
    for n, which in found.items():
        i = n - 1
        if 0 <= i < len(lines):
            lines[i] += f"  ; plistspec: ignore[{', '.join(sorted(which))}]"
    return "\n".join(lines)
