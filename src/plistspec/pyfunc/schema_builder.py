"""What a schema handler may ask of the builder: the interface of one tool's schema state.

Owns: :class:`Builder`, the protocol :class:`plistspec.pyfunc.schema.SchemaBuilder`
implements. The handler modules (``schema_scalars``, ``schema_choices``, ...) are
called from the builder's dispatch table and call back into it for nested annotations;
typing them against this protocol, not the class, keeps the dispatch table the only
place that knows every handler (no import cycle between the table and its handlers).
"""

from __future__ import annotations

from typing import Any, Protocol

from plistspec.pyfunc.errors import Context
from plistspec.pyfunc.schema_defs import Definitions

__all__ = ["Builder"]


class Builder(Protocol):
    """One tool's schema state, as the handlers see it."""

    ctx: Context
    strict_types: bool
    lenient_defaults: bool
    refs: Definitions
    typevars: list[dict[Any, Any]]

    def schema(self, tp: Any) -> dict[str, Any]:
        """The schema of annotation ``tp``."""
        ...

    def dispatch(self, kind: str, tp: Any) -> dict[str, Any]:
        """The handler for ``kind`` applied to ``tp``."""
        ...

    def json_value(self, v: Any) -> Any:
        """``v`` as a JSON value (raises ``NotJson``)."""
        ...

    def try_json_value(self, v: Any) -> tuple[bool, Any]:
        """``(True, json)`` or ``(False, None)``."""
        ...
