"""What a function or class says about itself: its resolved annotations and its own docstring.

Owns :func:`resolve_hints` (``typing.get_type_hints`` whose failure is a PS605 error naming
the parameter or field whose annotation did not resolve) and :func:`own_doc` (a class's
explicitly written docstring, never the one ``dataclass``/``NamedTuple`` invent).
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Any

from plistspec.pyfunc.errors import Context, type_name
from plistspec.pyfunc.schema_kinds import is_dataclass_type, is_namedtuple

__all__ = ["own_doc", "resolve_hints"]


def own_doc(cls: Any) -> str | None:
    """The class's own, explicitly written docstring (never an inherited or invented one)."""
    doc = getattr(cls, "__dict__", {}).get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    name = getattr(cls, "__name__", "")
    if is_dataclass_type(cls) and doc.startswith(name + "("):
        try:
            import inspect

            if doc == name + str(inspect.signature(cls)).replace(" -> None", ""):
                return None
        except (TypeError, ValueError):
            return None
    if is_namedtuple(cls) and doc.startswith(name + "(") and doc.endswith(")"):
        inner = doc[len(name) + 1 : -1].rstrip(",").strip()
        if inner == ", ".join(cls._fields):
            return None
    import inspect

    return inspect.cleandoc(doc)


def resolve_hints(obj: Any, ctx: Context, what: str = "parameter") -> dict[str, Any]:
    """``typing.get_type_hints(obj, include_extras=True)``; an unresolvable name is an error
    naming the member whose annotation failed."""
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as e:  # NameError, TypeError, SyntaxError in a string annotation...
        raw = getattr(obj, "__annotations__", {}) or {}
        culprit = None
        resolved: dict[str, Any] = {}
        for k, v in raw.items():
            try:
                resolved.update(typing.get_type_hints(_Probe(obj, {k: v}), include_extras=True))
            except Exception:
                if k == "return":  # never reaches parameters: a TYPE_CHECKING-only name is fine
                    continue
                culprit = (k, v)
                break
        if culprit is None and "return" in raw and not isinstance(obj, type):
            return resolved
        msg = _unresolved_message(e)
        if culprit is None:
            raise ctx.error("PS605", f"cannot resolve annotations: {msg}") from None
        k, v = culprit
        ann = v if isinstance(v, str) else type_name(v)
        who = "return annotation" if k == "return" else f"{what} '{k}'"
        raise ctx.error(
            "PS605",
            f"{who}: cannot resolve annotation '{ann}': {msg}; import or define it in the module",
        ) from None


def _unresolved_message(e: Exception) -> str:
    if isinstance(e, NameError):
        name = getattr(e, "name", None)
        return f"name '{name}' is not defined" if name else str(e)
    return f"{type(e).__name__}: {e}"


class _Probe:
    """Something with one annotation and the globals of ``obj``, for :func:`resolve_hints`."""

    def __init__(self, obj: Any, ann: dict[str, Any]) -> None:
        self.__annotations__ = ann
        self.__globals__ = getattr(obj, "__globals__", None) or vars(
            sys.modules.get(getattr(obj, "__module__", ""), types.ModuleType("x"))
        )

    def __call__(self) -> None:  # get_type_hints treats callables like functions
        pass
