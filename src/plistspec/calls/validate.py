"""Validating a model's tool-call arguments against the schema the model was given.

Owns: :class:`Checker` (one parameters schema, compiled once; :meth:`Checker.problems`
lists every :class:`~plistspec.calls.problems.Problem` of one call) and :func:`validate`.

The rules are JSON Schema's (``jsonschema``, the schema's own ``$schema`` dialect, else
2020-12; else draft 7 when 2020-12 cannot read it: a draft-4 ``items`` array), with three readings that tool calls need:

* OpenAPI's ``nullable: true`` (what a Gemini ``parameters`` schema says instead of a
  type union with null) lets ``null`` through ``type`` and ``enum``;
* a ``null`` for a top-level argument the schema does not require means "not given"
  (what strict-mode models send; gptel hands the function nil for both, llm ``:null``);
  with ``absent_null=True`` a ``null`` for any property its object does not require
  too (gptel reads JSON ``null`` as nil at every depth, so its function cannot tell);
* ``nil=True``: the arguments come from Emacs, where JSON ``null`` and ``{}`` are both
  nil and come back as ``{}``: an empty object counts as ``null`` where only that fits.
* an object closed with ``additionalProperties: false`` that declares its properties
  elsewhere (``anyOf``, ``allOf``, ``$ref``...) or none at all does not refuse other
  properties: gptel closes every object argument that way for the OpenAI family (and
  overwrites ``additionalProperties: {...}``), so such a ``false`` is gptel's, not the
  tool's, and a call the tool accepts must not be refused for it.

``format`` is not checked (an annotation, as for gptel). A schema the validator cannot
use (a ``$ref`` to nothing, a pattern Python cannot compile, an unknown type name) has
no problems to report: :attr:`Checker.broken` says why, and the call goes through, as it
would without plistspec. One call's check is bounded in time
(:mod:`plistspec.calls.bounded`): past the bound it is one problem of keyword
``timeout`` (:data:`TIMEOUT`), never a pass and never a stall.
"""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

from plistspec.calls.bounded import DEFAULT_SECONDS, TimedOut, time_bound
from plistspec.calls.problems import Problem, pointer_of, shown
from plistspec.core.jsontypes import is_json_type

__all__ = ["Checker", "validate", "EMPTY_PARAMETERS", "TIMEOUT", "timed_out"]

TIMEOUT = "timeout"  # the keyword of the problem "could not be checked in time"


def timed_out(problems: Any) -> bool:
    """Whether one of ``problems`` says the check ran out of time (:data:`TIMEOUT`)."""
    return any(p.keyword == TIMEOUT for p in problems)


# the parameters of a tool without arguments (gptel sends nothing, or null for Gemini)
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}

_CLASSES: dict[type, type] = {}
_DRAFT7 = "http://json-schema.org/draft-07/schema#"
_LIMIT = 50  # problems listed at most


def _validator_class(schema: dict[str, Any]) -> type:
    from jsonschema import Draft202012Validator, validators

    base = validators.validator_for(schema, default=Draft202012Validator)
    cls = _CLASSES.get(base)
    if cls is None:
        type_check = base.VALIDATORS["type"]
        enum_check = base.VALIDATORS["enum"]

        def nullable_type(validator, types, instance, schema):
            if instance is None and schema.get("nullable") is True:
                return
            yield from type_check(validator, types, instance, schema)

        def nullable_enum(validator, enums, instance, schema):
            if instance is None and schema.get("nullable") is True:
                return
            yield from enum_check(validator, enums, instance, schema)

        cls = validators.extend(base, {"type": nullable_type, "enum": nullable_enum})
        _CLASSES[base] = cls
    return cls


class TooDeep(Exception):
    """The arguments nest deeper than the validator's recursion can follow."""


