"""Recursion in schemas: ``$defs`` + ``$ref`` only for the classes that sit on a cycle.

Owns :class:`Definitions`: every named class (dataclass, TypedDict, NamedTuple, pydantic
model) is built through :meth:`Definitions.named`, which inlines it — unless building it
reaches the class again, in which case every class on that cycle becomes a ``$defs`` entry
(named after the class, made unique with a number) and is referred to by ``$ref``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Definitions"]

Schema = dict[str, Any]


class Definitions:
    """The ``$defs`` of one tool, and the classes being built right now."""

    def __init__(self) -> None:
        self.defs: dict[str, Schema] = {}
        self._stack: list[Any] = []
        self._recursive: set[Any] = set()
        self._names: dict[Any, str] = {}
        self._taken: set[str] = set()  # the values of _names

    def named(self, tp: Any, build: Callable[[Any], Schema]) -> Schema:
        """Inline ``build(tp)`` unless ``tp`` sits on a cycle: then ``$defs`` + ``$ref``."""
        if tp in self._names and tp in self._recursive and tp not in self._stack:
            return {"$ref": "#/$defs/" + self._names[tp]}
        if tp in self._stack:
            i = self._stack.index(tp)
            self._recursive.update(self._stack[i:])
            return {"$ref": "#/$defs/" + self._def_name(tp)}
        self._stack.append(tp)
        try:
            schema = build(tp)
        finally:
            self._stack.pop()
        if tp in self._recursive:
            name = self._def_name(tp)
            self.defs[name] = schema
            return {"$ref": "#/$defs/" + name}
        return schema

    def ordered(self) -> dict[str, Schema]:
        """``defs`` in the order their names were first needed (the outermost first)."""
        order = {name: i for i, name in enumerate(self._names.values())}
        return {k: self.defs[k] for k in sorted(self.defs, key=lambda k: order.get(k, len(order)))}

    def _def_name(self, tp: Any) -> str:
        name = self._names.get(tp)
        if name is None:
            base = getattr(tp, "__name__", "Def")
            name, n = base, 2
            while name in self._taken:
                name, n = f"{base}{n}", n + 1
            self._names[tp] = name
            self._taken.add(name)
        return name
