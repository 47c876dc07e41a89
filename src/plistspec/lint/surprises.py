"""Library-surprise lints (semantics.md §10): what gptel or llm silently send differently.

Owns: the findings where the spec is accepted but what goes out is not what it says --
``:optional`` with no value or a value other than ``t`` (PS323), an object arg's
``:additionalProperties`` overwritten with false by gptel (PS324), ``nil`` values sent
as ``{}`` (PS325), arg-level keywords llm drops (PS326), nested symbols llm turns into
strings (PS327) and a property named ``additionalProperties`` that gptel's Gemini filter
deletes (PS328). The walk (:mod:`plistspec.lint.schema`) calls these per key only past a
cheap gate (an llm arg, a nil value, a nested llm symbol), so they cost nothing on the
common path.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, Symbol, is_nil
from plistspec.lint._util import Sink, brief, elisp_string

__all__ = [
    "LLM_ARG_KEYS",
    "arg_flags",
    "llm_drops",
    "llm_symbol",
    "nil_value",
    "optional_without_value",
    "property_deleted",
]

# The keys llm reads on a top-level arg (it drops every other one).
LLM_ARG_KEYS = frozenset(
    (":name", ":optional", ":type", ":description", ":enum", ":items", ":properties")
)
# Keys whose nil other lints explain (or which mean something with nil).
_NO_NIL_CHECK = (":optional", ":name", ":properties", ":required", ":enum", ":type", ":items")


def optional_without_value(sink: Sink, dangling: Symbol) -> None:
    """PS323: an arg plist ending in ``:optional`` (odd length)."""
    sink.add(
        "PS323",
        "warning",
        ":optional without a value reads as nil: this arg stays required (write :optional t)",
        dangling,
    )


def llm_drops(sink: Sink, n: str, k: Symbol, is_obj: bool, props: set[str] | None) -> None:
    """PS326: the JSON Schema keyword ``n`` (not one llm reads) on a top-level llm arg."""
    if n == ":required" and not is_obj and props is None:  # PS303 says it
        return
    sink.add(
        "PS326",
        "warning",
        f"llm drops {n} on a top-level arg (it keeps only :type, :description, :enum, "
        ":items and :properties)",
        k,
    )


def nil_value(sink: Sink, n: str, v: Datum, level: str, dialect: str, is_obj: bool) -> None:
    """PS325: ``n nil`` in a schema, sent as ``{}`` (unless another lint explains it)."""
    if (
        n not in _NO_NIL_CHECK
        and not (level == "arg" and dialect == "llm")
        and not (n == ":additionalProperties" and level == "arg" and is_obj)
    ):
        sink.add(
            "PS325",
            "warning",
            f"{n} nil is sent as {{}} by gptel (null by llm when nested); write :null, "
            ":json-false or [] for JSON null, false or an empty array",
            v,
        )


def llm_symbol(sink: Sink, v: Symbol) -> None:
    """PS327: a symbol value (not ``:type``'s) in a schema llm converts, sent as a string."""
    if v.name == ":null":
        sink.add("PS327", "warning", 'llm sends a nested :null as the string ":null"', v)
    elif not is_nil(v) and v.name not in ("t", ":json-false", ":false"):
        sink.add(
            "PS327",
            "warning",
            f'llm sends the nested symbol {v.name} as the string "{v.name}"',
            v,
            fix=sink.replace(v, elisp_string(v.name), v.name),
        )


def arg_flags(
    sink: Sink, first: dict[str, tuple[Symbol, Datum]], dialect: str, is_obj: bool
) -> None:
    """PS323 for ``:optional`` other than ``t``/``nil``; PS324 for an object arg's
    ``:additionalProperties`` other than ``:json-false`` under gptel."""
    opt = first.get(":optional")
    if opt is not None and not (isinstance(opt[1], Symbol) and opt[1].name in ("t", "nil")):
        sink.add(
            "PS323",
            "warning",
            f":optional {brief(opt[1], sink.text)} makes the arg optional (any non-nil value "
            "does); write :optional t, or omit :optional for a required arg",
            opt[1],
        )
    ap = first.get(":additionalProperties")
    if dialect == "gptel" and is_obj and ap is not None:
        v = ap[1]
        if not (isinstance(v, Symbol) and v.name == ":json-false"):
            sink.add(
                "PS324",
                "warning",
                f":additionalProperties {brief(v, sink.text)} on object arg is sent as false by "
                "gptel for openai/openai-responses/ollama/bedrock (and dropped for gemini)",
                v,
            )


def property_deleted(sink: Sink, pk: Datum) -> None:
    """PS328: a property named ``additionalProperties`` (gptel's Gemini filter deletes it)."""
    sink.add(
        "PS328",
        "warning",
        "a property named additionalProperties is deleted by gptel's Gemini filter",
        pk,
    )