class Checker:
    """The arguments of one tool checked against its parameters schema."""

    def __init__(self, schema: Any) -> None:
        if schema is None or schema == {}:
            schema = EMPTY_PARAMETERS
        self.schema = schema
        self.broken: str | None = None
        self._validator: Any = None
        self._tried7 = False
        if not isinstance(schema, (dict, bool)):
            self.broken = f"the parameters schema is not an object: {shown(schema)}"

    def _compiled(self) -> Any:
        if self._validator is None and self.broken is None:
            try:
                schema = self.schema if isinstance(self.schema, dict) else {}
                self._validator = _validator_class(schema)(self.schema)
            except Exception as e:  # noqa: BLE001 - an unusable schema checks nothing
                self.broken = f"{type(e).__name__}: {e}"
        return self._validator

    def _errors(self, arguments: Any) -> list[Any] | None:
        v = self._compiled()
        if v is None:
            return None
        try:
            return list(v.iter_errors(arguments))
        except RecursionError:
            raise TooDeep() from None
        except Exception as e:  # noqa: BLE001 - dangling $ref, bad pattern, unknown type
            if self._draft7():
                return self._errors(arguments)
            self.broken = f"{type(e).__name__}: {e}"
            return None

    def _draft7(self) -> bool:
        """Whether the check moved to draft 7, once: a schema that names no dialect and
        that 2020-12 cannot read (a draft-4 ``items`` array, which real servers still
        publish, is a tuple there and a crash in 2020-12's ``items``)."""
        schema = self.schema
        if not isinstance(schema, dict) or "$schema" in schema:
            return False
        if self._tried7:
            return False
        self._tried7 = True
        try:
            self._validator = _validator_class({**schema, "$schema": _DRAFT7})(schema)
        except Exception:  # noqa: BLE001 - then it is broken
            return False
        return True

    def fits(self, arguments: Any, *, nil: bool = False) -> bool:
        """No problem with ``arguments`` (a broken schema fits anything)."""
        return not self.problems(arguments, nil=nil)

    def problems(
        self,
        arguments: Any,
        *,
        nil: bool = False,
        absent_null: bool = False,
        seconds: float = DEFAULT_SECONDS,
    ) -> list[Problem]:
        """Every problem of ``arguments`` (a JSON object), by JSON pointer. Arguments
        nested deeper than the validator can follow are one problem, never a pass; so is
        a check that runs past ``seconds`` (keyword :data:`TIMEOUT`)."""
        try:
            with time_bound(seconds):
                return self._problems(arguments, nil, absent_null)
        except TooDeep:
            return [Problem("", "arguments nested less deeply", "too deep to check", "depth")]
        except TimedOut:
            return [
                Problem(
                    "",
                    f"arguments its schema can check within {seconds:g} s",
                    "a check that ran longer (a pattern of the schema backtracks on them)",
                    TIMEOUT,
                )
            ]

    def _problems(self, arguments: Any, nil: bool, absent_null: bool = False) -> list[Problem]:
        if not isinstance(arguments, dict):
            if nil and arguments is None:
                arguments = {}
            else:
                return [Problem("", "an object of named arguments", shown(arguments), "type")]
        errors = self._errors(arguments)
        if not errors:
            return []
        errors = self._forgive(arguments, errors, nil)
        if nil and errors:
            errors = self._as_null(arguments, errors)
        if absent_null and errors:
            errors = self._nulls_absent(arguments, errors, nil)
        out: list[Problem] = []
        seen: set[Problem] = set()
        for e in errors:
            for p in _problems(e, nil):
                if p not in seen:
                    seen.add(p)
                    out.append(p)
        out.sort(key=lambda p: p.pointer)
        return out[:_LIMIT]

    def _forgive(self, arguments: dict, errors: list[Any], nil: bool) -> list[Any]:
        """Drop the errors about a null for a top-level argument that is not required,
        and about properties of an object closed by gptel (see the module)."""
        required = self.schema.get("required") if isinstance(self.schema, dict) else None
        required = set(required) if isinstance(required, list) else set()
        out = []
        for e in errors:
            path = e.absolute_path
            if path and path[0] not in required and _nilish(arguments.get(path[0]), nil):
                continue
            if _closed_by_gptel(e):
                continue
            out.append(e)
        return out

    def _nulls_absent(self, arguments: dict, errors: list[Any], nil: bool) -> list[Any]:
        """Drop the errors about a nested ``null`` (or Emacs's nil) whose property its
        object does not require: the call read as if it were not given."""
        paths = []
        for e in errors:
            p = tuple(e.absolute_path)
            if len(p) > 1 and isinstance(p[-1], str) and _nilish(e.instance, nil):
                if p not in paths:
                    paths.append(p)
        if not paths:
            return errors
        trial = _without(arguments, paths)
        again = self._errors(trial) or []
        needed = set()
        for e in again:
            if e.validator == "required" and isinstance(e.instance, dict):
                base = tuple(e.absolute_path)
                needed.update(base + (m,) for m in e.validator_value or () if m not in e.instance)
        absent = [p for p in paths if p not in needed]
        return [e for e in errors if not any(tuple(e.absolute_path)[: len(p)] == p for p in absent)]

    def _as_null(self, arguments: dict, errors: list[Any]) -> list[Any]:
        """Read each ``{}`` an error is about as ``null`` where that fits (Emacs's nil)."""
        paths = []
        for e in errors:
            p = tuple(e.absolute_path)
            if p and e.instance == {} and isinstance(e.instance, dict) and p not in paths:
                paths.append(p)
        if not paths:
            return errors
        trial = _with_nulls(arguments, paths)
        again = self._errors(trial) or []
        fixed = [p for p in paths if not any(tuple(e.absolute_path)[: len(p)] == p for e in again)]
        if not fixed:
            return errors
        trial = _with_nulls(arguments, fixed)
        return self._forgive(trial, self._errors(trial) or [], True)


