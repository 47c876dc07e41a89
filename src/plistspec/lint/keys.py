"""Key lints of schema plists: which keywords an arg or nested schema has, lacks or repeats.

Owns: duplicate keys (PS312), unknown or misspelt keywords with a did-you-mean
(PS301), ``:required t``-style flags that gptel and llm do not read (PS303),
``:optional`` or ``:name`` where only a top-level arg has them (PS322, PS301) and an arg
without ``:description`` (PS333). The keys a schema may have are
:data:`plistspec.lint._util.SCHEMA_KEYS` (plus :data:`ARG_EXTRA` on an arg); the walk
(:mod:`plistspec.lint.schema`) calls in here only for a key outside them, a repeated
key or a missing description, so the common case costs nothing.
"""

from __future__ import annotations

from plistspec.core.diagnostics import Fix
from plistspec.elisp.datum import Datum, List, String, Symbol
from plistspec.lint._util import SCHEMA_KEYS, Sink, brief, flag, suggest

__all__ = [
    "ARG_EXTRA",
    "duplicate_key",
    "missing_description",
    "odd_key",
    "required_flag",
]

# Keys only a top-level arg has (besides the JSON Schema keywords).
ARG_EXTRA = ("name", "optional")
_SCHEMA_WORDS = frozenset(SCHEMA_KEYS) | {"optional"}
_REQUIRE_WORDS = ("require", "required?", "mandatory", "req")


def duplicate_key(sink: Sink, k: Symbol, v: Datum, earlier: Symbol, level: str) -> None:
    """PS312 for the repeated key ``k`` (``earlier`` is its first occurrence)."""
    n = k.name
    worse = level == "arg" and n in (":name", ":optional")
    extra = f'; gptel sends this one as "{n[1:]}"' if worse else ""
    sink.add(
        "PS312",
        "error" if worse else "warning",
        f"duplicate key {n}: gptel and llm use the first one (line {sink.line(earlier)}){extra}",
        k,
        fix=sink.delete_pair(k, v),
    )


def missing_description(sink: Sink, plist: List, first: dict[str, tuple[Symbol, Datum]]) -> None:
    """PS333 for an arg without ``:description`` (unless a misspelt key stands for it)."""
    if _description_like(first):
        return
    sink.add(
        "PS333",
        "warning",
        "arg without :description: the model sees only its name (llm's documentation "
        'requires one; add e.g. :description "What to pass")',
        plist,
        end=plist.items[0],
    )


def _description_like(first: dict[str, tuple[Symbol, Datum]]) -> bool:
    """True when an unknown key already stands for the missing :description (PS301 says it)."""
    for n, (_k, v) in first.items():
        bare = n[1:]
        if bare in _SCHEMA_WORDS or bare in ARG_EXTRA:
            continue
        if isinstance(v, String) or suggest(n, _SCHEMA_WORDS) == "description":
            return True
    return False


def odd_key(
    sink: Sink,
    k: Symbol,
    v: Datum,
    first: dict[str, tuple[Symbol, Datum]],
    level: str,
    dialect: str,
) -> None:
    """The finding for a key that is not a JSON Schema keyword (nor an arg's own key)."""
    bare = k.name[1:]
    if bare == "optional":
        sink.add(
            "PS322",
            "warning",
            ':optional means nothing in a nested schema (it is sent as an "optional" '
            "keyword); leave the property out of the enclosing object's :required instead",
            k,
            fix=sink.delete_pair(k, v),
        )
    elif bare == "name":
        sink.add(
            "PS301",
            "warning",
            'unknown keyword :name in a nested schema (sent as "name"): a nested '
            "property's name is its key in :properties",
            k,
        )
    elif bare in _REQUIRE_WORDS and flag(v) is not None:
        required_flag(sink, k, v, level)
    else:
        _unknown_key(sink, k, v, first, level, dialect)


def required_flag(sink: Sink, k: Symbol, v: Datum, level: str) -> None:
    """PS303: ``:required t`` (or ``:mandatory nil``...) on an arg or a nested schema."""
    is_true = flag(v)
    if level == "arg":
        if is_true:
            fix = sink.delete_pair(k, v)
            what = "delete it: args are required unless they have :optional t"
        else:
            fix = None
            if sink.written(k) and sink.written(v) and v.start >= k.end:
                fix = Fix(k.start, v.end, ":optional t")
            what = "write :optional t for an optional arg"
    else:
        fix = None
        what = "list the property in the enclosing object's :required vector instead"
    sink.add(
        "PS303",
        "warning",
        f"{k.name} {brief(v, sink.text)} is not read by gptel or llm (gptel sends it as a "
        f"schema keyword); {what}",
        k,
        end=v if sink.written(v) else None,
        fix=fix,
    )


def _unknown_key(
    sink: Sink,
    k: Symbol,
    v: Datum,
    first: dict[str, tuple[Symbol, Datum]],
    level: str,
    dialect: str,
) -> None:
    known = _SCHEMA_WORDS if level == "arg" else SCHEMA_KEYS
    sug = suggest(k.name, known | {"name"} if level == "arg" else known)
    if sug is None and isinstance(v, String) and ":description" not in first:
        sug = "description"
    if sug is not None and ":" + sug in first:
        sug = None
    if dialect == "llm" and level == "arg":
        effect = "llm drops it"
    else:
        effect = f'gptel sends it as "{k.name[1:]}"' if dialect == "gptel" else "llm sends it as is"
    hint = f" (did you mean :{sug}?)" if sug else ""
    sink.add(
        "PS301",
        "warning",
        f"unknown keyword {k.name}{hint}; {effect}",
        k,
        fix=sink.replace(k, ":" + sug, k.name) if sug else None,
    )
