"""Annotations with no JSON form: the PS606 error, saying what the annotation is and what to
write instead (a path rather than a file handle, a name rather than a callable, ``list[...]``
rather than an iterator...).

Owns the ``refused`` and ``unknown`` handlers of :data:`plistspec.pyfunc.schema.HANDLERS`.
"""

from __future__ import annotations

import collections.abc as cabc
import typing
from typing import TYPE_CHECKING, Any

from plistspec.pyfunc.errors import type_name
from plistspec.pyfunc.schema_kinds import REFUSED_ORIGINS

if TYPE_CHECKING:
    from plistspec.pyfunc.schema_builder import Builder

_NO_JSON_HINT = "use a dataclass, TypedDict, pydantic model or a JSON type"


def refused_schema(b: Builder, tp: Any) -> dict[str, Any]:
    """A callable, iterator, generator, awaitable or ``type[...]``: always an error."""
    origin = typing.get_origin(tp) or tp
    what = REFUSED_ORIGINS.get(origin)
    if what is None and isinstance(origin, type):
        what = next((w for o, w in REFUSED_ORIGINS.items() if _subclass(origin, o)), None)
    what, hint = _refusal(origin, what)
    raise b.ctx.error(
        "PS606", f"cannot map annotation '{type_name(tp)}' ({what}) to JSON Schema; {hint}"
    )


def unknown_schema(b: Builder, tp: Any) -> dict[str, Any]:
    """Any other class or form: an error (naming a file handle or regex when it is one)."""
    what, hint = _refusal(typing.get_origin(tp) or tp, None)
    kind = f" ({what})" if what else ""
    raise b.ctx.error(
        "PS606", f"cannot map annotation '{type_name(tp)}'{kind} to JSON Schema; {hint}"
    )


def _subclass(a: Any, b: Any) -> bool:
    try:
        return isinstance(b, type) and issubclass(a, b)
    except TypeError:
        return False


def _refusal(origin: Any, what: str | None) -> tuple[str | None, str]:
    """``(what the annotation is, what to write instead)`` for an annotation with no JSON form."""
    import io

    name = getattr(origin, "__name__", "")
    mod = getattr(origin, "__module__", "") or ""
    if name in ("IO", "TextIO", "BinaryIO") or _subclass(origin, io.IOBase):
        return "a file handle", "a model can only send data: take a path (str or Path) and open it"
    if what == "a callable" or origin is cabc.Callable:
        return (
            "a callable",
            "a model can only send data: take a name (str, Literal or Enum) and look the "
            "function up",
        )
    if name == "Pattern" and mod in ("re", "typing"):
        return "a compiled regex", "take the pattern as a str and compile it"
    if what and what.startswith("a class object"):
        return what, "take the class name as a str, Literal or Enum"
    if what and ("iter" in what or "generator" in what):
        return what, "take a list[...] instead"
    return what, _NO_JSON_HINT
