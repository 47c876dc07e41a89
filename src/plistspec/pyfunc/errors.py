"""The errors and warnings of the Python side, as values.

Owns: :class:`PyFuncError` (the one exception the schema walker and the target resolver
raise; the public functions turn it into a :class:`~plistspec.core.diagnostics.Diagnostic`),
the :class:`Context` that names *where* a problem is (function, parameter, nested
field), and :func:`diag` which builds a diagnostic pointing at the function's source
line. Codes are documented in :mod:`plistspec.core.codes` (``PS6xx``).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic

__all__ = ["PyFuncError", "Context", "diag", "type_name"]


class PyFuncError(Exception):
    """A user mistake the Python side cannot get past: ``code`` and a full message."""

    def __init__(self, code: str, message: str, *, path: str | None = None, line: int = 0):
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.line = line

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(
            self.code,
            "error",
            self.message,
            path=self.path,
            line=self.line,
            column=1 if self.line else 0,
        )


class Context:
    """Where the walker is: ``fn(): parameter 'x': field 'y' of Options``.

    ``where`` is a list of steps, extended on the way down and shortened on the way up
    (no copies, so deep nesting stays linear).
    """

    __slots__ = ("function", "where", "path", "line", "warnings")

    def __init__(self, function: str, path: str | None = None, line: int = 0) -> None:
        self.function = function
        self.where: list[str] = []
        self.path = path
        self.line = line
        self.warnings: list[Diagnostic] = []

    def prefix(self) -> str:
        parts = [f"{self.function}()"] + self.where
        return ": ".join(parts)

    def error(self, code: str, message: str) -> PyFuncError:
        return PyFuncError(code, f"{self.prefix()}: {message}", path=self.path, line=self.line)

    def note(self, code: str, message: str) -> None:
        self.warnings.append(
            diag(code, "info", f"{self.prefix()}: {message}", self.path, self.line)
        )

    def warn(self, code: str, message: str) -> None:
        self.warnings.append(
            diag(code, "warning", f"{self.prefix()}: {message}", self.path, self.line)
        )


def diag(
    code: str, severity: Any, message: str, path: str | None = None, line: int = 0
) -> Diagnostic:
    return Diagnostic(code, severity, message, path=path, line=line, column=1 if line else 0)


def type_name(tp: Any) -> str:
    """A short, readable name for an annotation (``Foo``, ``list[int]``, ``Callable[..., int]``)."""
    if isinstance(tp, type):
        mod = getattr(tp, "__module__", "")
        name = getattr(tp, "__qualname__", tp.__name__)
        return name if mod in ("builtins", "__main__") or not mod else name
    text = repr(tp)
    return text.replace("typing.", "").replace("typing_extensions.", "")
