"""A model's tool calls at run time: checked against the schema the model saw, mapped back.

Owns: one implementation of argument validation and of the message a model gets when a
call does not fit (:func:`validate`, :func:`message`, :class:`Problem`), of mapping a
call made against a lowered schema back to the shape of the original one
(:func:`map_back`), and of the run-time tool sets of ``plistspec-gptel-mode``
(:mod:`.toolset`: a backend's tools lowered, cached by content, and each call checked).
``plistspec check --server`` answers Emacs with it; ``plistspec serve`` uses the same
validation.

Modules: :mod:`.judge` (one call judged against the tool's contract: mapped back, then
checked; what a Python caller uses), :mod:`.problems` (a problem, the model's message),
:mod:`.validate` (``jsonschema`` with the readings tool calls need), :mod:`.mapback`
(schema-driven, from the original and the lowered schema), :mod:`.bounded` (one check's
time bound), :mod:`.refs` (``$defs`` put back), :mod:`.elements` (gptel's JSON read
element by element), :mod:`.toolset`.

Layer 6 of docs/architecture.md (beside :mod:`plistspec.lint` and
:mod:`plistspec.pipeline`): may import :mod:`plistspec.lowering`,
:mod:`plistspec.emit_json`, :mod:`plistspec.fromjson` and :mod:`plistspec.core`.
"""

from __future__ import annotations

from typing import Any

from plistspec.calls.judge import Verdict, judge
from plistspec.calls.problems import Problem, message
from plistspec.calls.validate import Checker, validate

__all__ = ["Problem", "Checker", "validate", "message", "map_back", "judge", "Verdict"]


def map_back(original: Any, lowered: Any, arguments: Any, *, nil: bool = False) -> Any:
    """``arguments`` (valid against ``lowered``) in the shape ``original`` describes (a
    copy); ``nil``: they come from Emacs (see :mod:`plistspec.calls.mapback`)."""
    from plistspec.calls.mapback import map_back as _map_back

    return _map_back(original, lowered, arguments, nil=nil)