def validate(
    schema: Any, arguments: Any, *, nil: bool = False, absent_null: bool = False
) -> list[Problem]:
    """Every problem of ``arguments`` against the parameters ``schema`` (see the module)."""
    return Checker(schema).problems(arguments, nil=nil, absent_null=absent_null)


_ELSEWHERE = ("anyOf", "oneOf", "allOf", "$ref", "patternProperties", "if", "dependentSchemas")


def _closed_by_gptel(e: Any) -> bool:
    """``e`` is ``additionalProperties: false`` on an object that declares no properties
    of its own, or declares them elsewhere too."""
    if e.validator != "additionalProperties" or e.validator_value is not False:
        return False
    s = e.schema
    return isinstance(s, dict) and (
        not isinstance(s.get("properties"), dict)
        or not s["properties"]
        or any(k in s for k in _ELSEWHERE)
    )


def _nilish(v: Any, nil: bool) -> bool:
    return v is None or (nil and isinstance(v, dict) and not v)


def _without(arguments: dict, paths: list[tuple]) -> dict:
    return _edited(arguments, paths, lambda parent, key: parent.pop(key, None))


def _with_nulls(arguments: dict, paths: list[tuple]) -> dict:
    return _edited(arguments, paths, lambda parent, key: parent.__setitem__(key, None))


def _edited(arguments: dict, paths: list[tuple], edit: Any) -> dict:
    """A copy of ``arguments`` with ``edit(parent, key)`` done at each path."""
    out = copy.deepcopy(arguments)
    for p in paths:
        cur: Any = out
        for k in p[:-1]:
            cur = cur[k]
        edit(cur, p[-1])
    return out


# --- one jsonschema error → problems ------------------------------------------------


def _got(instance: Any, nil: bool) -> str:
    if nil and isinstance(instance, dict) and not instance:
        return "{} or null"
    return shown(instance)


def _problems(e: Any, nil: bool) -> list[Problem]:
    path = list(e.absolute_path)
    base = pointer_of(path)
    kw = e.validator
    inst = e.instance
    if kw == "required" and isinstance(inst, dict) and isinstance(e.validator_value, list):
        props = e.schema.get("properties") if isinstance(e.schema, dict) else None
        props = props if isinstance(props, dict) else {}
        return [
            Problem(pointer_of([*path, m]), _describe(props.get(m)), "nothing", kw)
            for m in e.validator_value
            if isinstance(m, str) and m not in inst
        ]
    if kw in ("additionalProperties", "unevaluatedProperties") and isinstance(inst, dict):
        extra = _extra_keys(e.schema, inst)
        if extra:
            props = e.schema.get("properties") if isinstance(e.schema, dict) else None
            names = list(props) if isinstance(props, dict) else []
            allowed = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            what = f"allowed: {allowed}" if names else "no argument is allowed here"
            return [Problem(pointer_of([*path, k]), what, _got(inst[k], nil), kw) for k in extra]
    if kw in ("anyOf", "oneOf") and isinstance(e.validator_value, list):
        branch = _one_branch(e)
        if branch is not None:
            out: list[Problem] = []
            for sub in branch:
                out.extend(_problems(sub, nil))
            if out:
                return out
        if kw == "oneOf" and not e.context:
            what = "exactly one of: " + " | ".join(_describe(s) for s in e.validator_value)
        else:
            what = " or ".join(_describe(s) for s in e.validator_value)
        return [Problem(base, what, _got(inst, nil), kw)]
    return [Problem(base, _expected(kw, e.validator_value, e), _got(inst, nil), kw or "")]


