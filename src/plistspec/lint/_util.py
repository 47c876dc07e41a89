"""Small helpers the lints share: plist access on datums, suggested fixes, did-you-mean.

Owns: nothing public. Everything here is iterative-free (no walks) and cheap.
"""

from __future__ import annotations

from functools import lru_cache

from plistspec.core.diagnostics import Diagnostic, Fix
from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector, is_nil
from plistspec.elisp.plists import is_plist, key_name, plist_pairs

__all__ = [
    "Sink",
    "plist_pairs",
    "is_plist",
    "key_name",
    "brief",
    "suggest",
    "type_names",
    "flag",
    "JSON_TYPES",
    "SCHEMA_KEYS",
]

JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")

# JSON Schema 2020-12 / draft-07 keywords plus the OpenAPI ones Gemini reads.
SCHEMA_KEYS = frozenset(
    """type description enum items properties required additionalProperties format minimum
    maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength pattern minItems
    maxItems uniqueItems prefixItems contains minContains maxContains minProperties
    maxProperties patternProperties propertyNames dependentRequired dependentSchemas
    dependencies const default examples example title anyOf allOf oneOf not if then else $ref
    $defs definitions $schema $id $anchor $comment $dynamicRef $dynamicAnchor nullable
    propertyOrdering readOnly writeOnly deprecated contentEncoding contentMediaType
    contentSchema unevaluatedProperties unevaluatedItems additionalItems""".split()
)

_ALIASES = {
    "desc": "description",
    "doc": "description",
    "docs": "description",
    "docstring": "description",
    "documentation": "description",
    "help": "description",
    "descr": "description",
    "typ": "type",
    "kind": "type",
    "values": "enum",
    "choices": "enum",
    "options": "enum",
    "item": "items",
    "props": "properties",
    "property": "properties",
    "fields": "properties",
    "min": "minimum",
    "max": "maximum",
    "opt": "optional",
    "req": "required",
}

_TYPE_ALIASES = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "float": "number",
    "double": "number",
    "real": "number",
    "num": "number",
    "bool": "boolean",
    "list": "array",
    "vector": "array",
    "dict": "object",
    "map": "object",
    "plist": "object",
    "alist": "object",
    "hash-table": "object",
    "none": "null",
}


def _norm(s: str) -> str:
    return s.strip(":").replace("-", "").replace("_", "").lower()


@lru_cache(maxsize=4096)
def suggest(name: str, known: tuple[str, ...] | frozenset[str]) -> str | None:
    """The known key ``name`` (without colons) most likely stands for, or None."""
    bare = name.strip(":")
    n = _norm(name)
    table = {_norm(k): k for k in known}
    if n in table and table[n] != bare:
        return table[n]
    alias = _ALIASES.get(n)
    if alias is not None and alias in known:
        return alias
    import difflib  # only for a name that is not known: kept off the start-up path

    close = difflib.get_close_matches(n, list(table), n=1, cutoff=0.75)
    if close and table[close[0]] != bare:
        return table[close[0]]
    return None


@lru_cache(maxsize=1024)
def suggest_type(name: str) -> str | None:
    n = name.strip(":").strip("'").lower()
    if n in JSON_TYPES:
        return n
    if n in _TYPE_ALIASES:
        return _TYPE_ALIASES[n]
    import difflib

    close = difflib.get_close_matches(n, JSON_TYPES, n=1, cutoff=0.7)
    return close[0] if close else None


def type_names(v: Datum | None) -> list[str] | None:
    """The type names a ``:type`` value stands for (None when not readable)."""
    if isinstance(v, Symbol) and not is_nil(v):
        return [v.name]
    if isinstance(v, String):
        return [v.value]
    if isinstance(v, Vector):
        out = []
        for x in v.items:
            if isinstance(x, String):
                out.append(x.value)
            elif isinstance(x, Symbol):
                out.append(x.name)
            else:
                return None
        return out
    return None


_TRUTHY = ("t", ":true", ":json-true")
_FALSY = ("nil", ":json-false", ":false")


def flag(v: Datum) -> bool | None:
    """True/False for a boolean-looking value (t, nil, :json-false...), else None."""
    if isinstance(v, Symbol):
        if v.name in _TRUTHY:
            return True
        if v.name in _FALSY:
            return False
    return None


def brief(d: Datum, text: str, limit: int = 40) -> str:
    if 0 <= d.start < d.end <= len(text):
        s = text[d.start : d.end]
    elif isinstance(d, Symbol):
        s = d.name
    elif isinstance(d, String):
        s = '"' + d.value + '"'
    elif isinstance(d, (Integer, Float)):
        s = str(d.value)
    else:
        s = type(d).__name__.lower()
    s = " ".join(s.split())
    return "`" + (s if len(s) <= limit else s[: limit - 1] + "…") + "`"


def elisp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Sink:
    """Collects the diagnostics of one form; knows the source text to build safe fixes."""

    __slots__ = ("text", "diags", "_index")

    def __init__(self, text: str) -> None:
        self.text = text
        self.diags: list[Diagnostic] = []
        self._index = None

    def line(self, d: Datum) -> int:
        """1-based line of ``d`` (for messages such as "first on line 4")."""
        if self._index is None:
            self._index = _line_index(self.text)
        return self._index.position(max(d.start, 0))[0]

    def add(
        self,
        code: str,
        severity: str,
        message: str,
        d: Datum | None,
        fix: Fix | None = None,
        end: Datum | None = None,
    ) -> Diagnostic:
        start = d.start if d is not None else -1
        stop = (end if end is not None else d).end if d is not None else -1
        diag = Diagnostic(code, severity, message, start, stop, fix=fix)  # type: ignore[arg-type]
        self.diags.append(diag)
        return diag

    def written(self, d: Datum | None, expect: str | None = None) -> bool:
        """True when ``d`` has a real span in the text (and reads ``expect`` there)."""
        if d is None or not (0 <= d.start < d.end <= len(self.text)):
            return False
        return expect is None or self.text[d.start : d.end] == expect

    def replace(self, d: Datum, replacement: str, expect: str | None = None) -> Fix | None:
        """A fix replacing ``d``'s text, only if ``d`` is really written there."""
        if not self.written(d, expect):
            return None
        return Fix(d.start, d.end, replacement)

    def delete_pair(self, k: Datum, v: Datum) -> Fix | None:
        """A fix deleting ``k v`` and the whitespace before ``k``."""
        if not (self.written(k) and self.written(v)) or v.start < k.end:
            return None
        start = k.start
        while start > 0 and self.text[start - 1] in " \t":
            start -= 1
        return Fix(start, v.end, "")

    def as_vector(self, d: List) -> Fix | None:
        """``(a b)`` → ``[a b]`` when the list is written literally as such."""
        t = self.text
        if not self.written(d) or t[d.start] != "(" or t[d.end - 1] != ")" or d.tail is not None:
            return None
        if d.items and t[d.start + 1 : d.items[0].start].strip():
            return None  # built by a call such as (list ...): not a literal list
        return Fix(d.start, d.end, "[" + t[d.start + 1 : d.end - 1] + "]")


def _line_index(text: str):
    """Every form of one file shares the text and its line index (cached)."""
    from plistspec.core.diagnostics import line_index

    return line_index(text)
