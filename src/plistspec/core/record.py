"""A plain value class for the command line's start-up path.

Owns: :class:`Record`. ``dataclasses`` costs about 1.5 ms of every ``plistspec check``
start-up (its import and one decorator per class); the few value classes ``check``
makes before it reads anything (its settings, configuration, rule selection) derive from
this instead: ``__slots__`` and an ``__init__`` of their own, equality and ``repr`` by
their slots from here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Record"]


class Record:
    """Equality and ``repr`` by ``__slots__`` (set by each subclass, with its ``__init__``)."""

    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclasses were

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"
