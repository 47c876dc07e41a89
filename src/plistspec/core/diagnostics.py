"""Diagnostics as values: a span, a severity, a stable code and a message.

Owns: the :class:`Diagnostic` type (and :meth:`Diagnostic.rewrite_at`'s kind, whose
message is written when first read), :class:`ReadError` (the one exception the reader
raises), turning character offsets into 1-based line/column pairs.
:meth:`Diagnostic.render` gives the GNU ``file:line:col: severity: message [CODE]``
line, written by :mod:`plistspec.checking.report` (which owns every output format, and keeps it
one line). Stages create diagnostics with
offsets only; :func:`locate` fills in lines and columns for the text they came from.
Nothing here prints: only :mod:`plistspec.cli` does. The codes themselves are
documented in :mod:`plistspec.core.codes`.

Columns count characters (code points), 1-based, as Emacs's flymake does.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from typing import Any, Literal

__all__ = [
    "Diagnostic",
    "Fix",
    "ReadError",
    "LineIndex",
    "line_index",
    "locate",
    "Severity",
    "has_errors",
]

Severity = Literal["error", "warning", "info"]
_new = object.__new__


class Fix:
    """A suggested edit: replace ``[start, end)`` of the text with ``replacement``.

    ``applicability`` is ``"safe"`` (``check --fix`` applies it) or ``"unsafe"`` (it changes
    what gptel/llm send: ``--unsafe-fixes``), as the command line's JSON says; None where
    nobody classified it (``plistspec.check`` classifies every fix it returns)."""

    __slots__ = ("start", "end", "replacement", "applicability")

    def __init__(
        self, start: int, end: int, replacement: str, applicability: str | None = None
    ) -> None:
        self.start = start
        self.end = end
        self.replacement = replacement
        self.applicability = applicability

    def __repr__(self) -> str:
        more = f", {self.applicability!r}" if self.applicability is not None else ""
        return f"Fix({self.start}, {self.end}, {self.replacement!r}{more})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fix) and (self.start, self.end, self.replacement) == (
            other.start,
            other.end,
            other.replacement,
        )


class Diagnostic:
    """One finding. ``start``/``end`` are character offsets (``-1`` when unknown).

    ``line``/``column``/``end_line``/``end_column`` are 1-based and filled by
    :func:`locate`; ``path`` names the input as the user gave it; ``effect`` (rewrites of
    ``--lower`` only) says whether the rewritten schema accepts the same values.
    """

    __slots__ = (
        "code",
        "severity",
        "message",
        "start",
        "end",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "fix",
        "effect",
    )

    def __init__(
        self,
        code: str,
        severity: Severity,
        message: str,
        start: int = -1,
        end: int = -1,
        *,
        path: str | None = None,
        fix: Fix | None = None,
        line: int = 0,
        column: int = 0,
        end_line: int = 0,
        end_column: int = 0,
        effect: str | None = None,
    ) -> None:
        self.code = code
        self.severity: Severity = severity
        self.message = message
        self.start = start
        self.end = end
        self.path = path
        self.fix = fix
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        # what a rewrite does to the values a schema accepts (``lossless``, ``widens``,
        # ``narrows``, ``widens+narrows``): set by ``--lower`` for each rewrite it reports
        self.effect = effect

    @classmethod
    def rewrite(cls, code: str, severity: Severity, message: str, effect: str | None) -> Diagnostic:
        """``Diagnostic(code, severity, message, effect=effect)``, made without the
        keyword call (a tenth of lowering's time went into making the diagnostics of
        ``--lower``, one per rewrite). tests/lint/test_report.py holds the two equal."""
        d = _new(cls)
        d.code = code
        d.severity = severity
        d.message = message
        d.start = d.end = -1
        d.path = d.fix = None
        d.line = d.column = d.end_line = d.end_column = 0
        d.effect = effect
        return d

    @classmethod
    def rewrite_at(
        cls, code: str, severity: Severity, head: str, pointer: Any, text: str, effect: str | None
    ) -> Diagnostic:
        """:meth:`rewrite` of ``f"{head}{pointer}: {text}"`` (`` [effect]`` after it when
        ``effect``), the message written when first read (``pointer`` may be a
        :class:`plistspec.core.jsonutil.Ptr`, written out then): ``--lower`` reports every
        rewrite, and a library caller reads few of them. Reads as :meth:`rewrite`'s
        diagnostic in every attribute (tests/lowering/test_lazy_messages.py)."""
        d = _new(_Written)
        d.code = code
        d.severity = severity
        d._parts = (head, pointer, text, effect)
        d.start = d.end = -1
        d.path = d.fix = None
        d.line = d.column = d.end_line = d.end_column = 0
        d.effect = effect
        return d

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self) -> str:
        """``path:line:col: severity: message [CODE]`` (what compilation-mode reads), always
        one line: control characters are escaped (:func:`plistspec.core.lines.one_line`)."""
        from plistspec.core.lines import gnu_line

        return gnu_line(self)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }
        if self.effect is not None:
            out["effect"] = self.effect
        if self.fix is not None:
            out["fix"] = {
                "start": self.fix.start,
                "end": self.fix.end,
                "replacement": self.fix.replacement,
            }
        return out

    def __repr__(self) -> str:
        return f"Diagnostic({self.code!r}, {self.severity!r}, {self.message!r}, {self.start}, {self.end})"


_MESSAGE = Diagnostic.message  # the slot (a member descriptor) that _Written's property fills


class _Written(Diagnostic):
    """A diagnostic of :meth:`Diagnostic.rewrite_at`: its message made from its parts when
    first read (then kept in the slot, as any diagnostic's), or set as any other."""

    __slots__ = ("_parts",)

    @property  # type: ignore[override]
    def message(self) -> str:
        try:
            return _MESSAGE.__get__(self, _Written)
        except AttributeError:
            head, pointer, text, effect = self._parts
            if effect:
                m = f"{head}{pointer}: {text} [{effect}]"
            else:
                m = f"{head}{pointer}: {text}"
            _MESSAGE.__set__(self, m)
            return m

    @message.setter
    def message(self, value: str) -> None:
        _MESSAGE.__set__(self, value)


class ReadError(Exception):
    """The reader's one error: a message and the offset where reading stopped.

    ``line``/``column`` are computed on demand from the text (1-based, characters).
    """

    code = "PS001"

    def __init__(self, message: str, text: str, pos: int, code: str = "PS001") -> None:
        self.message = message
        self.pos = pos
        self.code = code
        self._text = text
        super().__init__(message)

    @property
    def line(self) -> int:
        return self._text.count("\n", 0, self.pos) + 1

    @property
    def column(self) -> int:
        return self.pos - (self._text.rfind("\n", 0, self.pos) + 1) + 1

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"

    def diagnostic(self, path: str | None = None) -> Diagnostic:
        end = min(self.pos + 1, len(self._text))
        d = Diagnostic(self.code, "error", self.message, self.pos, max(end, self.pos), path=path)
        return locate([d], self._text, path)[0]


class LineIndex:
    """Offsets → 1-based (line, column), in O(log lines) per lookup."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        # an array of machine integers, filled directly: a list of ints would hold five
        # times its memory (9 MB for a 10 MB file's 250 000 lines) while it is built
        starts = array("q", (0,))
        append = starts.append
        find = text.find
        i = find("\n")
        while i >= 0:
            append(i + 1)
            i = find("\n", i + 1)
        self._starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


_INDEXES: list[tuple[str, LineIndex]] = []


def line_index(text: str) -> LineIndex:
    """The :class:`LineIndex` of ``text``, from a small cache keyed by identity.

    Stages that place many diagnostics or forms in one text share its index; ``fmt``
    alternates between a whole file and each rewritten form, so the cache holds a few
    texts (most recently used first), never rebuilding the big one per form.
    """
    for i, (t, idx) in enumerate(_INDEXES):
        if t is text:
            if i:
                _INDEXES.insert(0, _INDEXES.pop(i))
            return idx
    idx = LineIndex(text)
    _INDEXES.insert(0, (text, idx))
    del _INDEXES[4:]
    return idx


def locate(diags: Iterable[Diagnostic], text: str, path: str | None = None) -> list[Diagnostic]:
    """Fill line/column (and ``path`` when unset) of each diagnostic from ``text``."""
    out = list(diags)
    index: LineIndex | None = None
    for d in out:
        if d.path is None:
            d.path = path
        if d.start >= 0 and not d.line:
            if index is None:
                index = line_index(text)
            d.line, d.column = index.position(d.start)
            end = d.end if d.end >= d.start else d.start
            d.end_line, d.end_column = index.position(end)
    return out


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diags)