def _extra_keys(schema: Any, inst: dict) -> list[str]:
    import re

    props = schema.get("properties") if isinstance(schema, dict) else None
    props = props if isinstance(props, dict) else {}
    pats = schema.get("patternProperties") if isinstance(schema, dict) else None
    pats = pats if isinstance(pats, dict) else {}
    out = []
    for k in inst:
        if k in props:
            continue
        try:
            if any(re.search(p, k) for p in pats):
                continue
        except re.error:
            continue
        out.append(k)
    return out


def _one_branch(e: Any) -> list[Any] | None:
    """The errors of the only union member whose type fits the value, if one does."""
    groups: dict[int, list[Any]] = {}
    for sub in e.context or ():
        rel = deque(sub.relative_schema_path)
        if rel and isinstance(rel[0], int):
            groups.setdefault(rel[0], []).append(sub)
    fitting = [
        i
        for i, s in enumerate(e.validator_value)
        if isinstance(s, dict) and _type_fits(s, e.instance) and i in groups
    ]
    if len(fitting) != 1:
        return None
    return groups[fitting[0]]


def _type_fits(schema: dict, value: Any) -> bool:
    t = schema.get("type")
    if t is None:
        return "enum" not in schema and "const" not in schema and "$ref" not in schema
    types = [t] if isinstance(t, str) else t if isinstance(t, list) else []
    if value is None and schema.get("nullable") is True:
        return True
    return any(is_json_type(value, x) for x in types)


def _type_text(t: Any, schema: Any) -> str:
    types = (
        [t]
        if isinstance(t, str)
        else [x for x in t if isinstance(x, str)]
        if isinstance(t, list)
        else []
    )
    if isinstance(schema, dict) and schema.get("nullable") is True and "null" not in types:
        types.append("null")
    return " or ".join(types) if types else shown(t)


def _describe(s: Any) -> str:
    """A schema in a few words (for a union's members and a missing argument)."""
    if s is True or s is None or s == {}:
        return "any value"
    if s is False:
        return "nothing"
    if not isinstance(s, dict):
        return shown(s, 40)
    if "const" in s:
        return shown(s["const"], 40)
    if isinstance(s.get("enum"), list):
        return _one_of(s["enum"])
    if isinstance(s.get("$ref"), str):
        return s["$ref"].rsplit("/", 1)[-1]
    if "type" in s:
        text = _type_text(s["type"], s)
        props = s.get("properties")
        if isinstance(props, dict) and props:
            names = list(props)
            text += " with " + ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        items = s.get("items")
        if isinstance(items, dict) and "type" in items:
            text += " of " + _type_text(items["type"], items)
        return text
    for k in ("anyOf", "oneOf"):
        if isinstance(s.get(k), list):
            return " or ".join(_describe(m) for m in s[k][:6])
    return shown(s, 40)


def _one_of(values: list) -> str:
    shown_values = ", ".join(shown(v, 40) for v in values[:12])
    return "one of " + shown_values + (", ..." if len(values) > 12 else "")


_WORDS = {
    "minimum": ">= {}",
    "maximum": "<= {}",
    "exclusiveMinimum": "> {}",
    "exclusiveMaximum": "< {}",
    "multipleOf": "a multiple of {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "minProperties": "at least {} properties",
    "maxProperties": "at most {} properties",
    "minContains": "at least {} matching items",
    "maxContains": "at most {} matching items",
}


def _expected(kw: Any, value: Any, e: Any) -> str:
    if kw == "type":
        return _type_text(value, e.schema)
    if kw == "enum" and isinstance(value, list):
        return _one_of(value)
    if kw == "const":
        return shown(value, 40)
    if kw in _WORDS:
        return _WORDS[kw].format(shown(value, 40))
    if kw == "pattern":
        return f"a string matching {shown(value, 60)}"
    if kw == "uniqueItems":
        return "items that are all different"
    if kw == "not":
        return "anything but " + _describe(value)
    if kw is None:  # a false schema
        return "nothing (no value is allowed here)"
    text = str(e.message)
    return text if len(text) <= 100 else text[:99] + "…"
