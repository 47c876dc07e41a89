"""Lowering and call checking for Python: the run-time engine of ``plistspec-gptel-mode``.

Owns: :func:`lower` (tools → the JSON a provider accepts, and every rewrite as a
diagnostic: ``to-json -t TARGET --lower`` as a function) and :func:`check_call` (a
model's call of one tool → :class:`CallCheck`: run it, with the arguments mapped back
to the shape the tool declared, or refuse it with the problems and the message the
model reads). Both are compositions of the stages' public functions:
:func:`plistspec.lowering.tools.lower_tools_detailed`,
:func:`plistspec.emit_json.target.to_target_json` and :mod:`plistspec.calls`
(:class:`~plistspec.calls.validate.Checker`, :func:`~plistspec.calls.map_back`,
:func:`~plistspec.calls.problems.message`).

The contract of a call (issue 27 §1): **the tool's declared schema judges it**, not
the lowered schema the model saw. The arguments are mapped back from the lowered shape
(a ``null`` strict mode made the model send for an optional property is removed, an
enum value lowering wrote as a string becomes the declared value...), then checked
against the declared schema, so a constraint lowering could only move into the
description (Gemini's integer ``enum``, ``exclusiveMinimum``, ``multipleOf``...) is
still enforced, and nothing lowering added refuses a call. Arguments that are not JSON
are one problem, said as such.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, NamedTuple

from plistspec.calls.problems import Problem
from plistspec.core.diagnostics import Diagnostic

if TYPE_CHECKING:
    from plistspec.calls.validate import Checker

__all__ = ["LowerResult", "CallCheck", "Problem", "lower", "check_call"]


class _Lowered(NamedTuple):
    value: Any
    diagnostics: list[Diagnostic]


class LowerResult(_Lowered):
    """What :func:`lower` gives, a pair as :class:`plistspec.JsonResult` is: ``value``, the
    provider JSON (None when an error remains, unless ``partial``), and ``diagnostics``,
    one per rewrite; and, as an attribute, ``tools``: the lowered tools in the IR (their
    ``metadata.lowered`` says the target, strict mode, and ``original_name`` for a
    renamed tool)."""

    tools: list[dict[str, Any]]

    def __new__(cls, value: Any, diagnostics: list[Diagnostic], tools: list[dict[str, Any]]):
        self = super().__new__(cls, value, diagnostics)
        self.tools = tools
        return self


class _Verdict(NamedTuple):
    ok: bool
    arguments: Any
    problems: list[Problem]
    message: str | None


class CallCheck(_Verdict):
    """What :func:`check_call` says of one call: ``(ok, arguments, problems, message)``.

    ``ok``: run the tool. ``arguments``: the arguments to run it with, mapped back to the
    shape the tool declared (when refused: as the model sent them, parsed; None when they
    were not JSON). ``problems``: every problem, by JSON pointer into the arguments.
    ``message``: the tool result the model reads instead of running the tool (None when
    ``ok``), the text ``plistspec-gptel-mode`` and ``plistspec serve`` send. Attributes
    beside the four: ``name``, the tool's name as the model called it (the lowered name);
    ``unchecked``, why the call could not be checked (a schema the validator cannot use):
    it runs, as it would without plistspec."""

    name: str
    unchecked: str | None

    def __new__(
        cls,
        ok: bool,
        arguments: Any,
        problems: list[Problem],
        message: str | None,
        name: str = "",
        unchecked: str | None = None,
    ):
        self = super().__new__(cls, ok, arguments, problems, message)
        self.name = name
        self.unchecked = unchecked
        return self

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, name={self.name!r}, unchecked={self.unchecked!r})"


def _targets() -> tuple[str, ...]:
    from plistspec.core.formats import LOWER_TARGETS

    return LOWER_TARGETS


def _known(target: Any) -> str:
    if target not in _targets():
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(_targets())}")
    return target


def _tools_of(tools: Any) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """IR tools (as they are) or any tool JSON :func:`plistspec.fromjson.rawjson.raw_tools`
    reads (schemas exactly as written)."""

    def ir(t: Any) -> bool:
        return isinstance(t, dict) and isinstance(t.get("name"), str) and "parameters" in t

    if ir(tools):
        return [tools], []
    if isinstance(tools, list) and all(ir(t) for t in tools):
        return list(tools), []
    from plistspec.fromjson.rawjson import raw_tools

    return raw_tools(tools)


def lower(tools: Any, target: str, *, partial: bool = False) -> LowerResult:
    """``tools`` lowered for ``target`` (one of :data:`plistspec.core.formats.LOWER_TARGETS`:
    ``gemini``, ``openai``, ``openai-strict``, ``openai-responses``, ``anthropic``...), as
    ``to-json -t TARGET --lower`` does it: tools read from Elisp start from what gptel/llm
    send the target; every rewrite is a diagnostic (info: lossless; warning: the schema
    accepts more or fewer values, ``effect`` says which; error: the target cannot carry
    the tool). ``tools``: IR tools (from :func:`plistspec.read_tools`,
    :func:`plistspec.from_provider`, :func:`plistspec.from_python`) or any tool JSON
    ``from-json`` reads, taken with its schemas exactly as written.

    ``value`` is None when an error remains; with ``partial``, the tools the target cannot
    carry are left out instead (``plistspec-gptel-mode`` does so), each named by its
    error. Raises :class:`ValueError` for an unknown target."""
    from plistspec.core.gcpause import paused
    from plistspec.emit_json.target import sent_tools, to_target_json
    from plistspec.lowering import diagnostics_of
    from plistspec.lowering.tools import lower_tools_detailed

    target = _known(target)
    with paused():
        ir, diags = _tools_of(tools)
        ir, more = sent_tools(ir, target)
        diags = diags + list(more)
        lowered, records = lower_tools_detailed(ir, target)
        diags.extend(diagnostics_of(records, target))
        failed = {r.tool for r in records if r.severity == "error"}
        if any(d.is_error for d in diags) and not partial:
            return LowerResult(None, diags, lowered)
        kept = [t for i, t in enumerate(lowered) if i not in failed]
        return LowerResult(to_target_json(kept, target), diags, kept)


# --- one call ------------------------------------------------------------------------------


class _Contract(NamedTuple):
    name: str  # as the model sees it
    declared: Any  # the parameters the tool declared
    lowered: Any  # the parameters the model saw
    judge: Checker  # the declared schema, compiled once


_CONTRACTS: OrderedDict[str, _Contract] = OrderedDict()
_KEPT = 1024  # tools whose lowering and compiled schema are kept


def _contract(tool: Any, target: str) -> _Contract:
    from plistspec.calls.validate import EMPTY_PARAMETERS, Checker

    key = json.dumps([target, tool], sort_keys=True, ensure_ascii=False, default=repr)
    hit = _CONTRACTS.get(key)
    if hit is not None:
        _CONTRACTS.move_to_end(key)
        return hit
    ir, diags = _tools_of(tool)
    if len(ir) != 1:
        why = "; ".join(d.message for d in diags if d.is_error) or f"{len(ir)} tools given"
        raise ValueError(f"check_call takes one tool: {why}")
    result = lower(ir, target)
    errors = [d.message for d in result.diagnostics if d.is_error]
    if errors:
        raise ValueError(f"the tool is not sent to {target}: {errors[0]}")
    declared = ir[0].get("parameters") or EMPTY_PARAMETERS
    low = result.tools[0]
    made = _Contract(
        str(low.get("name")), declared, low.get("parameters") or EMPTY_PARAMETERS, Checker(declared)
    )
    _CONTRACTS[key] = made
    while len(_CONTRACTS) > _KEPT:
        _CONTRACTS.popitem(last=False)
    return made


def check_call(tool: Any, target: str, arguments: Any) -> CallCheck:
    """A model's call of ``tool`` (lowered for ``target`` and offered as :func:`lower`
    offers it) with ``arguments`` (the JSON text the model sent, as ``str`` or ``bytes``,
    or its parsed value) judged against the schema ``tool`` declared (see the module).

    ``tool``: one IR tool, or one tool in any JSON ``from-json`` reads (an MCP ``Tool``,
    an OpenAI or Anthropic tool...). Raises :class:`ValueError` for an unknown target or
    a tool the target cannot carry (no model could have called it). The tool's lowering
    and compiled schema are cached by content: repeated calls cost the validation."""
    from plistspec.calls.judge import judge

    contract = _contract(tool, _known(target))
    args, problems = _parsed(arguments)
    if problems:
        return _refused(contract.name, None, problems)
    if args is None:  # what some models send for a tool without arguments
        args = {}
    # the run-time modes' own engine: mapped back, then judged by the declared schema
    verdict = judge(
        contract.name, contract.declared, contract.lowered, args, checker=contract.judge
    )
    if not verdict.ok:
        return CallCheck(False, args, verdict.problems, verdict.message, contract.name)
    return CallCheck(True, verdict.arguments, [], None, contract.name, contract.judge.broken)


def _parsed(arguments: Any) -> tuple[Any, list[Problem]]:
    if isinstance(arguments, (bytes, bytearray, memoryview)):
        try:
            arguments = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError as e:
            return None, [Problem("", "a JSON object of arguments", f"invalid UTF-8 ({e.reason})")]
    if not isinstance(arguments, str):
        return arguments, []
    if not arguments.strip():  # an empty text: no arguments (as some models send it)
        return None, []
    from plistspec.core.jsontext import JsonError, load_json

    try:
        value, _ = load_json(arguments)
    except JsonError as e:
        got = e.message if e.too_deep else f"invalid JSON ({e.message})"
        return None, [Problem("", "a JSON object of arguments", got)]
    return value, []


def _refused(name: str, args: Any, problems: list[Problem]) -> CallCheck:
    from plistspec.calls.problems import message

    return CallCheck(False, args, problems, message(name, problems), name)
