"""One tool call judged against the tool's own contract: the engine of the run-time check.

Owns: :func:`judge` and :class:`Verdict`. A call is mapped back to the contract's shape
first (:mod:`plistspec.calls.mapback`: made against the lowered schema the model saw),
then refused iff it breaks the contract (:mod:`plistspec.calls.validate`): constraints
the lowering moved into a description still hold, and what only the lowering added
(strict mode's required nulls, ``additionalProperties: false``) never refuses a call.
``plistspec check --server`` (:mod:`plistspec.calls.toolset`) answers
``plistspec-gptel-mode`` with it; a Python caller can use it directly.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from plistspec.calls.mapback import apply_edits, edits
from plistspec.calls.problems import Problem, message
from plistspec.calls.validate import EMPTY_PARAMETERS, Checker, timed_out

__all__ = ["Verdict", "judge"]


class Verdict(NamedTuple):
    """What :func:`judge` found: ``ok`` (run it), ``arguments`` (mapped back: what to run
    it with), ``edits`` (the changes made, each ``("remove", path)`` or ``("set", path,
    value)``), ``problems`` and ``message`` (the tool result a model gets when not ok,
    else "")."""

    ok: bool
    arguments: Any
    edits: list[tuple]
    problems: list[Problem]
    message: str

    @property
    def unchecked(self) -> bool:
        """The check ran out of time (a ``pattern`` that backtracks on the value)."""
        return timed_out(self.problems)


def judge(
    name: str,
    contract: Any,
    lowered: Any,
    arguments: Any,
    *,
    nil: bool = False,
    absent_null: bool = False,
    checker: Checker | None = None,
    checked: list[Problem] | None = None,
) -> Verdict:
    """The call of tool ``name`` with ``arguments`` (parsed JSON), made against the
    parameters schema ``lowered``, judged by the tool's declared ``contract``. ``nil``:
    the arguments come from Emacs (``null`` and ``{}`` are both nil); ``absent_null``: a
    ``null`` for a property its object does not require is "not given" (gptel's
    reading); ``checker``: a :class:`Checker` of ``contract`` made before, to reuse;
    ``checked``: what that checker found in ``arguments`` as they are (with the same
    ``nil`` and ``absent_null``), when the caller already asked it."""
    checker = checker if checker is not None else Checker(contract)
    changes: list[tuple] = []
    if lowered != contract:
        changes = edits(contract or EMPTY_PARAMETERS, lowered, arguments, nil=nil)
    back_problems: list[Problem] = []
    if changes:  # made against the lowered schema: judged as mapped back
        back = apply_edits(arguments, changes)
        back_problems = checker.problems(back, nil=nil, absent_null=absent_null)
        if not back_problems:
            return Verdict(True, back, changes, [], "")
        if timed_out(back_problems):
            return Verdict(False, arguments, [], back_problems, message(name, back_problems))
    problems = (
        checked
        if checked is not None
        else checker.problems(arguments, nil=nil, absent_null=absent_null)
    )
    if not problems:
        return Verdict(True, arguments, [], [], "")
    problems = back_problems or problems
    return Verdict(False, arguments, [], problems, message(name, problems))
